package tools

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/dsh-bridge/dsh-bridge/card"
	"github.com/dsh-bridge/dsh-bridge/jsonv"
)

func TestRead(t *testing.T) {
	long := strings.Repeat("x", ReadMaxLineLength+5)
	for _, h := range hosts {
		t.Run(h.name, func(t *testing.T) {
			for _, tc := range []struct {
				name, file, args string
				golden           bool
				code, msg        string
			}{
				{"whole file", "hello\nworld\n", `{"file_path":"a.txt"}`, true, "", ""},
				{"window with continuation", "1\n2\n3\n4\n5\n", `{"file_path":"a.txt","offset":2,"limit":2}`, true, "", ""},
				{"CRLF stripped, no trailing newline", "a\r\nb\r\nc", `{"file_path":"a.txt"}`, true, "", ""},
				{"empty file", "", `{"file_path":"a.txt"}`, true, "", ""},
				{"long line truncated", long + "\n", `{"file_path":"a.txt"}`, true, "", ""},
				{"long CJK line cut inside a rune", "a" + strings.Repeat("中", 3000) + "\n", `{"file_path":"a.txt"}`, true, "", ""},
				{"CJK line longer than the read buffer", "a" + strings.Repeat("中", 30000) + "\nend\n", `{"file_path":"a.txt"}`, true, "", ""},
				{"emoji line longer than the read buffer", strings.Repeat("😀", 20000) + "\nend\n", `{"file_path":"a.txt"}`, true, "", ""},
				{"emoji line cut inside the buffer", strings.Repeat("😀", 3000) + "\nend\n", `{"file_path":"a.txt"}`, true, "", ""},
				{"offset past the end", "1\n2\n", `{"file_path":"a.txt","offset":5}`, false, "FS_NOT_FOUND", `offset 5 is out of range for "`},
				{"fractional offset", "1\n", `{"file_path":"a.txt","offset":1.5}`, false, "", "offset must be a positive integer"},
				{"zero limit", "1\n", `{"file_path":"a.txt","limit":0}`, false, "", "limit must be a positive integer"},
				{"limit over the cap", "1\n", `{"file_path":"a.txt","limit":2001}`, false, "", "limit must be less than or equal to 2000"},
				{"blank path", "1\n", `{"file_path":"  "}`, false, "", "file_path must be a non-empty string"},
				{"missing file", "", `{"file_path":"nope.txt"}`, false, "FS_NOT_FOUND", `cannot read "`},
				{"directory", "", `{"file_path":"."}`, false, "FS_NOT_REGULAR_FILE", "not a regular file"},
				{"wrong argument type", "", `{"file_path":1}`, false, "INVALID_ARGS", `"file_path" must be a string`},
				{"invalid UTF-8", "ok\n\xff\xfe\n", `{"file_path":"a.txt"}`, false, "FS_NOT_TEXT", "not UTF-8 text"},
				{"NUL bytes", strings.Repeat("\x00", 4096), `{"file_path":"a.txt"}`, false, "FS_NOT_TEXT", "binary file"},
				{"a NUL in the first block", "text\x00more\n", `{"file_path":"a.txt","offset":1,"limit":1}`, false, "FS_NOT_TEXT", "binary file"},
			} {
				t.Run(tc.name, func(t *testing.T) {
					e := newEnv(t, h.make())
					if tc.name != "missing file" && tc.name != "directory" {
						e.write("a.txt", tc.file)
					}
					r := e.call("read", tc.args)
					if tc.msg != "" || tc.code != "" {
						wantErr(t, r, tc.code, tc.msg)
						return
					}
					got := wantOK(t, r)
					if tc.golden {
						e.golden(got)
					}
					// What it writes (to the log) is what the value is.
					if eager, err := jsonv.FromGo(r.Value.Origin()); err != nil || eager.String() != r.Value.String() {
						t.Errorf("the value writes\n%.200s\nbuilt, it is\n%.200s (%v)", r.Value, eager, err)
					}
				})
			}
		})
	}
}

