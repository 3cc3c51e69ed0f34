//go:build unix

package tools

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/dsh-bridge/dsh-bridge/registry"
	"github.com/dsh-bridge/dsh-bridge/workspace"
)

// recordingRules denies one resolved tree, remembers every path it
// judged, and runs onJudge (when set) as it judges: a command the model
// runs beside the read could change the files at that moment.
type recordingRules struct {
	denyTree
	mu      sync.Mutex
	judged  []string
	onJudge func()
	onWrite func() // as it judges a write only
}

func (r *recordingRules) CheckPath(p string, w bool) error {
	r.mu.Lock()
	r.judged = append(r.judged, p)
	r.mu.Unlock()
	if r.onJudge != nil {
		r.onJudge()
	}
	if w && r.onWrite != nil {
		r.onWrite()
	}
	return r.denyTree.CheckPath(p, w)
}

// TestOpenChecked: a guarded read on the local disk judges the file it
// opened, and reads that file, whatever its path points to by then.
func TestOpenChecked(t *testing.T) {
	rules := &recordingRules{}
	e := newEnv(t, LocalHost{}, func(o *Options) {
		rules.root = filepath.Join(o.Workspace.Roots()[0], "secrets")
		o.Rules = rules
	})
	key := e.write("secrets/key.txt", "the key\n")
	open := e.write("open.txt", "open text\n")
	link := filepath.Join(e.dir, "link.txt")
	fifo := filepath.Join(e.dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	os.Mkdir(filepath.Join(e.dir, "dir"), 0o755)
	for _, tc := range []struct {
		name, path string
		swap       func() // as the rules judge the path
		want       string // in the result's text, or its error's message
		judged     string // the path the rules saw
		failed     bool
	}{
		{name: "a link is judged by its target", path: "link.txt", want: "open text", judged: open},
		{name: "a link swapped to a denied file as it is judged reads the file judged", path: "link.txt",
			swap: func() { swapLink(t, key, link) }, want: "open text", judged: open},
		{name: "a link swapped to a FIFO as it is judged reads the file judged", path: "link.txt",
			swap: func() { swapLink(t, fifo, link) }, want: "open text", judged: open},
		{name: "a denied file", path: "secrets/key.txt", want: "denied", judged: key, failed: true},
		{name: "a missing file in a denied tree is denied, not missing", path: "secrets/nope.txt", want: "denied", failed: true},
		{name: "a missing file", path: "nope.txt", want: "not found", failed: true},
		{name: "a FIFO", path: "fifo", want: "not a regular file", judged: fifo, failed: true},
		{name: "a directory", path: "dir", want: "not a regular file", failed: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			swapLink(t, open, link)
			rules.judged, rules.onJudge = nil, tc.swap
			defer func() { rules.onJudge = nil }()
			r := e.call("read", `{"file_path":"`+tc.path+`"}`)
			got := text(r)
			if r.IsError {
				got = r.Error.Message
			}
			if r.IsError != tc.failed || !strings.Contains(got, tc.want) || strings.Contains(got, "the key") {
				t.Errorf("read %s: failed %v, %q; want failed %v, %q", tc.path, r.IsError, got, tc.failed, tc.want)
			}
			if tc.judged != "" && (len(rules.judged) != 1 || rules.judged[0] != tc.judged) {
				t.Errorf("judged %q, want [%s]", rules.judged, tc.judged)
			}
		})
	}
}

// swapLink points link at target, atomically (a rename over the link).
func swapLink(t *testing.T, target, link string) {
	t.Helper()
	tmp := link + ".new"
	os.Remove(tmp)
	if err := os.Symlink(target, tmp); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, link); err != nil {
		t.Fatal(err)
	}
}

// TestOpenChecked_EditorBuffers: a guarded host that reads files
// elsewhere (an editor's unsaved buffers) still reads there, judged by the
// resolved path.
func TestOpenChecked_EditorBuffers(t *testing.T) {
	h := newEditorHost()
	rules := &recordingRules{}
	e := newEnv(t, h, func(o *Options) {
		rules.root = filepath.Join(o.Workspace.Roots()[0], "secrets")
		o.Rules = rules
	})
	p := e.write("a.txt", "on disk\n")
	h.buffers[p] = "in the buffer\n"
	if got := text(e.call("read", `{"file_path":"a.txt"}`)); !strings.Contains(got, "in the buffer") {
		t.Errorf("read %q, want the buffer", got)
	}
	if len(rules.judged) != 1 || rules.judged[0] != p {
		t.Errorf("judged %q, want [%s]", rules.judged, p)
	}
}

// heldWorld is a workspace with open.txt ("open text") inside, notes.txt
// ("outside text") in a directory outside it that no deny rule covers,
// and the path of a link in the workspace that the test points.
func heldWorld(t *testing.T) (e *env, inside, outside, link string) {
	e = newEnv(t, LocalHost{}, func(o *Options) { o.Rules = &recordingRules{denyTree: denyTree{"/nonexistent/denied"}} })
	outsideDir, _ := filepath.EvalSymlinks(t.TempDir())
	outside = filepath.Join(outsideDir, "notes.txt")
	os.WriteFile(outside, []byte("outside text\n"), 0o644)
	return e, e.write("open.txt", "open text\n"), outside, filepath.Join(e.dir, "link.txt")
}

