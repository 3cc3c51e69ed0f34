package lsp

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestParseSettingsAndMerge(t *testing.T) {
	langs := func(ss []Server) string {
		var out []string
		for _, s := range ss {
			out = append(out, s.Language+"="+strings.Join(s.Command, " ")+strings.Join(s.Extensions, ""))
		}
		return strings.Join(out, ",")
	}
	base := []Server{{Language: "go", Command: []string{"gopls"}, Extensions: []string{".go"}}, {Language: "python", Command: []string{"pyright-langserver", "--stdio"}, Extensions: []string{".py"}}}
	for _, tc := range []struct {
		name, user, workspace, want, err string
	}{
		{name: "absent", want: "go=gopls.go,python=pyright-langserver --stdio.py"},
		{name: "all off", user: `false`, want: ""},
		{name: "one off", user: `{"go": false}`, want: "python=pyright-langserver --stdio.py"},
		{name: "one disabled", user: `{"python": {"disabled": true}}`, want: "go=gopls.go"},
		{name: "added", user: `{"ruby": {"command": ["ruby-lsp"], "extensions": [".rb"]}}`, want: "go=gopls.go,python=pyright-langserver --stdio.py,ruby=ruby-lsp.rb"},
		{name: "added without extensions is not a server", user: `{"ruby": {"command": ["ruby-lsp"]}}`, want: "go=gopls.go,python=pyright-langserver --stdio.py"},
		{name: "a built-in's command", user: `{"go": {"command": ["gopls", "-remote=auto"]}}`, want: "go=gopls -remote=auto.go,python=pyright-langserver --stdio.py"},
		{name: "the workspace after the user", user: `{"go": false}`, workspace: `{"go": {"command": ["mygopls"], "extensions": [".go"]}}`, want: "python=pyright-langserver --stdio.py,go=mygopls.go"},
		{name: "a bad extension", user: `{"ruby": {"command": ["x"], "extensions": ["rb"]}}`, err: "not an extension"},
		{name: "an empty program", user: `{"ruby": {"command": [""], "extensions": [".rb"]}}`, err: "program is empty"},
		{name: "not an object", user: `"gopls"`, err: "want false or an object"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			u, err := ParseSettings(json.RawMessage(tc.user))
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err %v, want %q", err, tc.err)
				}
				if !reflect.DeepEqual(u, Settings{}) {
					t.Errorf("a malformed value gave settings %+v", u)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			w, err := ParseSettings(json.RawMessage(tc.workspace))
			if err != nil {
				t.Fatal(err)
			}
			if got := langs(Merge(base, u, w)); got != tc.want {
				t.Errorf("servers %q, want %q", got, tc.want)
			}
		})
	}
	s, _ := ParseSettings(json.RawMessage(`{"go": {"startTimeoutMs": 1500}}`))
	if got := Merge(base, s)[0].StartTimeout; got != 1500*time.Millisecond {
		t.Errorf("start timeout %v", got)
	}
}

func TestServerForAndLanguageID(t *testing.T) {
	b := Builtins()
	for _, tc := range []struct{ path, lang, id string }{
		{"/a/main.go", "go", "go"}, {"/a/x.PY", "python", "python"}, {"/a/x.tsx", "typescript", "typescriptreact"},
		{"/a/x.mjs", "typescript", "javascript"}, {"/a/x.rs", "rust", "rust"}, {"/a/x.hpp", "c", "cpp"}, {"/a/x.c", "c", "c"},
		{"/a/README", "", ""}, {"/a/x.txt", "", ""},
	} {
		t.Run(tc.path, func(t *testing.T) {
			i := serverFor(b, tc.path)
			if tc.lang == "" {
				if i >= 0 {
					t.Fatalf("served by %s", b[i].Language)
				}
				return
			}
			if i < 0 || b[i].Language != tc.lang || b[i].languageID(tc.path) != tc.id {
				t.Fatalf("server %d, want %s/%s", i, tc.lang, tc.id)
			}
		})
	}
}

func TestColumns(t *testing.T) {
	for _, tc := range []struct {
		name, line string
		col        int
		utf16      uint32
	}{
		{"ascii start", "abc", 1, 0},
		{"ascii middle", "abc", 3, 2},
		{"past the end", "abc", 9, 3},
		{"two-byte letters", "héllo x", 7, 6},
		{"astral plane", "a😀b", 3, 3},
		{"after astral", "😀😀x", 3, 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := toUTF16(tc.line, tc.col); got != tc.utf16 {
				t.Errorf("toUTF16 %d, want %d", got, tc.utf16)
			}
			if tc.col <= len([]rune(tc.line))+1 {
				if got := fromUTF16(tc.line, tc.utf16); got != tc.col {
					t.Errorf("fromUTF16 %d, want %d", got, tc.col)
				}
			}
		})
	}
	if got := lineText("a\r\nbc\nd", 1); got != "bc" {
		t.Errorf("lineText %q", got)
	}
}
