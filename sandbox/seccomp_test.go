//go:build linux

package sandbox

import (
	"encoding/binary"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"
)

// runProbe is what a sandboxed command runs (this test binary with
// DSH_TEST_PROBE): "dial:PATH" connects to the UNIX socket at PATH,
// "listen:PATH" listens on one of its own, "socketpair" makes a connected
// pair; "type:" and "session:" are TestTerminal_NoTyping's. It prints the outcome and exits.
func runProbe(probe string) {
	if slave, ok := strings.CutPrefix(probe, "type:"); ok {
		ttyProbe(slave)
	}
	if rest, ok := strings.CutPrefix(probe, "session:"); ok {
		supervised, slave, _ := strings.Cut(rest, ":")
		sessionProbe(supervised == "true", slave)
	}
	if path, ok := strings.CutPrefix(probe, "dial:"); ok {
		c, err := net.Dial("unix", path)
		if err != nil {
			fmt.Println("refused:", err)
			os.Exit(3)
		}
		c.Write([]byte("escaped"))
		c.Close()
		fmt.Println("connected")
		os.Exit(0)
	}
	if addr, ok := strings.CutPrefix(probe, "udp:"); ok {
		// sendto without connect, as resolvers and dig may send.
		c, err := net.ListenPacket("udp4", "127.0.0.1:0")
		if err != nil {
			fmt.Println("refused:", err)
			os.Exit(3)
		}
		to, _ := net.ResolveUDPAddr("udp4", addr)
		if _, err := c.WriteTo([]byte("secret"), to); err != nil {
			fmt.Println("refused:", err)
			os.Exit(3)
		}
		fmt.Println("sent")
		os.Exit(0)
	}
	if path, ok := strings.CutPrefix(probe, "listen:"); ok {
		ln, err := net.Listen("unix", path)
		if err != nil {
			fmt.Println("listen:", err)
			os.Exit(3)
		}
		ln.Close()
		fmt.Println("listening")
		os.Exit(0)
	}
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM, 0)
	if err != nil {
		fmt.Println("socketpair:", err)
		os.Exit(3)
	}
	unix.Close(fds[0])
	unix.Close(fds[1])
	fmt.Println("paired")
	os.Exit(0)
}

// TestSocketFilter_UnixSockets: without the network, a sandboxed command
// cannot reach a process listening on a named UNIX socket outside the
// sandbox (the editor's, tmux's, D-Bus's, Docker's) nor send a datagram,
// run by the helper or the supervisor; it can still listen on a socket of its own and make
// socketpairs (pipes between its own processes).
func TestSocketFilter_UnixSockets(t *testing.T) {
	if ABI() == 0 {
		t.Fatal("no Landlock")
	}
	self, _ := os.Executable()
	outside := t.TempDir()
	sock := filepath.Join(outside, "editor.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	got := make(chan string, 8)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			b := make([]byte, 16)
			n, _ := c.Read(b)
			got <- string(b[:n])
			c.Close()
		}
	}()
	udp, err := net.ListenPacket("udp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer udp.Close()
	ws, _ := filepath.EvalSymlinks(t.TempDir())
	for _, supervised := range []bool{false, true} {
		t.Run(fmt.Sprintf("supervised=%v", supervised), func(t *testing.T) {
			p := Profile{Write: []string{ws}}
			os.Remove(filepath.Join(ws, "own.sock"))
			out, err := helperRun(t, p, ws, "DSH_TEST_PROBE=listen:"+filepath.Join(ws, "own.sock")+" "+self, supervised)
			if err != nil || out != "listening\n" {
				t.Errorf("a socket of its own: err %v, output %q", err, out)
			}
			out, err = helperRun(t, p, ws, "DSH_TEST_PROBE=dial:"+sock+" "+self, supervised)
			if err == nil || !strings.Contains(out, "operation not permitted") {
				t.Errorf("the probe: err %v, output %q", err, out)
			}
			out, err = helperRun(t, p, ws, "DSH_TEST_PROBE=udp:"+udp.LocalAddr().String()+" "+self, supervised)
			if err == nil || !strings.Contains(out, "operation not permitted") {
				t.Errorf("a datagram sent without connect: err %v, output %q", err, out)
			}
			out, err = helperRun(t, p, ws, "DSH_TEST_PROBE=socketpair "+self, supervised)
			if err != nil || out != "paired\n" {
				t.Errorf("socketpair: err %v, output %q", err, out)
			}
		})
	}
	select {
	case s := <-got:
		t.Errorf("a sandboxed command reached the socket: %q", s)
	case <-time.After(50 * time.Millisecond):
	}
	udp.SetReadDeadline(time.Now().Add(50 * time.Millisecond))
	if n, _, err := udp.ReadFrom(make([]byte, 64)); err == nil {
		t.Errorf("a datagram of %d bytes got out", n)
	}
	// The same probe outside the sandbox connects: the test can tell.
	probe := exec.Command(self)
	probe.Env = append(os.Environ(), "DSH_TEST_PROBE=dial:"+sock)
	if out, err := probe.CombinedOutput(); err != nil || !strings.Contains(string(out), "connected") {
		t.Fatalf("the probe cannot connect even unsandboxed: %v %q", err, out)
	}
	if s := <-got; s != "escaped" {
		t.Errorf("got %q", s)
	}
}

