package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"
)

// hostile is a manager (the caller closes it) of one hostilels server
// in mode (with arg) for .fake files in a new workspace dir; pids lists
// its processes.
func hostile(t *testing.T, mode, arg string, r *reports) (m *Manager, dir, pids string) {
	t.Helper()
	dir, _ = filepath.EvalSymlinks(t.TempDir())
	pids = filepath.Join(t.TempDir(), "pids")
	cmd := []string{hostilels, mode, pids}
	if arg != "" {
		cmd = append(cmd, arg)
	}
	opts := Options{Roots: []string{dir}, Servers: []Server{{Language: "fake", Command: cmd, Extensions: []string{".fake"}}},
		StartTimeout: 20 * time.Second, Wait: time.Minute, Backoff: 10 * time.Millisecond, Launch: Launcher{Env: os.Environ()}}
	if r != nil {
		opts.Report = r.add
	}
	return New(opts), dir, pids
}

// fileURI is p's file URI; a Windows path's drive gets the leading
// slash a URI's path needs (file:///C:/x, not file://C:/x).
func fileURI(p string) string { return (&url.URL{Scheme: "file", Path: uriSlashed(p)}).String() }

func uriSlashed(p string) string {
	s := filepath.ToSlash(p)
	if !strings.HasPrefix(s, "/") {
		s = "/" + s
	}
	return s
}

// TestManager_HostileDiagnosticsKeptInTheRoots: of what a server
// publishes for any URI it likes, only the files inside the workspace's
// roots, named by plain file URIs, are kept, and their texts are
// cleaned of control characters and capped.
func TestManager_HostileDiagnosticsKeptInTheRoots(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	list := filepath.Join(t.TempDir(), "publish.json")
	m, dir, _ := hostile(t, "publish", list, nil)
	defer m.Close()
	slashed := uriSlashed(dir)
	inside := filepath.Join(dir, "inside.fake")
	uris := map[string]string{
		"an absolute path outside":       "file:///etc/passwd",
		"dot-dot out of the root":        fileURI(dir) + "/../../etc/passwd",
		"percent-encoded dot-dot":        fileURI(dir) + "/%2E%2E/%2e%2e/etc/passwd",
		"percent-encoded slashes":        fileURI(dir) + "%2F..%2F..%2Fetc%2Fpasswd",
		"a sibling with the root's name": fileURI(dir+"-evil") + "/x.fake",
		"another host":                   "file://evil.example" + (&url.URL{Path: slashed}).EscapedPath() + "/x.fake",
		"an opaque file URI":             "file:etc/passwd",
		"another scheme":                 "https://example.com" + (&url.URL{Path: slashed}).EscapedPath() + "/x.fake",
		"a query":                        fileURI(inside) + "?x=1",
		"a fragment":                     fileURI(inside) + "#x",
		"an encoded NUL":                 fileURI(dir) + "/x%00.fake",
		"an encoded newline":             fileURI(dir) + "/x%0A.fake",
		"a user":                         "file://me@" + (&url.URL{Path: slashed}).EscapedPath() + "/x.fake",
	}
	diag := func(msg string) map[string]any {
		return map[string]any{"range": map[string]any{"start": map[string]any{"line": 0, "character": 0}, "end": map[string]any{"line": 0, "character": 0}},
			"severity": 1, "message": msg, "source": "evil\x1b]0;title\x07", "code": strings.Repeat("c", 500)}
	}
	var params []any
	for name, u := range uris {
		params = append(params, map[string]any{"uri": u, "diagnostics": []any{diag("leaked: " + name)}})
	}
	long := "\x1b[31mred\x1b[0m\r\nsecond\tline\u202egnirts\u0000" + strings.Repeat("x", 5000)
	params = append(params, map[string]any{"uri": fileURI(dir) + "/sub/../inside.fake", "diagnostics": []any{diag(long)}})
	b, _ := json.Marshal(params)
	if err := os.WriteFile(list, b, 0o644); err != nil {
		t.Fatal(err)
	}
	own := filepath.Join(dir, "own.fake")
	got, err := m.Changed(context.Background(), own, "x\n", true)
	if err != nil || len(got) == 0 || got[0].String() != own+":1:1: error: version 1" {
		t.Fatalf("the file's own: %v, %q", err, messages(got))
	}
	all := m.All()
	if len(all) != 2 || all[0].Path != own || all[1].Path != inside {
		t.Fatalf("kept:\n%s\nwant %s's and %s's only", messages(all), own, inside)
	}
	d := all[1]
	bad := strings.IndexFunc(d.Message+d.Source+d.Code, func(r rune) bool { return r < 0x20 || r == 0x7f || r == '\u202e' })
	if bad >= 0 || !strings.Contains(d.Message, "red") || !strings.Contains(d.Message, "second line") ||
		!strings.HasSuffix(d.Message, "…") || len(d.Message) > maxMessageBytes+len("…") {
		t.Errorf("message %q… (%d bytes): want control characters out and at most %d bytes", d.Message[:min(60, len(d.Message))], len(d.Message), maxMessageBytes)
	}
	if d.Source != "evil]0;title" || len(d.Code) > maxFieldBytes+len("…") {
		t.Errorf("source %q, code of %d bytes", d.Source, len(d.Code))
	}
}

