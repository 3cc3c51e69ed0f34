package tools

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/dsh-bridge/dsh-bridge/card"
)

// TestWebFetch_CapEdges: a text of exactly FetchMaxText bytes and an HTML
// body of exactly FetchMaxBytes are complete; one byte more of either is
// reported truncated, the raw cut too when the Markdown of what was kept
// is short.
func TestWebFetch_CapEdges(t *testing.T) {
	touchMarkdownSources(t)
	// page is an HTML body of n bytes whose Markdown is "start" and "end":
	// its padding sits in a comment, so a cut anywhere in the padding
	// still converts to a short Markdown.
	page := func(n int) string {
		head, tail := "<html><body><p>start</p><!--", "--><p>end</p></body></html>"
		return head + strings.Repeat("x", n-len(head)-len(tail)) + tail
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/text/{n}", func(w http.ResponseWriter, r *http.Request) {
		var n int
		fmt.Sscan(r.PathValue("n"), &n)
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprint(w, strings.Repeat("z", n))
	})
	mux.HandleFunc("/html/{n}", func(w http.ResponseWriter, r *http.Request) {
		var n int
		fmt.Sscan(r.PathValue("n"), &n)
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, page(n))
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	e := newEnv(t, LocalHost{}, func(o *Options) { o.HTTP = srv.Client() })
	for _, tc := range []struct {
		name      string
		path      string
		body      string // the body.content wanted, when set
		contains  []string
		truncated bool
	}{
		{"text exactly at the cap", fmt.Sprintf("/text/%d", FetchMaxText), strings.Repeat("z", FetchMaxText), nil, false},
		{"text one past the cap", fmt.Sprintf("/text/%d", FetchMaxText+1), strings.Repeat("z", FetchMaxText), nil, true},
		{"html exactly at the raw cap", fmt.Sprintf("/html/%d", FetchMaxBytes), "", []string{"start", "end"}, false},
		{"html one past the raw cap", fmt.Sprintf("/html/%d", FetchMaxBytes+1), "", []string{"start"}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := `{"url":"` + srv.URL + tc.path + `"}`
			r := e.call("web_fetch", args)
			got := wantOK(t, r)
			body := fetchedBody(t, r)
			if tc.body != "" && body != tc.body {
				t.Errorf("got a body of %d bytes, want %d", len(body), len(tc.body))
			}
			for _, s := range tc.contains {
				if !strings.Contains(body, s) {
					t.Errorf("the body %q lacks %q", body, s)
				}
			}
			if tc.body == "" && len(body) > 1000 {
				t.Errorf("got a body of %d bytes, want the short Markdown of the page", len(body))
			}
			if marked := strings.Contains(got, "(The content was truncated.)"); marked != tc.truncated {
				t.Errorf("got the truncation note %v, want %v", marked, tc.truncated)
			}
			_, res := e.presenters("web_fetch", args, r)
			if wf, ok := res.(*card.WebFetch); !ok || wf.Truncated != tc.truncated {
				t.Errorf("card %#v, want truncated %v", res, tc.truncated)
			}
		})
	}
}
