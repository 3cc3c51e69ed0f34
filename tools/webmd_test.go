package tools

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/dsh-bridge/dsh-bridge/registry"
)

// fetchedBody is the content of a successful web_fetch's typed value.
func fetchedBody(t *testing.T, r registry.Result) string {
	t.Helper()
	body, _ := r.Value.Get("body")
	content, ok := body.Get("content")
	if !ok {
		t.Fatalf("no body.content in %s", r.Value)
	}
	return content.Str()
}

// TestWebFetch_Markdown covers what web_fetch does with its converter's
// answers, through the tool.
func TestWebFetch_Markdown(t *testing.T) {
	const page = `<html><body><h1>Hello</h1></body></html>`
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/plain" {
			w.Header().Set("Content-Type", "text/plain")
			fmt.Fprint(w, "<h1>not a page</h1>")
			return
		}
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, page)
	}))
	defer srv.Close()
	for _, tc := range []struct {
		name      string
		path      string
		convert   MarkdownFunc
		kind      string
		body      string
		truncated bool
		code      string
	}{
		{"converted", "/", func(context.Context, string, int) (string, bool, error) { return "# Hello\n", false, nil }, "html", "# Hello\n", false, ""},
		{"the converter kept its limit", "/", func(context.Context, string, int) (string, bool, error) { return "# Hel", true, nil }, "html", "# Hel", true, ""},
		{"no helper: the HTML as it came", "/", func(context.Context, string, int) (string, bool, error) { return "", false, ErrNoMarkdown }, "text", page, false, ""},
		{"a failed conversion: the HTML as it came", "/", func(context.Context, string, int) (string, bool, error) {
			return "", false, errors.New("dsh-markdown: exit status 1")
		}, "text", page, false, ""},
		{"plain text is not converted", "/plain", func(context.Context, string, int) (string, bool, error) {
			panic("the converter ran on text/plain")
		}, "text", "<h1>not a page</h1>", false, ""},
		{"cancelled while converting", "/", nil, "", "", false, registry.CodeAborted},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			convert := tc.convert
			if convert == nil { // the fetch is cancelled while its page converts
				convert = func(ctx context.Context, _ string, _ int) (string, bool, error) {
					cancel()
					<-ctx.Done()
					return "", false, ctx.Err()
				}
			}
			e := newEnv(t, LocalHost{}, func(o *Options) { o.HTTP, o.Markdown = srv.Client(), convert })
			r := e.callCtx(ctx, "web_fetch", `{"url":"`+srv.URL+tc.path+`"}`)
			if tc.code != "" {
				wantErr(t, r, tc.code, "")
				return
			}
			wantOK(t, r)
			body, _ := r.Value.Get("body")
			kind, _ := body.Get("kind")
			truncated, _ := r.Value.Get("truncated")
			if got := fetchedBody(t, r); got != tc.body || kind.Str() != tc.kind || truncated.Bool() != tc.truncated {
				t.Errorf("body %q kind %q truncated %v, want %q %q %v", got, kind.Str(), truncated.Bool(), tc.body, tc.kind, tc.truncated)
			}
		})
	}
}

// TestRunMarkdown runs the helper protocol against the real dsh-markdown
// and against scripts standing in for a broken one.
func TestRunMarkdown(t *testing.T) {
	touchMarkdownSources(t)
	real := os.Getenv("DSH_MARKDOWN")
	ctx := context.Background()

	t.Run("the real helper", func(t *testing.T) {
		md, more, err := runMarkdown(ctx, real, `<p>Some <b>bold</b> text</p>`, 1000)
		if err != nil || more || md != "Some **bold** text" {
			t.Fatalf("got %q more=%v err=%v", md, more, err)
		}
	})
}

// TestWebFetch_RawCap pins the raw body cap at its edge: a page of exactly
// FetchMaxBytes is read whole and is not truncated; one byte more is cut
// to FetchMaxBytes and reported truncated.
func TestWebFetch_RawCap(t *testing.T) {
	page := func(n int) string {
		const head, tail = "<html><body><h1>Hello</h1><!--", "--></body></html>"
		return head + strings.Repeat("x", n-len(head)-len(tail)) + tail
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := FetchMaxBytes
		if r.URL.Path == "/over" {
			n++
		}
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, page(n))
	}))
	defer srv.Close()
	for _, tc := range []struct {
		name, path string
		truncated  bool
	}{
		{"exactly at the cap", "/at", false},
		{"one byte over the cap", "/over", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var seen int
			convert := func(_ context.Context, html string, _ int) (string, bool, error) {
				seen = len(html)
				return "# Hello\n", false, nil
			}
			e := newEnv(t, LocalHost{}, func(o *Options) { o.HTTP, o.Markdown = srv.Client(), convert })
			r := e.call("web_fetch", `{"url":"`+srv.URL+tc.path+`"}`)
			wantOK(t, r)
			truncated, _ := r.Value.Get("truncated")
			if seen != FetchMaxBytes || truncated.Bool() != tc.truncated {
				t.Errorf("converted %d bytes (cap %d), truncated %v, want %v", seen, FetchMaxBytes, truncated.Bool(), tc.truncated)
			}
		})
	}
}