func TestRead_CapsAndCards(t *testing.T) {
	e := newEnv(t, LocalHost{})
	var b strings.Builder
	for i := range 3000 {
		fmt.Fprintf(&b, "line %d %s\n", i+1, strings.Repeat("y", 40))
	}
	p := e.write("big.go", b.String())
	t.Run("byte cap", func(t *testing.T) {
		r := e.call("read", `{"file_path":"big.go"}`)
		got := wantOK(t, r)
		if !strings.Contains(got, "(Output capped. Showing lines 1-") || len(got) > ReadMaxBytes+8*1024 { // the cap counts line text, not the "N: " prefixes
			t.Errorf("byte cap footer missing or output too long (%d bytes)", len(got))
		}
	})
	t.Run("line cap and exact total", func(t *testing.T) {
		r := e.call("read", `{"file_path":"big.go","offset":2990}`)
		if got := wantOK(t, r); !strings.Contains(got, "(End of file - total 3000 lines)") {
			t.Errorf("footer: %q", got[len(got)-80:])
		}
	})
	t.Run("cards", func(t *testing.T) {
		args := `{"file_path":"big.go","offset":10,"limit":3}`
		r := e.call("read", args)
		call, res := e.presenters("read", args, r)
		g := call.(*card.Generic)
		if g.Title != "Read big.go (10 - 12)" || g.Kind != card.KindRead || g.Locations[0].Line != 10 {
			t.Errorf("call card %+v", g)
		}
		rc, ok := res.(*card.Read)
		if !ok || rc.Path != p || rc.Offset != 10 || len(rc.Lines) != 3 || rc.TotalLines != 3000 || rc.Lang != "go" || rc.Content != "" {
			t.Errorf("result card %+v (the text travels once, in Lines)", res)
		}
		if r.Meta.Origin() == nil {
			t.Error("the meta this process built does not carry its Go value: PresentResult decodes it again")
		}
		// A replayed result has a meta parsed from the log: same card.
		logged := r
		logged.Meta = jsonv.MustParse(r.Meta.String())
		if _, replayed := e.presenters("read", args, logged); !reflect.DeepEqual(replayed, res) {
			t.Errorf("replayed card %+v, want %+v", replayed, res)
		}
		// A listener that replaced the text gets the generic card.
		changed := r
		changed.Content = []card.Content{card.Text("redacted")}
		if _, got := e.presenters("read", args, changed); got != nil {
			t.Errorf("card for replaced content: %+v", got)
		}
		c2, _ := e.presenters("read", `{"file_path":"x","offset":4}`, r)
		if c2.(*card.Generic).Title != "Read x (from line 4)" {
			t.Errorf("offset-only title %q", c2.(*card.Generic).Title)
		}
	})
	t.Run("meta shares the value's lines", func(t *testing.T) {
		for _, name := range []string{"big.go", "notes"} {
			if name == "notes" {
				e.write("notes", "a\nb\n")
			}
			r := e.call("read", `{"file_path":"`+name+`","limit":2}`)
			wantOK(t, r)
			want, err := jsonv.FromGo(readMeta{Path: filepath.Join(e.dir, name), Offset: 1, Lines: r.Value.Origin().(readValue).Lines,
				TotalLines: r.Value.Origin().(readValue).TotalLines, Lang: langFromPath(name)})
			if err != nil || !r.Meta.Equal(want) || r.Meta.String() != want.String() {
				t.Errorf("%s: meta %s, want %s (%v)", name, r.Meta, want, err)
			}
			lines, _ := r.Value.Get("lines")
			if metaLines, _ := r.Meta.Get("lines"); !metaLines.Same(lines) {
				t.Errorf("%s: the meta converted the lines again instead of sharing the value's", name)
			}
		}
	})
	t.Run("always parallel-safe", func(t *testing.T) {
		if e.reg.ExecutionMode("read", mustArgs(`{"file_path":"big.go"}`), e.scope).String() != "parallel" {
			t.Errorf("read is not parallel")
		}
	})
}

func TestRead_EditorBufferWins(t *testing.T) {
	h := newEditorHost()
	e := newEnv(t, h)
	p := e.write("a.txt", "on disk\n")
	h.buffers[p] = "unsaved buffer\n"
	if got := wantOK(t, e.call("read", `{"file_path":"a.txt"}`)); !strings.Contains(got, "1: unsaved buffer") {
		t.Errorf("read did not see the editor buffer: %q", got)
	}
}

