package jsvm

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"runtime/metrics"
	"strconv"
	"time"

	"github.com/dsh-bridge/dsh-bridge/codemode/coderun"
)

// dataSlack is what the process may map beyond its heap headroom: the
// collector's own growth, goroutine stacks, esbuild's and goja's tables.
const dataSlack = 256 << 20

// memCap is a run's memory cap: what the process uses when the run
// starts, the run's heap headroom (coderun's default when zero) and
// dataSlack.
func memCap(used, headroom uint64) uint64 {
	if headroom == 0 {
		headroom = coderun.DefaultHeapHeadroom
	}
	return used + headroom + dataSlack
}

// memEvery is how often memWatch samples where the kernel caps nothing;
// memExit is the runner's exit status when it passes the cap (the bridge
// reports any exit before an outcome as worker-exit).
const (
	memEvery = 10 * time.Millisecond
	memExit  = 3
)

// memWatch ends the process when read (the memory the runtime maps)
// passes limit: at each tick it samples once, and past the limit calls
// exit with the reason and stops. It stops too when done is closed.
type memWatch struct {
	limit uint64
	read  func() uint64
	exit  func(reason string)
}

func (w memWatch) run(tick <-chan time.Time, done <-chan struct{}) {
	for {
		select {
		case <-done:
			return
		case <-tick:
			if got := w.read(); got > w.limit {
				w.exit("memory limit exceeded (" + strconv.FormatUint(got>>20, 10) + " MiB mapped, the cap is " + strconv.FormatUint(w.limit>>20, 10) + " MiB)")
				return
			}
		}
	}
}

// mapped is all the memory the Go runtime has mapped.
func mapped() uint64 {
	s := []metrics.Sample{{Name: "/memory/classes/total:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return s[0].Value.Uint64()
}

// vmData reads the VmData line (kB) of a /proc/<pid>/status, in bytes.
func vmData(status io.ReaderAt) (uint64, error) {
	sc := bufio.NewScanner(io.NewSectionReader(status, 0, 1<<20))
	for sc.Scan() {
		if rest, ok := bytes.CutPrefix(sc.Bytes(), []byte("VmData:")); ok {
			kb, err := strconv.ParseUint(string(bytes.TrimSuffix(bytes.TrimSpace(rest), []byte(" kB"))), 10, 64)
			return kb << 10, err
		}
	}
	return 0, errors.Join(errors.New("no VmData in the process status"), sc.Err())
}
