package tools

import (
	"context"
	"strings"
	"testing"

	"github.com/dsh-bridge/dsh-bridge/card"
	"github.com/dsh-bridge/dsh-bridge/jsonv"
)

// preview is the live pending card of a call, or nil.
func (e *env) preview(name, args string) *card.Diff {
	e.t.Helper()
	v := e.reg.Get(name, e.scope).PreviewCall(context.Background(), jsonv.MustParse(args))
	d, _ := v.(*card.Diff)
	return d
}

// TestPreview_ComputesTheFileAsTheCallWill: a pending edit's card is the
// file before and after the edit, as ApplyLiteralEdit applies it (CRLF
// kept, replace_all); a large file's is its changed windows with their
// file line; what would not apply, or cannot be read as text, has none.
func TestPreview_ComputesTheFileAsTheCallWill(t *testing.T) {
	big := strings.Repeat("filler line of some length\n", wholeFileCap/20) + "tail\n"
	for _, tc := range []struct {
		name, file, args string
		want             []card.FileDiff // nil: no preview
	}{
		{"edit keeps CRLF", "a\r\nb\r\nc\r\n", `{"file_path":"f","old_string":"b\n","new_string":"B\nB2\n"}`,
			[]card.FileDiff{{Path: "f", OldText: ptr("a\r\nb\r\nc\r\n"), NewText: "a\r\nB\r\nB2\r\nc\r\n"}}},
		{"replace all", "x y x\n", `{"file_path":"f","old_string":"x","new_string":"z","replace_all":true}`,
			[]card.FileDiff{{Path: "f", OldText: ptr("x y x\n"), NewText: "z y z\n"}}},
		{"ambiguous edit", "x y x\n", `{"file_path":"f","old_string":"x","new_string":"z"}`, nil},
		{"not found", "x\n", `{"file_path":"f","old_string":"q","new_string":"z"}`, nil},
		{"binary", "a\x00b\n", `{"file_path":"f","old_string":"a","new_string":"z"}`, nil},
		{"write over a file", "old\n", `{"file_path":"f","content":"new\n"}`,
			[]card.FileDiff{{Path: "f", OldText: ptr("old\n"), NewText: "new\n"}}},
		{"large file: windows", big, `{"file_path":"f","old_string":"tail\n","new_string":"TAIL\n"}`,
			[]card.FileDiff{{Path: "f", OldText: ptr(strings.Repeat("filler line of some length\n", 3) + "tail\n"),
				NewText: strings.Repeat("filler line of some length\n", 3) + "TAIL\n", StartLine: wholeFileCap/20 - 2}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, LocalHost{})
			e.write("f", tc.file)
			name := "edit"
			if strings.Contains(tc.args, `"content"`) {
				name = "write"
			}
			got := e.preview(name, tc.args)
			if tc.want == nil {
				if got != nil {
					t.Fatalf("want no preview, got %+v", got.Diffs)
				}
				return
			}
			if got == nil || !sameDiffs(got.Diffs, tc.want) {
				t.Fatalf("diffs = %+v, want %+v", got, tc.want)
			}
		})
	}
	t.Run("a new file has none", func(t *testing.T) {
		e := newEnv(t, LocalHost{})
		if got := e.preview("write", `{"file_path":"new","content":"x"}`); got != nil {
			t.Fatalf("preview of a new file: %+v", got.Diffs)
		}
	})
}

func ptr(s string) *string { return &s }

func sameDiffs(a, b []card.FileDiff) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Path != b[i].Path || a[i].NewText != b[i].NewText || a[i].StartLine != b[i].StartLine ||
			(a[i].OldText == nil) != (b[i].OldText == nil) || (a[i].OldText != nil && *a[i].OldText != *b[i].OldText) {
			return false
		}
	}
	return true
}