// TestManager_DiagnosticsFlood: a server that publishes for 20,000
// files keeps at most maxDiagFiles of them, and the files the agent
// touched stay, listed first.
func TestManager_DiagnosticsFlood(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	m, dir, _ := hostile(t, "flood", "20000", nil)
	defer m.Close()
	own := filepath.Join(dir, "zz-own.fake") // sorts after the flood
	got, err := m.Changed(context.Background(), own, "x\n", true)
	if err != nil || len(got) == 0 || got[0].Message != "version 1" {
		t.Fatalf("the file's own: %v, %q", err, messages(got))
	}
	all := m.All()
	if len(all) > maxDiagFiles+1 {
		t.Errorf("%d diagnostics kept, want at most %d", len(all), maxDiagFiles+1)
	}
	if len(all) == 0 || all[0].Path != own {
		t.Errorf("first kept: %v, want %s's", all[:min(1, len(all))], own)
	}
}

// TestManager_BrokenFraming: a server that breaks the framing (a
// malformed header, a message over maxMessage) is stopped at once, seen
// down and restarted, and after MaxRestarts given up and reported once;
// no process of it is left, even before the manager closes.
func TestManager_BrokenFraming(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	for _, tc := range []struct{ name, mode, arg string }{
		{"a malformed header", "badheader", ""},
		{"a 100 MiB message", "huge", "100"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var r reports
			m, dir, pids := hostile(t, tc.mode, tc.arg, &r)
			defer m.Close()
			path := filepath.Join(dir, "a.fake")
			var errs []string
			for i := 0; i < 4*MaxRestarts; i++ {
				_, err := m.Changed(context.Background(), path, fmt.Sprint("text ", i), true)
				if err == nil {
					t.Fatalf("call %d: no error", i)
				}
				errs = append(errs, err.Error())
				if strings.Contains(err.Error(), "not available") {
					break
				}
			}
			if !strings.Contains(errs[len(errs)-1], "not available") || !strings.Contains(errs[len(errs)-1], "broke the protocol") {
				t.Errorf("errors %q, want the last to say the server is not available and broke the protocol", errs)
			}
			if left := alive(t, pids); len(left) > 0 {
				t.Errorf("server processes %v still run once it is given up", left)
			}
			if b, _ := os.ReadFile(pids); len(strings.Fields(string(b))) != MaxRestarts+1 {
				t.Errorf("started %d times, want %d", len(strings.Fields(string(b))), MaxRestarts+1)
			}
			m.Close()
			if got := r.list(); len(got) != 1 {
				t.Errorf("reports %q, want 1", got)
			}
		})
	}
}

// TestManager_VersionsCountUp: each change of a file is sent with a
// version higher than the last, and the diagnostics taken are those of
// the change's version.
func TestManager_VersionsCountUp(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	m, dir, _ := hostile(t, "version", "", nil)
	defer m.Close()
	path := filepath.Join(dir, "a.fake")
	for i, text := range []string{"one\n", "two\n", "three\n", "three\n", "four\n"} {
		got, err := m.Changed(context.Background(), path, text, true)
		want := fmt.Sprintf("version %d", min(i+1, 3+max(0, i-3)))
		if err != nil || len(got) != 1 || got[0].Message != want {
			t.Errorf("change %d: %v, %q; want %q", i, err, messages(got), want)
		}
	}
}