func TestWriteAndEdit(t *testing.T) {
	for _, h := range hosts {
		t.Run(h.name, func(t *testing.T) {
			t.Run("write creates with parents", func(t *testing.T) {
				e := newEnv(t, h.make())
				r := e.call("write", `{"file_path":"deep/dir/new.txt","content":"hi\n"}`)
				e.golden(wantOK(t, r))
				if b, _ := os.ReadFile(filepath.Join(e.dir, "deep/dir/new.txt")); string(b) != "hi\n" {
					t.Errorf("content %q", b)
				}
				call, res := e.presenters("write", `{"file_path":"deep/dir/new.txt","content":"hi\n"}`, r)
				if d := call.(*card.Diff); d.Diffs[0].OldText != nil || d.Title != "Write deep/dir/new.txt" {
					t.Errorf("call card %+v", d)
				}
				if d := res.(*card.DiffResult); len(d.Diffs) != 1 || d.Diffs[0].OldText != nil || d.Diffs[0].NewText != "hi\n" {
					t.Errorf("new file result card should be the whole-file diff: %+v", d)
				}
			})
			t.Run("write updates with applied hunks", func(t *testing.T) {
				e := newEnv(t, h.make())
				e.write("a.txt", "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n")
				r := e.call("write", `{"file_path":"a.txt","content":"1\n2\n3\n4\nFIVE\n6\n7\n8\n9\n10\n"}`)
				e.golden(wantOK(t, r))
				_, res := e.presenters("write", `{"file_path":"a.txt","content":""}`, r)
				d := res.(*card.DiffResult)
				if len(d.Diffs) != 1 || *d.Diffs[0].OldText != "2\n3\n4\n5\n6\n7\n8\n" || d.Diffs[0].NewText != "2\n3\n4\nFIVE\n6\n7\n8\n" {
					t.Errorf("applied hunk with 3 lines of context: %+v", d.Diffs)
				}
			})
			for _, tc := range []struct {
				name, file, args, want, code, msg string
			}{
				{"edit once", "a\nb\nc\n", `{"file_path":"f.txt","old_string":"b","new_string":"B"}`, "a\nB\nc\n", "", ""},
				{"edit all", "x x x\n", `{"file_path":"f.txt","old_string":"x","new_string":"y","replace_all":true}`, "y y y\n", "", ""},
				{"CRLF preserved", "a\r\nb\r\nc\r\n", `{"file_path":"f.txt","old_string":"a\nb","new_string":"A\nB"}`, "A\r\nB\r\nc\r\n", "", ""},
				{"not found", "a\n", `{"file_path":"f.txt","old_string":"zz","new_string":"y"}`, "", "FS_EDIT_NOT_FOUND", "old_string was not found in \""},
				{"ambiguous", "x x\n", `{"file_path":"f.txt","old_string":"x","new_string":"y"}`, "", "FS_AMBIGUOUS_EDIT", "old_string matched 2 times in \""},
				{"empty old_string", "x\n", `{"file_path":"f.txt","old_string":"","new_string":"y"}`, "", "", "old_string must be a non-empty string"},
				{"identical strings", "x\n", `{"file_path":"f.txt","old_string":"x","new_string":"x"}`, "", "", "old_string and new_string must differ"},
				{"missing file", "", `{"file_path":"missing.txt","old_string":"x","new_string":"y"}`, "", "FS_NOT_FOUND", "cannot edit"},
			} {
				t.Run(tc.name, func(t *testing.T) {
					e := newEnv(t, h.make())
					e.write("f.txt", tc.file)
					r := e.call("edit", tc.args)
					if tc.msg != "" {
						wantErr(t, r, tc.code, tc.msg)
						return
					}
					got := wantOK(t, r)
					if b, _ := os.ReadFile(filepath.Join(e.dir, "f.txt")); string(b) != tc.want {
						t.Errorf("file %q, want %q", b, tc.want)
					}
					if !strings.HasPrefix(got, "The file "+filepath.Join(e.dir, "f.txt")+" has been updated") {
						t.Errorf("text %q", got)
					}
					if _, res := e.presenters("edit", tc.args, r); res == nil {
						t.Errorf("no result card")
					}
				})
			}
		})
	}
	t.Run("editor host sees writes through the editor", func(t *testing.T) {
		h := newEditorHost()
		e := newEnv(t, h)
		e.call("write", `{"file_path":"w.txt","content":"x"}`)
		if len(h.writes) != 1 || h.writes[0] != filepath.Join(e.dir, "w.txt") {
			t.Errorf("editor writes %v", h.writes)
		}
	})
}

