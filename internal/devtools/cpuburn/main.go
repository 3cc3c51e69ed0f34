// Command cpuburn runs a command while it keeps every core busy, so that
// tests meet the scheduling delays of a loaded machine (make test-stress):
//
//	cpuburn [-n N] [-limit D] -- command [args...]
//
// It spins N goroutines (default: one per core) in a loop that does
// nothing useful, runs the command with its own standard streams, and
// exits with the command's exit status. The burn lives inside this process
// and so can never outlive it: it stops when the command ends, when this
// process is signalled (SIGINT and SIGTERM are passed on to the command,
// which is waited for), or at the hard limit -limit, when the command is
// killed and cpuburn exits with status 124, as timeout(1) does.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

func main() {
	// The command's output and the burn's reports both go to stderr: a
	// developer tool keeps stdout free, as every program here but the
	// bridge's protocol does.
	os.Exit(run(os.Args[1:], os.Stdin, os.Stderr, os.Stderr))
}

// exitLimit is the exit status when the hard limit ended the command.
const exitLimit = 124

// run parses args, burns and runs the command; it returns the exit status.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("cpuburn", flag.ContinueOnError)
	fl.SetOutput(stderr)
	n := fl.Int("n", runtime.NumCPU(), "busy goroutines")
	limit := fl.Duration("limit", time.Hour, "hard limit: the command is killed after it")
	if err := fl.Parse(args); err != nil {
		return 2
	}
	argv := fl.Args()
	if len(argv) == 0 || *n < 0 || *limit <= 0 {
		fmt.Fprintln(stderr, "usage: cpuburn [-n N] [-limit D] -- command [args...]")
		return 2
	}
	ctx, cancel := context.WithTimeout(context.Background(), *limit)
	defer cancel()
	stop := burn(*n)
	defer stop()
	code, err := command(ctx, argv, stdin, stdout, stderr)
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		fmt.Fprintf(stderr, "cpuburn: the hard limit of %v was reached; the command was killed\n", *limit)
		return exitLimit
	}
	if err != nil {
		fmt.Fprintln(stderr, "cpuburn:", err)
		return 1
	}
	return code
}

// burn starts n goroutines that spin until the returned stop is called;
// stop returns once all of them have stopped and may be called twice.
func burn(n int) (stop func()) {
	if runtime.GOMAXPROCS(0) < n {
		runtime.GOMAXPROCS(n)
	}
	var done atomic.Bool
	var wg sync.WaitGroup
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			x := uint64(1)
			for !done.Load() {
				for range 1 << 16 {
					x = x*6364136223846793005 + 1442695040888963407
				}
			}
			sink.Add(x)
		}()
	}
	return func() { done.Store(true); wg.Wait() }
}

// sink keeps the spinning loop's result alive so it is not optimised away.
var sink atomic.Uint64

// command runs argv to its end, or until ctx is done (then it is killed);
// SIGINT and SIGTERM received meanwhile are passed on to it. It returns
// the command's exit status.
func command(ctx context.Context, argv []string, stdin io.Reader, stdout, stderr io.Writer) (int, error) {
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdin, stdout, stderr
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)
	if err := cmd.Start(); err != nil {
		return 0, err
	}
	waited := make(chan error, 1)
	go func() { waited <- cmd.Wait() }()
	for {
		select {
		case s := <-sigs:
			cmd.Process.Signal(s)
		case err := <-waited:
			var ee *exec.ExitError
			if errors.As(err, &ee) {
				return ee.ExitCode(), nil
			}
			return 0, err
		}
	}
}
