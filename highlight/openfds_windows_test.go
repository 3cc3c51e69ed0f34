package highlight

import (
	"testing"
	"unsafe"

	"golang.org/x/sys/windows"
)

var getProcessHandleCount = windows.NewLazySystemDLL("kernel32.dll").NewProc("GetProcessHandleCount")

// openFDs counts this process's open handles (GetProcessHandleCount).
func openFDs(t *testing.T) int {
	t.Helper()
	var n uint32
	if r, _, err := getProcessHandleCount.Call(uintptr(windows.CurrentProcess()), uintptr(unsafe.Pointer(&n))); r == 0 {
		t.Fatalf("GetProcessHandleCount: %v", err)
	}
	return int(n)
}
