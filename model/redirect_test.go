package model

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
)

// An endpoint that redirects to another origin (here another port of the
// same host, which net/http would send the Authorization header to) is
// not followed: the key reaches only the endpoint it was given for. A
// redirect within the origin is followed.
func TestChat_RedirectsStayInTheOrigin(t *testing.T) {
	var stolen atomic.Value
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		stolen.Store(r.Header.Get("Authorization"))
		w.Write([]byte(`{"data":[{"id":"deepseek-v4-flash"}]}`))
	}))
	defer other.Close()
	var self *httptest.Server
	self = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/away/models":
			http.Redirect(w, r, other.URL+"/v1/models", http.StatusFound)
		case "/here/models":
			http.Redirect(w, r, self.URL+"/v1/models", http.StatusFound)
		default:
			w.Write([]byte(`{"data":[{"id":"deepseek-v4-flash"}]}`))
		}
	}))
	defer self.Close()
	for _, tc := range []struct {
		name, base string
		ok         bool
	}{
		{"to another port", self.URL + "/away", false},
		{"within the origin", self.URL + "/here", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			stolen = atomic.Value{}
			c, err := NewChat(ChatConfig{BaseURL: tc.base, APIKey: "sk-redirect-0123456789", MaxRetries: -1})
			if err != nil {
				t.Fatal(err)
			}
			_, err = c.Models(context.Background())
			if tc.ok != (err == nil) {
				t.Fatalf("got %v, want ok %v", err, tc.ok)
			}
			if !tc.ok && !strings.Contains(err.Error(), "another origin") {
				t.Errorf("the refusal does not say why: %v", err)
			}
			if got, _ := stolen.Load().(string); got != "" {
				t.Errorf("the other origin received %q", got)
			}
		})
	}
}