// TestURIPath: the path a file URI names, on each platform, and the
// URIs that name none.
func TestURIPath(t *testing.T) {
	for _, tc := range []struct {
		name, goos, uri, want string
	}{
		{"plain", "linux", "file:///ws/a.go", "/ws/a.go"},
		{"localhost", "darwin", "file://localhost/ws/a.go", "/ws/a.go"},
		{"escapes decoded once", "linux", "file:///ws/a%2520b.go", "/ws/a%20b.go"},
		{"dot-dot taken", "linux", "file:///ws/x/../../etc/passwd", "/etc/passwd"},
		{"encoded dot-dot taken", "linux", "file:///ws/%2E%2E/etc", "/etc"},
		{"upper-case scheme", "linux", "FILE:///ws/a.go", "/ws/a.go"},
		{"windows drive", "windows", "file:///c%3A/ws/a.go", `C:\ws\a.go`},
		{"windows dot-dot stays on the drive", "windows", "file:///C:/ws/../../../x", `C:\x`},
		{"windows backslashes", "windows", "file:///C:%5Cws%5Ca.go", `C:\ws\a.go`},
		{"windows share", "windows", "file://server/share/a.go", ""},
		{"windows no drive", "windows", "file:///ws/a.go", ""},
		{"relative", "linux", "file:ws/a.go", ""},
		{"host", "linux", "file://evil/ws/a.go", ""},
		{"query", "linux", "file:///ws/a.go?x", ""},
		{"empty query", "linux", "file:///ws/a.go?", ""},
		{"fragment", "linux", "file:///ws/a.go#x", ""},
		{"NUL", "linux", "file:///ws/a%00.go", ""},
		{"escape character", "linux", "file:///ws/a%1B.go", ""},
		{"C1 control", "linux", "file:///ws/a%C2%9B.go", ""},
		{"invalid UTF-8", "linux", "file:///ws/a%FF.go", ""},
		{"too long", "linux", "file:///" + strings.Repeat("a", maxPathBytes), ""},
		{"http", "linux", "http:///ws/a.go", ""},
		{"unparsable", "linux", "file:///ws/%zz", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := uriPath(tc.goos, tc.uri)
			if got != tc.want || ok != (tc.want != "") {
				t.Errorf("uriPath(%s, %q) = %q, %v; want %q", tc.goos, tc.uri, got, ok, tc.want)
			}
		})
	}
}

// TestCleanText: control and bidirectional characters out, white space
// ones as spaces, the cut on a character's boundary.
func TestCleanText(t *testing.T) {
	for _, tc := range []struct {
		name, in, want string
		max            int
	}{
		{"plain", "undefined: x", "undefined: x", 100},
		{"escape sequences", "\x1b[31mred\x1b[0m", "[31mred[0m", 100},
		{"line breaks", "a\r\nb\tc", "a  b c", 100},
		{"bidi overrides", "a\u202eb\u2066c\u2069", "abc", 100},
		{"C1 and NUL", "a\u009bb\x00c", "abc", 100},
		{"line separator", "a\u2028b", "ab", 100},
		{"cut", "abcdef", "abc…", 3},
		{"cut on a rune", "aé", "a…", 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := cleanText(tc.in, tc.max); got != tc.want {
				t.Errorf("cleanText(%q, %d) = %q, want %q", tc.in, tc.max, got, tc.want)
			}
		})
	}
}

// TestCleanLines: a hover keeps its lines and tabs, loses every other
// control and bidirectional character, and says where it was cut.
func TestCleanLines(t *testing.T) {
	for _, tc := range []struct {
		name, in, want string
		max            int
	}{
		{"markdown", "```go\nfunc f()\n```\n\tdoc", "```go\nfunc f()\n```\n\tdoc", 100},
		{"line endings", "a\r\nb\rc\u2028d", "a\nb\nc\nd", 100},
		{"escape sequences and bell", "T\x1b]0;pwned\x07 x", "T]0;pwned x", 100},
		{"bidi and NUL", "a\u202eb\x00c\u2066", "abc", 100},
		{"vertical tab and form feed", "a\vb\fc", "a b c", 100},
		{"cut", "abcdef", "abc\n… (cut at 3 bytes)", 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := cleanLines(tc.in, tc.max); got != tc.want {
				t.Errorf("cleanLines(%q, %d) = %q, want %q", tc.in, tc.max, got, tc.want)
			}
		})
	}
}