// TestOpenChecked_HeldToTheJudgement: a read that a permission decision
// judged may open only what the decision saw or what lies in the
// workspace: a link swapped after the decision to a file outside it (one
// no deny rule covers) is refused.
func TestOpenChecked_HeldToTheJudgement(t *testing.T) {
	e, inside, outside, link := heldWorld(t)
	for _, tc := range []struct {
		name   string
		target string // where the link points when the call runs
		judged *workspace.Judged
		want   string
		failed bool
	}{
		{"the file judged", inside, &workspace.Judged{Paths: []string{inside}}, "open text", false},
		{"swapped outside after the decision", outside, &workspace.Judged{Paths: []string{inside}}, "which this call was not judged on", true},
		{"outside, as judged (approved)", outside, &workspace.Judged{Paths: []string{outside}}, "outside text", false},
		{"outside, the mode allowing every path", outside, &workspace.Judged{Anywhere: true}, "outside text", false},
		{"swapped inside after the decision", inside, &workspace.Judged{Paths: []string{outside}}, "open text", false},
		{"no judgement (no session's policy)", outside, nil, "outside text", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			swapLink(t, tc.target, link)
			ctx := context.Background()
			if tc.judged != nil {
				ctx = workspace.WithJudged(ctx, *tc.judged)
			}
			wantHeld(t, e.callCtx(ctx, "read", `{"file_path":"link.txt"}`), tc.failed, tc.want, "outside text")
		})
	}
}

// TestSearch_HeldToTheJudgement: grep and glob search from a root their
// decision saw, or one in the workspace: a root swapped after the
// decision for a link to a directory outside is refused.
func TestSearch_HeldToTheJudgement(t *testing.T) {
	e := newEnv(t, LocalHost{}, func(o *Options) { o.NativeSearch = true })
	outside, _ := filepath.EvalSymlinks(t.TempDir())
	os.WriteFile(filepath.Join(outside, "o.txt"), []byte("needle outside\n"), 0o644)
	inside := filepath.Join(e.dir, "in")
	e.write("in/i.txt", "needle inside\n")
	root := filepath.Join(e.dir, "root")
	for _, tool := range []string{"grep", "glob"} {
		args := `{"pattern":"needle","path":"root"}`
		if tool == "glob" {
			args = `{"pattern":"*.txt","path":"root"}`
		}
		for _, tc := range []struct {
			name, target string
			judged       workspace.Judged
			want         string
			failed       bool
		}{
			{"the root judged", inside, workspace.Judged{Paths: []string{inside}}, "i.txt", false},
			{"swapped outside after the decision", outside, workspace.Judged{Paths: []string{inside}}, "which this call was not judged on", true},
			{"outside, as judged", outside, workspace.Judged{Paths: []string{outside}}, "o.txt", false},
		} {
			t.Run(tool+"/"+tc.name, func(t *testing.T) {
				swapLink(t, tc.target, root)
				wantHeld(t, e.callCtx(workspace.WithJudged(context.Background(), tc.judged), tool, args), tc.failed, tc.want, "o.txt")
			})
		}
	}
}

// TestHost_HeldToTheJudgement: the guarded host's other ways to look at
// a file (its text whole, its metadata) are held to the call's decision
// too, and so is edit: whether old_string is in a file outside the
// workspace must not be learnt from an edit that the decision judged on
// a file inside it.
func TestHost_HeldToTheJudgement(t *testing.T) {
	e, inside, outside, link := heldWorld(t)
	swapLink(t, outside, link) // swapped after a decision that saw inside
	ctx := workspace.WithJudged(context.Background(), workspace.Judged{Paths: []string{inside}})
	h := guardedHost{Host: LocalHost{}, ws: e.ws, rules: &recordingRules{denyTree: denyTree{"/nonexistent/denied"}}}
	if s, err := h.ReadTextFile(ctx, link); err == nil || !strings.Contains(err.Error(), "not judged on") {
		t.Errorf("ReadTextFile = %q, %v", s, err)
	}
	if _, err := h.Stat(ctx, link); err == nil || !strings.Contains(err.Error(), "not judged on") {
		t.Errorf("Stat: %v", err)
	}
	if s, err := h.ReadTextFile(workspace.WithJudged(context.Background(), workspace.Judged{Paths: []string{outside}}), link); err != nil || s != "outside text\n" {
		t.Errorf("ReadTextFile of the judged file = %q, %v", s, err)
	}
	for _, old := range []string{"outside", "absent"} {
		r := e.callCtx(ctx, "edit", `{"file_path":"link.txt","old_string":"`+old+`","new_string":"x"}`)
		wantErr(t, r, "FS_PERMISSION_DENIED", "which this call was not judged on")
	}
	if b, _ := os.ReadFile(outside); string(b) != "outside text\n" {
		t.Errorf("the outside file became %q", b)
	}
}

// wantHeld checks a call's outcome: failed or not, with want in its text
// (or its error), and, when it failed, nothing of leaked in what it says.
func wantHeld(t *testing.T, r registry.Result, failed bool, want, leaked string) {
	t.Helper()
	got := text(r)
	if r.IsError {
		got = r.Error.Message
	}
	if r.IsError != failed || !strings.Contains(got, want) || (failed && strings.Contains(got, leaked)) {
		t.Errorf("failed %v, %q; want failed %v, %q", r.IsError, got, failed, want)
	}
}
