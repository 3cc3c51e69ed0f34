package card

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/dsh-bridge/dsh-bridge/jsonv"
)

func TestCards_MarshalWithTags(t *testing.T) {
	exit := 0
	old := "a"
	for _, tc := range []struct {
		name string
		view any
		want string
	}{
		{"generic call", &Generic{Title: "Read a", Kind: KindRead, Locations: []FileLocation{{Path: "/a", Line: 1}}}, `{"card":"generic","title":"Read a","kind":"read","locations":[{"path":"/a","line":1}]}`},
		{"terminal call", &Terminal{Title: "ls"}, `{"card":"terminal","title":"ls"}`},
		{"diff call new file", &Diff{Title: "Write a", Diffs: []FileDiff{{Path: "/a", NewText: "x"}}}, `{"card":"diff","title":"Write a","diffs":[{"path":"/a","oldText":null,"newText":"x"}]}`},
		{"diff result", &DiffResult{Diffs: []FileDiff{{Path: "/a", OldText: &old, NewText: "b"}}}, `{"card":"diff","diffs":[{"path":"/a","oldText":"a","newText":"b"}]}`},
		{"empty generic result", &GenericResult{}, `{"card":"generic"}`},
		{"terminal result exit 0", &TerminalResult{Output: "ok", ExitCode: &exit}, `{"card":"terminal","output":"ok","exitCode":0}`},
		{"search matches", &SearchMatches{Files: []SearchFileMatches{{Path: "a.go", Matches: []SearchLineMatch{{LineNumber: 3, Line: "x"}}}}, Total: 1}, `{"card":"search","shape":"matches","files":[{"path":"a.go","matches":[{"lineNumber":3,"line":"x"}]}],"truncated":false,"total":1}`},
		{"search paths", &SearchPaths{Paths: []string{"a"}, Truncated: true, Total: 9}, `{"card":"search","shape":"paths","paths":["a"],"truncated":true,"total":9}`},
		{"read keeps offset with no lines", &Read{Path: "/a", Offset: 5, Lines: []ReadFileLine{}, TotalLines: 4}, `{"card":"read","path":"/a","offset":5,"lines":[],"totalLines":4}`},
		{"web search", &WebSearch{Sources: []WebSource{{URL: "https://x"}}}, `{"card":"web","kind":"search","sources":[{"url":"https://x"}],"truncated":false}`},
		{"web fetch", &WebFetch{URL: "https://x", StatusCode: 200}, `{"card":"web","kind":"fetch","url":"https://x","statusCode":200,"truncated":false}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, err := json.Marshal(tc.view)
			if err != nil {
				t.Fatal(err)
			}
			if string(b) != tc.want {
				t.Errorf("got  %s\nwant %s", b, tc.want)
			}
		})
	}
}

func TestContent(t *testing.T) {
	for _, tc := range []struct {
		name, in, wantErr string
	}{
		{"text", `{"type":"text","text":"hi"}`, ""},
		{"image", `{"type":"image","data":"AAAA","mimeType":"image/png"}`, ""},
		{"resource link", `{"type":"resource_link","uri":"file:///a","name":"a"}`, ""},
		{"resource", `{"type":"resource","resource":{"uri":"file:///a","text":"x"}}`, ""},
		{"unknown type", `{"type":"video"}`, "unknown type"},
		{"text without text", `{"type":"text"}`, `needs a string "text"`},
		{"resource without object", `{"type":"resource","resource":"x"}`, `needs a "resource" object`},
		{"not an object", `"text"`, "must be an object"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := ContentFromValue(jsonv.MustParse(tc.in))
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("got %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if b, _ := json.Marshal(c); string(b) != jsonv.MustParse(tc.in).String() {
				t.Errorf("round trip: %s", b)
			}
		})
	}
	if got := Text("a\xffb").TextValue(); got != "a\uFFFDb" {
		t.Errorf("invalid UTF-8 text: %q", got)
	}
}
