//go:build linux

package bridge_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// floorClient is a client that does nothing with the model's streams but
// read them: the benchmarks play it the turns they play the bridge, so
// that what the bridge spends can be set against what the same streams
// cost a client that does nothing else.
type floorClient struct {
	name string
	// argv is the command that posts the request in file body to url,
	// count times in a row on one connection, printing the answers.
	argv  func(url, body string, count int) []string
	count func(out []byte) int // the data events it saw
	// cpu is the CPU of the runs counted, by what they were (say, the
	// 1-call and the many-call streams).
	cpu [2]time.Duration
}

// smallRequest is the chat request the floor clients post when the
// answer, not the request, is measured.
const smallRequest = `{"model":"deepseek-v4-flash","stream":true,"messages":[{"role":"user","content":"read"}]}`

// floorClients are the Go floor (internal/devtools/streamfloor: net/http and a
// bufio.Reader, as the bridge reads) and curl (native, writing the answers
// to a pipe), built or found once per benchmark.
func floorClients(b *testing.B) []*floorClient {
	bin := filepath.Join(b.TempDir(), "streamfloor")
	build := exec.Command("go", "build", "-o", bin, "../internal/devtools/streamfloor")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		b.Fatalf("building streamfloor: %v\n%s", err, out)
	}
	curl, err := exec.LookPath("curl")
	if err != nil {
		b.Fatalf("curl, the native floor: %v", err)
	}
	return []*floorClient{
		{name: "go", argv: func(url, body string, count int) []string {
			return []string{"sh", "-c", `exec "$0" "$1" "$2" < "$3"`, bin, url, strconv.Itoa(count), body}
		}, count: func(out []byte) int { n, _ := strconv.Atoi(strings.TrimSpace(string(out))); return n }},
		{name: "curl", argv: func(url, body string, count int) []string {
			argv := []string{curl, "-sSN", "--fail", "-H", "Content-Type: application/json", "-H", "Authorization: Bearer test-key", "--data-binary", "@" + body}
			for range count {
				argv = append(argv, url) // the data goes to every URL, on one connection
			}
			return argv
		}, count: func(out []byte) int { return bytes.Count(out, []byte("data: ")) }},
	}
}

// play posts body to the model count times and, when slot ≥ 0, adds the
// client's CPU to cpu[slot]. It returns the events the client saw.
func (c *floorClient) play(b *testing.B, m *fakeModel, body string, count, slot int) int {
	argv := c.argv(m.srv.URL+"/chat/completions", body, count)
	if m.ca != "" && c.name == "curl" {
		argv = append([]string{argv[0], "--cacert", m.ca}, argv[1:]...)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), "STREAMFLOOR_KEY=test-key")
	if m.ca != "" {
		cmd.Env = append(cmd.Env, "SSL_CERT_FILE="+m.ca) // Go's roots
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		b.Fatalf("%s: %v\n%s", c.name, err, stderr.Bytes())
	}
	if slot >= 0 {
		c.cpu[slot] += cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	}
	return c.count(out)
}

// marginal is the client's CPU per unit, in µs: (cpu[1] − cpu[0]) over
// runs rounds of units more units each.
func (c *floorClient) marginal(runs, units int) float64 {
	return float64((c.cpu[1] - c.cpu[0]).Microseconds()) / float64(runs) / float64(units)
}

// writeRequest writes a request body to a file of its own for the floor
// clients to post, and returns its path.
func writeRequest(b *testing.B, body []byte) string {
	path := filepath.Join(b.TempDir(), "request.json")
	if err := os.WriteFile(path, body, 0o644); err != nil {
		b.Fatal(err)
	}
	return path
}
