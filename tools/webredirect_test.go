package tools

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
)

// TestWebFetch_RedirectLimit: FetchMaxRedirects counts the redirects
// followed, as the Fetch Standard counts its own limit of 20 (HTTP-
// redirect fetch: "If request's redirect count is 20, then return a
// network error", checked before the count is increased; whatwg/fetch
// fetch.bs, read 2026-12-04): a chain of exactly FetchMaxRedirects
// redirects is fetched, one more is refused, and the refused hop is
// never requested.
func TestWebFetch_RedirectLimit(t *testing.T) {
	var requests atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		n, _ := strconv.Atoi(strings.TrimPrefix(r.URL.Path, "/r/"))
		if n > 0 {
			http.Redirect(w, r, fmt.Sprintf("/r/%d", n-1), http.StatusFound)
			return
		}
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprint(w, "arrived")
	}))
	defer srv.Close()
	e := newEnv(t, LocalHost{}) // web_fetch's own client, its redirect check included
	for _, tc := range []struct {
		name      string
		redirects int
		ok        bool
	}{
		{"no redirect", 0, true},
		{"one redirect", 1, true},
		{"one below the limit", FetchMaxRedirects - 1, true},
		{"exactly the limit", FetchMaxRedirects, true},
		{"one past the limit", FetchMaxRedirects + 1, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			requests.Store(0)
			r := e.call("web_fetch", fmt.Sprintf(`{"url":"%s/r/%d"}`, srv.URL, tc.redirects))
			if tc.ok {
				if got := wantOK(t, r); !strings.Contains(got, "arrived") || !strings.Contains(got, "URL: "+srv.URL+"/r/0") {
					t.Errorf("got %q, want the page at /r/0", got)
				}
			} else {
				wantErr(t, r, "WEB_FETCH_FAILED", fmt.Sprintf("stopped after %d redirects", FetchMaxRedirects))
			}
			if got, want := int(requests.Load()), min(tc.redirects, FetchMaxRedirects)+1; got != want {
				t.Errorf("got %d requests, want %d", got, want)
			}
		})
	}
}
