package model

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Chat is a Client for any OpenAI-compatible chat completions API. Safe
// for concurrent use by several sessions.
type Chat struct {
	base      string // without the trailing slash
	key       string
	keySource string
	model     string
	http      *http.Client
	retries   int
	maxWait   time.Duration
	sleep     func(context.Context, time.Duration) error

	tools     toolCache
	toolsLen  atomic.Int64
	drains    sync.WaitGroup // release's goroutines
	drainWait time.Duration
	// drainGrace is how long a request waits for the last drain
	// (awaitDrain; tests lengthen it).
	drainGrace time.Duration
	idle       time.Duration                 // ChatConfig.StreamIdle
	lastDrain  atomic.Pointer[chan struct{}] // the last release's, until it ends
}

// ChatConfig configures a Chat client.
type ChatConfig struct {
	BaseURL string // e.g. https://api.deepseek.com (a /v1 suffix is kept as given)
	APIKey  string
	// KeySource names where the key came from ("DSH_API_KEY"), for the
	// message a refused key gets; it never holds the key.
	KeySource string
	Model     string // the default model of requests that name none
	// MaxRetries is how many times a 429, 5xx or connection failure is
	// retried before any byte of the answer arrived (default 3; -1: none).
	MaxRetries int
	// MaxRetryWait caps one wait, Retry-After included (default 60 s).
	MaxRetryWait time.Duration
	// StreamIdle is how long an answer's stream may bring no byte before
	// it is cut (ErrStreamCut); 0: StreamIdleDeepSeek for DeepSeek's
	// models, StreamIdleOther for the rest; negative: never.
	StreamIdle time.Duration
	HTTPClient *http.Client // nil: a client with no overall timeout (streams are long)
}

// defaultClient is the client of a Chat configured without one: no overall
// timeout (a stream lasts as long as the answer), a connection pool of its
// own, and redirects followed only within the endpoint's origin. It is
// made at the first Chat, not at start-up.
var defaultClient = sync.OnceValue(func() *http.Client {
	return &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone(), CheckRedirect: sameOrigin}
})

// sameOrigin refuses a redirect to another scheme, host or port than the
// request's first URL: net/http would send the API key along to another
// port of the same host, or from https to http.
func sameOrigin(req *http.Request, via []*http.Request) error {
	if len(via) >= 10 {
		return errors.New("stopped after 10 redirects")
	}
	from, to := via[0].URL, req.URL
	if origin(from) != origin(to) {
		return fmt.Errorf("the endpoint redirected to %s://%s, another origin than %s://%s: not followed, so the API key is not sent there", to.Scheme, to.Host, from.Scheme, from.Host)
	}
	return nil
}

// origin is a URL's scheme, host and port (the scheme's default when none
// is written), in lower case.
func origin(u *url.URL) string {
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[strings.ToLower(u.Scheme)]
	}
	return strings.ToLower(u.Scheme + "://" + u.Hostname() + ":" + port)
}

