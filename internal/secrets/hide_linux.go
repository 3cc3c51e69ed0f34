package secrets

import (
	"errors"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// HideProcess blanks this process's environment block and every argument
// after the program's name in the memory the kernel shows as
// /proc/<pid>/environ and /proc/<pid>/cmdline, after moving what Go reads
// of them (os.Args, the environment) to memory of its own, and then makes
// the process non-dumpable: no other process of the same user (an MCP
// server, an approved unsandboxed command) may read its memory through
// /proc/<pid>/mem, ptrace or process_vm_readv, where the key lives on.
// Root still may. Call it first in main, before any goroutine reads
// os.Args or the environment; the process then runs as before, and what
// it starts still gets the environment it is given (a program it execs
// is dumpable again).
func HideProcess() error {
	args := make([]string, len(os.Args))
	for i, a := range os.Args {
		args[i] = strings.Clone(a)
	}
	env := os.Environ()
	for i, kv := range env {
		env[i] = strings.Clone(kv)
	}
	os.Args = args
	os.Clearenv()
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		os.Setenv(k, v)
	}
	err := blank(len(args[0]))
	if perr := unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0); err == nil {
		err = perr
	}
	return err
}

// blank zeroes the environment block and the arguments after the
// first, whose length is prog.
func blank(prog int) error {
	stat, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		return err
	}
	b, err := parseBlocks(string(stat))
	if err != nil {
		return err
	}
	mem, err := os.OpenFile("/proc/self/mem", os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	defer mem.Close()
	var first error
	for _, r := range b.blank(prog) {
		if _, err := mem.WriteAt(make([]byte, r[1]-r[0]), int64(r[0])); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// blocks are the addresses of a process's argument and environment
// strings (proc(5): arg_start, arg_end, env_start, env_end).
type blocks struct{ argStart, argEnd, envStart, envEnd uint64 }

// blank returns the ranges [from, to) to zero: the environment, and the
// arguments after the first (whose length is prog).
func (b blocks) blank(prog int) [][2]uint64 {
	var out [][2]uint64
	if from := b.argStart + uint64(prog) + 1; from < b.argEnd {
		out = append(out, [2]uint64{from, b.argEnd})
	}
	if b.envStart < b.envEnd {
		out = append(out, [2]uint64{b.envStart, b.envEnd})
	}
	return out
}

// parseBlocks reads the block addresses from a /proc/<pid>/stat line:
// fields 48 to 51, counted after the command name, which is in
// parentheses and may hold spaces or parentheses itself.
func parseBlocks(stat string) (blocks, error) {
	i := strings.LastIndexByte(stat, ')')
	if i < 0 {
		return blocks{}, errors.New("secrets: a stat line without a command name")
	}
	f := strings.Fields(stat[i+1:]) // f[0] is field 3, the state
	const first = 48 - 3
	if len(f) < first+4 {
		return blocks{}, errors.New("secrets: a stat line without the argument and environment addresses")
	}
	var v [4]uint64
	for j := range v {
		n, err := strconv.ParseUint(f[first+j], 10, 64)
		if err != nil {
			return blocks{}, errors.New("secrets: a stat address is not a number: " + f[first+j])
		}
		v[j] = n
	}
	b := blocks{v[0], v[1], v[2], v[3]}
	if b.argStart > b.argEnd || b.envStart > b.envEnd {
		return blocks{}, errors.New("secrets: the stat addresses are out of order")
	}
	return b, nil
}
