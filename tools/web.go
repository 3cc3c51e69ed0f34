package tools

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/dsh-bridge/dsh-bridge/card"
	"github.com/dsh-bridge/dsh-bridge/jsonv"
	"github.com/dsh-bridge/dsh-bridge/registry"
)

// Fetch limits.
const (
	FetchTimeout      = 30 * time.Second
	FetchMaxRedirects = 5       // redirects followed; one more is refused
	FetchMaxBytes     = 5 << 20 // raw body read
	FetchMaxText      = 100 * 1024
)

type fetchArgs struct {
	URL string `json:"url" desc:"The http or https URL to fetch."`
}

type fetchBody struct {
	Kind    string `json:"kind" enum:"html,text"`
	Content string `json:"content"`
}

type fetchValue struct {
	URL        string    `json:"url"`
	StatusCode int       `json:"statusCode"`
	Body       fetchBody `json:"body"`
	Truncated  bool      `json:"truncated"`
}

// newFetchClient returns the HTTP client web_fetch uses: a total timeout,
// a redirect limit, hop judging every redirect before it is followed, and
// dial every address connected to (either may be nil).
func newFetchClient(hop func(ctx context.Context, from, to *url.URL) error, dial DialFunc) *http.Client {
	var transport http.RoundTripper
	if dial != nil {
		transport = fetchTransport(dial, http.ProxyFromEnvironment)
	}
	return &http.Client{
		Timeout:   FetchTimeout,
		Transport: transport,
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			// via holds the requests made, so the redirect at hand is
			// the len(via)-th.
			if len(via) > FetchMaxRedirects {
				return fmt.Errorf("stopped after %d redirects", FetchMaxRedirects)
			}
			if req.URL.Scheme != "http" && req.URL.Scheme != "https" {
				return &hopError{fmt.Errorf("refused a redirect to %s: only http and https are fetched", req.URL.Redacted())}
			}
			if hop != nil {
				if err := hop(req.Context(), via[len(via)-1].URL, req.URL); err != nil {
					return &hopError{err}
				}
			}
			return nil
		},
	}
}

// hopError is a redirect the permission policy refused.
type hopError struct{ err error }

func (e *hopError) Error() string { return e.err.Error() }
func (e *hopError) Unwrap() error { return e.err }

func fetch(ctx context.Context, client *http.Client, markdown MarkdownFunc, raw string) (fetchValue, error) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fetchValue{}, errors.New("url must be an absolute http or https URL")
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return fetchValue{}, err
	}
	req.Header.Set("User-Agent", "dsh-bridge (+https://agentclientprotocol.com)")
	req.Header.Set("Accept", "text/html,text/plain,text/markdown,application/json;q=0.9,*/*;q=0.5")
	resp, err := client.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return fetchValue{}, ctx.Err()
		}
		var he *hopError
		if errors.As(err, &he) {
			return fetchValue{}, registry.NewError("WebError", "WEB_REDIRECT_REFUSED", he.Error())
		}
		var de *dialError
		if errors.As(err, &de) {
			return fetchValue{}, registry.NewError("WebError", "WEB_ADDRESS_REFUSED", de.Error())
		}
		return fetchValue{}, registry.NewError("WebError", "WEB_FETCH_FAILED", "fetch failed: "+err.Error())
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, FetchMaxBytes+1))
	if err != nil {
		return fetchValue{}, registry.NewError("WebError", "WEB_FETCH_FAILED", "reading the response failed: "+err.Error())
	}
	v := fetchValue{URL: resp.Request.URL.String(), StatusCode: resp.StatusCode, Body: fetchBody{Kind: "text"}}
	if len(data) > FetchMaxBytes {
		data, v.Truncated = data[:FetchMaxBytes], true
	}
	mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	text := string(data)
	if mt == "text/html" || mt == "application/xhtml+xml" || (mt == "" && strings.Contains(strings.ToLower(text[:min(len(text), 512)]), "<html")) {
		// At most FetchMaxText is kept below; UTFMax more lets the cut
		// there find a character boundary.
		md, more, err := markdown(ctx, text, FetchMaxText+utf8.UTFMax)
		switch {
		case err == nil:
			text, v.Body.Kind = md, "html"
			v.Truncated = v.Truncated || more
		case ctx.Err() != nil:
			return fetchValue{}, ctx.Err()
		case !errors.Is(err, ErrNoMarkdown):
			slog.Warn("web_fetch: the page's HTML is returned unconverted", "url", v.URL, "err", err)
		}
	} else if !utf8.ValidString(text) && !strings.HasPrefix(mt, "text/") {
		return fetchValue{}, registry.NewError("WebError", "WEB_NOT_TEXT", fmt.Sprintf("%s is not text (%s)", v.URL, mt))
	}
	text = strings.ToValidUTF8(text, "\uFFFD")
	if len(text) > FetchMaxText {
		cut := text[:FetchMaxText]
		for len(cut) > 0 && !utf8.ValidString(cut) {
			cut = cut[:len(cut)-1]
		}
		text, v.Truncated = cut, true
	}
	v.Body.Content = text
	return v, nil
}

func newWebFetch(client *http.Client, markdown MarkdownFunc) (*registry.Tool, error) {
	return registry.Define(registry.TypedTool[fetchArgs, fetchValue]{
		Name:        "web_fetch",
		Description: "Fetch a web page or text resource over http(s) and return its readable text (HTML is converted to Markdown).",
		Timeout:     FetchTimeout + 5*time.Second,
		Execute: func(ctx context.Context, a fetchArgs, _ registry.RunContext) (fetchValue, error) {
			if strings.TrimSpace(a.URL) == "" {
				return fetchValue{}, errors.New("url must be a non-empty string")
			}
			return fetch(ctx, client, markdown, a.URL)
		},
		Render: func(_ fetchArgs, v fetchValue) ([]card.Content, error) {
			head := fmt.Sprintf("URL: %s\nStatus: %d\n\n", v.URL, v.StatusCode)
			tail := ""
			if v.Truncated {
				tail = "\n\n(The content was truncated.)"
			}
			return []card.Content{card.Text(head + v.Body.Content + tail)}, nil
		},
		PresentationMeta: func(_ fetchArgs, v fetchValue, _ jsonv.Value) (jsonv.Value, error) {
			return jsonv.FromGo(map[string]any{"url": v.URL, "statusCode": v.StatusCode, "truncated": v.Truncated})
		},
		IsConcurrencySafe: func(fetchArgs) bool { return true },
		PresentCall: func(a fetchArgs) card.CallView {
			return &card.Generic{Title: a.URL, Kind: card.KindFetch, RawInput: a.URL}
		},
		PresentResult: func(a fetchArgs, r registry.ToolResult) card.ResultView {
			var m card.WebFetch
			if r.IsError || !r.Meta.IsValid() || r.Meta.Decode(&m) != nil || m.URL == "" {
				return nil
			}
			m.Title = a.URL
			return &m
		},
	})
}
