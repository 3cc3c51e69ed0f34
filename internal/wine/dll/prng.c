/* bcryptprimitives.dll for Wine 8.0, which has none: Go's Windows runtime
 * (1.22 and later) will not start without ProcessPrng. It fills the buffer
 * from RtlGenRandom (SystemFunction036 in advapi32), as the real one fills
 * it from the system's generator. Built by `make deps-wine`; never shipped. */
#include <windows.h>

BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);

__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T length)
{
    while (length > 0) {
        ULONG n = length > 0x7fffffff ? 0x7fffffff : (ULONG)length;
        if (!SystemFunction036(data, n))
            return FALSE;
        data += n;
        length -= n;
    }
    return TRUE;
}
