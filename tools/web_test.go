package tools

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/dsh-bridge/dsh-bridge/card"
	"github.com/dsh-bridge/dsh-bridge/pipeline"
	"github.com/dsh-bridge/dsh-bridge/registry"
)

func TestWebFetch(t *testing.T) {
	touchMarkdownSources(t)
	mux := http.NewServeMux()
	mux.HandleFunc("/page", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<html><head><title>T</title><script>evil()</script></head><body><h1>Hello</h1><p>Some <b>bold</b> text and a <a href="/x">link</a>.</p></body></html>`)
	})
	mux.HandleFunc("/long", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, "<html><body>")
		for i := range 4000 { // about 150 KB of Markdown, three-byte characters
			fmt.Fprintf(w, "<p>段落 %d：日本語のテキスト</p>", i)
		}
		fmt.Fprint(w, "</body></html>")
	})
	mux.HandleFunc("/plain", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprint(w, "just text")
	})
	mux.HandleFunc("/missing", func(w http.ResponseWriter, r *http.Request) { http.Error(w, "gone", http.StatusNotFound) })
	mux.HandleFunc("/big", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprint(w, strings.Repeat("z", FetchMaxText+10))
	})
	mux.HandleFunc("/loop", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/loop", http.StatusFound) })
	mux.HandleFunc("/redirect", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/plain", http.StatusFound) })
	mux.HandleFunc("/binary", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/octet-stream")
		w.Write([]byte{0xff, 0xfe, 0x00})
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	e := newEnv(t, LocalHost{}, func(o *Options) { o.HTTP = srv.Client() })
	e.p.WrapExecute(nil, pipeline.TimeoutPolicy(e.reg))
	for _, tc := range []struct {
		name, path string
		contains   []string
		absent     []string
		status     int
		truncated  bool
		code       string
	}{
		{"html becomes markdown", "/page", []string{"# Hello", "**bold**", "[link](/x)"}, []string{"evil()", "<p>"}, 200, false, ""},
		{"long html cut", "/long", []string{"段落 0：日本語のテキスト", "(The content was truncated.)"}, []string{"<p>", "段落 3999"}, 200, true, ""},
		{"plain text", "/plain", []string{"just text"}, nil, 200, false, ""},
		{"redirect followed", "/redirect", []string{"URL: " + srv.URL + "/plain", "just text"}, nil, 200, false, ""},
		{"error status is a result", "/missing", []string{"Status: 404", "gone"}, nil, 404, false, ""},
		{"size cap", "/big", []string{"(The content was truncated.)"}, nil, 200, true, ""},
		{"redirect loop", "/loop", nil, nil, 0, false, "WEB_FETCH_FAILED"},
		{"binary", "/binary", nil, nil, 0, false, "WEB_NOT_TEXT"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := `{"url":"` + srv.URL + tc.path + `"}`
			r := e.call("web_fetch", args)
			if tc.code != "" {
				wantErr(t, r, tc.code, "")
				return
			}
			got := wantOK(t, r)
			for _, s := range tc.contains {
				if !strings.Contains(got, s) {
					t.Errorf("missing %q in %q", s, got)
				}
			}
			for _, s := range tc.absent {
				if strings.Contains(got, s) {
					t.Errorf("unexpected %q in %q", s, got)
				}
			}
			_, res := e.presenters("web_fetch", args, r)
			wf, ok := res.(*card.WebFetch)
			if !ok || wf.StatusCode != tc.status || wf.Truncated != tc.truncated {
				t.Errorf("card %#v", res)
			}
			if body := fetchedBody(t, r); len(body) > FetchMaxText || !utf8.ValidString(body) {
				t.Errorf("body of %d bytes (cap %d), valid UTF-8 %v", len(body), FetchMaxText, utf8.ValidString(body))
			}
		})
	}
	t.Run("bad URLs", func(t *testing.T) {
		for _, u := range []string{"ftp://x", "not a url", "/relative"} {
			wantErr(t, e.call("web_fetch", `{"url":"`+u+`"}`), "", "url must be an absolute http or https URL")
		}
	})
	t.Run("parallel-safe with a timeout", func(t *testing.T) {
		tool := e.reg.Get("web_fetch", e.scope)
		if tool.Timeout <= 0 || e.reg.ExecutionMode("web_fetch", mustArgs(`{"url":"http://x"}`), e.scope) != registry.Parallel {
			t.Errorf("timeout %v", tool.Timeout)
		}
	})
	t.Run("cancellation while the server is answering", func(t *testing.T) {
		arrived := make(chan struct{})
		release := make(chan struct{})
		hang := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			close(arrived)
			select { // never answers on its own
			case <-r.Context().Done():
			case <-release:
			}
		}))
		defer hang.Close()
		defer close(release)
		ctx, cancel := context.WithCancel(context.Background())
		go func() { <-arrived; cancel() }() // the body is running: the request reached the server
		done := make(chan registry.Result, 1)
		go func() { done <- e.callCtx(ctx, "web_fetch", `{"url":"`+hang.URL+`"}`) }()
		select {
		case r := <-done:
			if !r.IsError || r.Error.Info == nil || r.Error.Info.Code != registry.CodeAborted {
				t.Errorf("got %+v, want ABORTED", r.Error)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("web_fetch ignored the cancellation")
		}
	})
}