// TestProperty_LiteralEdit: on files with a random line ending per line,
// an edit changes only the matched span, byte for byte; the replacement
// takes the span's line ending; and the result means what the model asked
// for.
func TestProperty_LiteralEdit(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 5))
	alphabet := []string{"a", "b", "c", "é", "😀", " ", "\n", "\n"}
	for i := range 3000 {
		var b strings.Builder
		for range r.IntN(60) + 5 {
			c := alphabet[r.IntN(len(alphabet))]
			if c == "\n" && r.IntN(2) == 0 {
				c = "\r\n"
			}
			b.WriteString(c)
		}
		text := b.String()
		norm, orig := normalizeCRLF(text)
		start := r.IntN(len(norm))
		end := start + 1 + r.IntN(len(norm)-start)
		old := norm[start:end]
		if strings.Count(norm, old) != 1 || !utf8ValidSubstring(old) {
			continue
		}
		newS := "NEW\n" + old[:len(old)/2]
		got, n := ApplyLiteralEdit(text, old, newS, false)
		start, end = strings.Index(norm, old), strings.Index(norm, old)+len(old) // overlapping: the first
		if n != 1 {
			t.Fatalf("case %d: %d matches", i, n)
		}
		gotNorm, _ := normalizeCRLF(got)
		if want := strings.Replace(norm, old, newS, 1); gotNorm != want {
			t.Fatalf("case %d: edit of %q in %q means %q, want %q", i, old, text, gotNorm, want)
		}
		os, oe := orig[start], orig[end]
		if !strings.HasPrefix(got, text[:os]) || !strings.HasSuffix(got, text[oe:]) {
			t.Fatalf("case %d: bytes outside the edit changed: %q -> %q", i, text, got)
		}
		inserted := got[os : len(got)-(len(text)-oe)]
		crlf := lineEnding(text, os, oe) == "\r\n"
		if crlf && strings.Contains(strings.ReplaceAll(inserted, "\r\n", ""), "\n") || !crlf && strings.Contains(inserted, "\r\n") && !strings.Contains(newS, "\r\n") {
			t.Fatalf("case %d: the replacement %q does not take the line ending of %q", i, inserted, text[os:oe])
		}
	}
}

func TestLiteralEdit_LineEndings(t *testing.T) {
	late := "first\n" + strings.Repeat("lf line\n", 600) + "crlf\r\nend\r\n" // CRLF starts after 4 KiB
	for _, tc := range []struct{ name, text, old, new, want string }{
		{"CRLF starting late is left alone", late, "first", "FIRST", "FIRST" + late[5:]},
		{"mixed: only the edited line changes", "a\r\nb\nc\r\n", "b", "B", "a\r\nB\nc\r\n"},
		{"replacement in a CRLF span is CRLF", "a\nb\r\nc\r\nd\n", "b\nc", "1\n2\n3", "a\n1\r\n2\r\n3\r\nd\n"},
		{"replacement in an LF span is LF", "a\r\nb\nc\nd\r\n", "b\nc", "1\n2", "a\r\n1\n2\nd\r\n"},
		{"a span without an ending takes its line's", "one\r\ntwo\r\n", "two", "2a\n2b", "one\r\n2a\r\n2b\r\n"},
		{"no final newline", "x\r\ny", "y", "y1\ny2", "x\r\ny1\r\ny2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, n := ApplyLiteralEdit(tc.text, tc.old, tc.new, false)
			if n != 1 || got != tc.want {
				t.Errorf("got %q (%d), want %q", got, n, tc.want)
			}
		})
	}
}

func utf8ValidSubstring(s string) bool { return strings.ToValidUTF8(s, "") == s }

// TestFormatRead_ExactSize: the read's text is allocated at exactly its
// length (the history keeps it, with any slack).
func TestFormatRead_ExactSize(t *testing.T) {
	for _, v := range []readValue{
		{Path: "/w/a.go", Offset: 1, TotalLines: 0},
		{Path: "/w/a.go", Offset: 1, Lines: []card.ReadFileLine{{Number: 1, Text: "x"}}, TotalLines: 1},
		{Path: "/w/é.go", Offset: 8, Lines: []card.ReadFileLine{{Number: 8, Text: ""}, {Number: 9, Text: "\t}"}, {Number: 10, Text: "é"}, {Number: 99, Text: "a"}, {Number: 100, Text: "b"}}, TotalLines: 12345},
		{Path: "/w/b", Offset: 123456, Lines: []card.ReadFileLine{{Number: 123456, Text: "z"}}, TotalLines: 1234567},
	} {
		for _, capped := range []bool{false, true} {
			text := formatRead(v, capped)
			footer := text[strings.LastIndex(text, "\n(")+1 : len(text)-len(readTail)]
			if len(v.Lines) == 0 {
				footer = text[len("<path>")+len(v.Path)+len(readHead) : len(text)-len(readTail)]
			}
			if size := readTextSize(v, footer); size != len(text) {
				t.Errorf("%s capped=%v: sized %d for %d bytes", v.Path, capped, size, len(text))
			}
		}
	}
}