// TestSocketFilter_Program runs the filter in x/net/bpf's machine over
// seccomp_data built by hand (the machine loads words big-endian, so the
// fields are written that way), for the ABIs this machine cannot run.
func TestSocketFilter_Program(t *testing.T) {
	m, ok := nativeABI()
	if !ok {
		t.Fatalf("no filter for this architecture")
	}
	arch, socketNR, connectNR, foreign, foreignSocket := m.arch, m.socket, m.connect, m.foreign, m.foreignSocket
	const allow, deny = unix.SECCOMP_RET_ALLOW, unix.SECCOMP_RET_ERRNO | uint32(unix.EPERM)
	for _, tc := range []struct {
		name       string
		arch       uint32
		nr         uint32
		arg0, arg1 uint32
		network    bool
		want       uint32
	}{
		{"connect without the network", arch, connectNR, 3, 0, false, deny},
		{"connect with the network", arch, connectNR, 3, 0, true, allow},
		{"a UNIX socket (to bind and listen)", arch, socketNR, unix.AF_UNIX, 0, false, allow},
		{"UDP or TCP without the network", arch, socketNR, unix.AF_INET, 0, false, deny},
		{"IPv6 without the network", arch, socketNR, unix.AF_INET6, 0, false, deny},
		{"a VM socket without the network", arch, socketNR, unix.AF_VSOCK, 0, false, deny},
		{"netlink without the network", arch, socketNR, unix.AF_NETLINK, 0, false, allow},
		{"TCP with the network", arch, socketNR, unix.AF_INET, 0, true, allow},
		{"socketpair", arch, unix.SYS_SOCKETPAIR, unix.AF_UNIX, 0, false, allow},
		{"io_uring without the network", arch, ioUringSetup, 0, 0, false, deny},
		{"io_uring with the network", arch, ioUringSetup, 0, 0, true, deny},
		{"typing into a terminal", arch, m.ioctl, 0, tiocsti, true, deny},
		{"pasting on a console", arch, m.ioctl, 0, tioclinux, false, deny},
		{"another ioctl", arch, m.ioctl, 0, unix.TIOCGWINSZ, false, allow},
		{"another ioctl with the network", arch, m.ioctl, 0, unix.TCGETS, true, allow},
		{"a read whose second argument is TIOCSTI's number", arch, unix.SYS_READ, 0, tiocsti, true, allow},
		{"an x32 system call", arch, x32Bit | socketNR, unix.AF_INET, 0, true, deny},
		{"a 32-bit socketcall", foreign, foreignSocket[0], 1, 0, false, deny},
		{"a 32-bit connect", foreign, foreignSocket[len(foreignSocket)-1], 3, 0, false, deny},
		{"a 32-bit socketcall with the network", foreign, foreignSocket[0], 1, 0, true, allow},
		{"32-bit io_uring", foreign, ioUringSetup, 0, 0, true, deny},
		{"32-bit typing into a terminal", foreign, m.foreignIoctl, 0, tiocsti, true, deny},
		{"a 32-bit read", foreign, 3, 0, 0, false, allow},
		{"read", arch, unix.SYS_READ, 0, 0, false, allow},
	} {
		t.Run(tc.name, func(t *testing.T) {
			raw, err := socketFilter(tc.network)
			if err != nil {
				t.Fatal(err)
			}
			insts, ok := bpf.Disassemble(raw)
			if !ok {
				t.Fatalf("the program does not disassemble")
			}
			vm, err := bpf.NewVM(insts)
			if err != nil {
				t.Fatal(err)
			}
			data := make([]byte, 64)
			binary.BigEndian.PutUint32(data[offNR:], tc.nr)
			binary.BigEndian.PutUint32(data[offArch:], tc.arch)
			binary.BigEndian.PutUint32(data[offArg0:], tc.arg0)
			binary.BigEndian.PutUint32(data[offArg1:], tc.arg1)
			got, err := vm.Run(data)
			if err != nil {
				t.Fatal(err)
			}
			if uint32(got) != tc.want {
				t.Errorf("got %#x, want %#x", got, tc.want)
			}
		})
	}
}