// NewChat returns a client; it fails without an API key.
func NewChat(c ChatConfig) (*Chat, error) {
	if c.APIKey == "" {
		return nil, ErrNoAPIKey
	}
	retries := c.MaxRetries
	switch {
	case retries == 0:
		retries = 3
	case retries < 0:
		retries = 0
	}
	wait := c.MaxRetryWait
	if wait <= 0 {
		wait = time.Minute
	}
	hc := c.HTTPClient
	if hc == nil {
		hc = defaultClient()
	}
	base := strings.TrimSuffix(c.BaseURL, "/")
	if base == "" {
		base = "https://api.deepseek.com"
	}
	return &Chat{base: base, key: c.APIKey, keySource: c.KeySource, model: c.Model, http: hc,
		retries: retries, maxWait: wait, sleep: sleepCtx, drainWait: drainWait, drainGrace: drainGrace, idle: c.StreamIdle}, nil
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Model returns the client's default model id.
func (c *Chat) Model() string { return c.model }

// Complete implements Client. Failures before the stream starts are
// retried when they are worth retrying (429, 5xx, connection errors);
// once bytes arrived, a failure ends the response with ErrStreamCut and
// what streamed so far.
func (c *Chat) Complete(ctx context.Context, req Request, h Handler) (Response, error) {
	modelID := req.Model
	if modelID == "" {
		modelID = c.model
	}
	parts, size := c.bodyParts(&req, modelID)
	// The request lives as long as ctx until the answer's [DONE]; then
	// the drain (release) owns it, and the end of ctx (a turn that ends
	// with this answer) no longer cuts the connection it is freeing.
	rctx, cancel, stop := follow(ctx)
	var resp *http.Response
	released := false
	defer func() {
		if !released { // failed, cancelled, cut, or a handler panicked
			stop()
			cancel()
			if resp != nil {
				resp.Body.Close()
			}
		}
	}()
	c.awaitDrain(ctx)
	for attempt := 0; ; attempt++ {
		var err error
		resp, err = c.post(rctx, "/chat/completions", parts, size)
		if ctx.Err() != nil {
			return Response{}, ctx.Err()
		}
		var apiErr *APIError
		switch {
		case err != nil:
			apiErr = &APIError{Message: err.Error(), Transport: true}
		case resp.StatusCode/100 != 2:
			apiErr = c.readError(resp)
		}
		if apiErr == nil {
			break
		}
		apiErr.Attempts, apiErr.RequestBytes = attempt+1, size
		if !apiErr.Retryable() || attempt >= c.retries {
			return Response{}, apiErr
		}
		if err := c.sleep(ctx, c.backoff(attempt, apiErr.RetryAfter)); err != nil {
			return Response{}, err
		}
	}
	body, quiet := c.watch(resp.Body, modelID, cancel)
	out, err := readStream(body, h)
	if quiet() && err != nil { // the watchdog cut it (a complete answer stands)
		err = fmt.Errorf("%w: no data from the model for %s", ErrStreamCut, c.streamIdle(modelID))
	}
	if stop() && err == nil {
		released = true
		c.release(resp.Body, cancel)
		return out, nil
	}
	if ctx.Err() != nil {
		return out, ctx.Err()
	}
	return out, err
}

// backoff is the wait before retry attempt+1: Retry-After when the server
// gave one, else exponential with jitter; never above maxWait.
func (c *Chat) backoff(attempt int, retryAfter time.Duration) time.Duration {
	d := retryAfter
	if d <= 0 {
		d = time.Duration(500*(1<<attempt)) * time.Millisecond
		d += time.Duration(rand.Int64N(int64(d/4) + 1))
	}
	return min(d, c.maxWait)
}

func (c *Chat) post(ctx context.Context, path string, parts [][]byte, size int) (*http.Response, error) {
	hr, err := http.NewRequestWithContext(ctx, http.MethodPost, c.base+path, nil)
	if err != nil {
		return nil, err
	}
	hr.Body, hr.ContentLength = &partsReader{parts: parts}, int64(size)
	hr.GetBody = func() (io.ReadCloser, error) { return &partsReader{parts: parts}, nil }
	hr.Header.Set("Authorization", "Bearer "+c.key)
	hr.Header.Set("Content-Type", "application/json")
	hr.Header.Set("Accept", "text/event-stream")
	return c.http.Do(hr)
}

// readError turns a refused request into an APIError with the API's own
// message text.
func (c *Chat) readError(resp *http.Response) *APIError {
	defer resp.Body.Close()
	data, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	e := &APIError{Status: resp.StatusCode, RetryAfter: parseRetryAfter(resp.Header.Get("Retry-After"), time.Now()), KeySource: c.keySource}
	var body struct {
		Error *struct {
			Message string `json:"message"`
			Type    string `json:"type"`
			Code    any    `json:"code"`
		} `json:"error"`
		Message string `json:"message"`
	}
	if json.Unmarshal(data, &body) == nil && body.Error != nil {
		e.Message, e.Type = body.Error.Message, body.Error.Type
		if body.Error.Code != nil {
			e.Code = fmt.Sprint(body.Error.Code)
		}
	} else if body.Message != "" {
		e.Message = body.Message
	} else if page := htmlText(resp.Header.Get("Content-Type"), data); page != "" {
		e.Message = page
	} else {
		e.Message = strings.TrimSpace(string(data))
	}
	e.Message = redact(e.Message, c.key)
	return e
}

// redact removes the key from text an API echoes back.
func redact(s, key string) string {
	if len(key) >= 8 {
		s = strings.ReplaceAll(s, key, "[redacted]")
	}
	return s
}

// Models lists the endpoint's models (GET /models), in the order given.
func (c *Chat) Models(ctx context.Context) ([]string, error) {
	rctx, cancel, stop := follow(ctx) // as Complete's
	released := false
	defer func() {
		if !released {
			stop()
			cancel()
		}
	}()
	hr, err := http.NewRequestWithContext(rctx, http.MethodGet, c.base+"/models", nil)
	if err != nil {
		return nil, err
	}
	hr.Header.Set("Authorization", "Bearer "+c.key)
	resp, err := c.http.Do(hr)
	if err != nil {
		return nil, &APIError{Message: err.Error(), Transport: true}
	}
	if resp.StatusCode/100 != 2 {
		return nil, c.readError(resp)
	}
	var list struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	err = json.NewDecoder(io.LimitReader(resp.Body, 4<<20)).Decode(&list)
	if !stop() || err != nil {
		resp.Body.Close()
		if err == nil {
			err = ctx.Err()
		}
		return nil, fmt.Errorf("reading the model list: %w", err)
	}
	released = true
	c.release(resp.Body, cancel) // the decoder may stop short of the body's end
	ids := make([]string, 0, len(list.Data))
	for _, m := range list.Data {
		if m.ID != "" {
			ids = append(ids, m.ID)
		}
	}
	if len(ids) == 0 {
		return nil, errors.New("the endpoint lists no models")
	}
	return ids, nil
}

// partsReader reads a request body that is a list of byte slices (the
// cached message encodings), without joining them. It never changes the
// list, which a retry reads again.
type partsReader struct {
	parts [][]byte
	i     int // the part being read
	off   int // how much of it has been read
}

func (r *partsReader) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) && r.i < len(r.parts) {
		c := copy(p[n:], r.parts[r.i][r.off:])
		n, r.off = n+c, r.off+c
		if r.off == len(r.parts[r.i]) {
			r.i, r.off = r.i+1, 0
		}
	}
	if n == 0 && r.i == len(r.parts) {
		return 0, io.EOF
	}
	return n, nil
}

// Close implements io.Closer (a request body's); there is nothing to
// release.
func (r *partsReader) Close() error { return nil }
