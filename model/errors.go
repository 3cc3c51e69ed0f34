package model

import (
	"errors"
	"fmt"
	"html"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// APIError is a request the API refused, or a connection that failed
// before any answer arrived.
type APIError struct {
	Status     int    // HTTP status; 0 for a connection failure
	Message    string // the API's own message text (the key redacted)
	Type, Code string // the error body's type and code, when given
	RetryAfter time.Duration
	Transport  bool   // the request never got an HTTP answer
	Attempts   int    // how many times the request was sent
	KeySource  string // where the API key came from (for 401)
	// RequestBytes is the size of the refused request's body (0 when
	// not known): what a server that refuses large bodies (TooLarge)
	// would not take.
	RequestBytes int
}

func (e *APIError) Error() string {
	if e.Transport {
		return "model request failed: " + e.Message
	}
	return fmt.Sprintf("model request failed: HTTP %d: %s", e.Status, e.Message)
}

// Retryable reports whether sending the same request again may succeed.
func (e *APIError) Retryable() bool {
	return e.Transport || e.Status == http.StatusTooManyRequests || e.Status >= 500
}

// ModelNotExist reports whether the API refused the model name.
func (e *APIError) ModelNotExist() bool {
	m := strings.ToLower(e.Message)
	return (e.Status == http.StatusBadRequest || e.Status == http.StatusNotFound) &&
		(strings.Contains(m, "model not exist") || strings.Contains(m, "model_not_found") ||
			strings.Contains(m, "does not exist") || e.Code == "model_not_found")
}

// ContextTooLong reports whether the API refused the request for its
// length ("This model's maximum context length is … tokens").
func (e *APIError) ContextTooLong() bool {
	m := strings.ToLower(e.Message)
	return e.Status == http.StatusBadRequest && (strings.Contains(m, "maximum context length") ||
		strings.Contains(m, "context_length_exceeded") || e.Code == "context_length_exceeded")
}

// TooLarge reports whether the server refused the request's body for its
// size (HTTP 413), before any model read it: the API's own front, or a
// proxy before it, caps request bodies below what the context window
// holds (api.deepseek.com's openresty answers so above some tens of MB;
// relays often at nginx's default, 1 MB).
func (e *APIError) TooLarge() bool { return e.Status == http.StatusRequestEntityTooLarge }

// Explain is the message a person reads in the conversation: what went
// wrong, what to do, and the API's own words. listed, when known, names
// the models the endpoint serves.
func (e *APIError) Explain(modelID string, listed []string) string {
	api := e.Message
	if api == "" {
		api = http.StatusText(e.Status)
	}
	var s string
	switch {
	case e.Transport:
		s = fmt.Sprintf("Could not reach the model API (%s).", api)
	case e.Status == http.StatusUnauthorized:
		src := e.KeySource
		if src == "" {
			src = "the configured key"
		}
		s = fmt.Sprintf("The API key was refused (HTTP 401). The key came from %s: check it, or create a new one. The API said: %q", src, api)
	case e.Status == http.StatusPaymentRequired:
		s = fmt.Sprintf("The account behind the API key has insufficient balance (HTTP 402): top it up, then try again. The API said: %q", api)
	case e.ModelNotExist():
		s = fmt.Sprintf("The endpoint does not serve the model %q (HTTP %d: %q).", modelID, e.Status, api)
		if len(listed) > 0 {
			s += " It lists: " + strings.Join(listed, ", ") + ". Pick one in the model selector, or set DSH_MODEL."
		}
	case e.TooLarge():
		s = fmt.Sprintf("The request (%s) is larger than the model API, or a proxy in front of it, accepts (HTTP 413), even after compacting the conversation. Start a new session, or lower compaction.threshold in the settings. The server said: %q", sizeText(e.RequestBytes), api)
	case e.Status == http.StatusTooManyRequests:
		s = fmt.Sprintf("The API is rate limiting this key (HTTP 429) and still was after %d attempts. The API said: %q", e.Attempts, api)
	case e.Status >= 500:
		s = fmt.Sprintf("The model API is failing (HTTP %d) and still was after %d attempts; try again shortly. The API said: %q", e.Status, e.Attempts, api)
	default:
		s = fmt.Sprintf("The API refused the request (HTTP %d): %q", e.Status, api)
	}
	return s
}

// sizeText writes a body size for a person: "2.4 MB".
func sizeText(n int) string {
	switch {
	case n <= 0:
		return "its size unknown"
	case n < 1<<20:
		return fmt.Sprintf("%d KB", (n+1023)>>10)
	}
	return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
}

// htmlText is what a person needs of an HTML error page (a proxy's or a
// CDN's, sent instead of the API's JSON error): its title, else its first
// heading, never its markup or scripts; "" when body is not HTML.
func htmlText(contentType string, body []byte) string {
	s := strings.TrimSpace(string(body))
	if !strings.Contains(strings.ToLower(contentType), "html") && !strings.HasPrefix(s, "<") {
		return ""
	}
	lower := asciiLower(s) // offsets into lower are offsets into s
	for _, tag := range []string{"title", "h1"} {
		i := strings.Index(lower, "<"+tag)
		if i < 0 {
			continue
		}
		j := strings.IndexByte(lower[i:], '>')
		k := strings.Index(lower[i:], "</"+tag)
		if j < 0 || k < j {
			continue
		}
		if t := strings.Join(strings.Fields(html.UnescapeString(s[i+j+1:i+k])), " "); t != "" {
			return t + " (an HTML page, not the API's answer)"
		}
	}
	return "an HTML page, not the API's answer"
}

// asciiLower lowers s's ASCII letters only, so that it keeps s's length
// and every byte's offset: strings.ToLower changes the length of some
// letters ("İ") and of invalid UTF-8, which a page may hold before its
// title.
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// ErrStreamCut means the answer stopped before its end (the connection
// dropped, or the stream carried an error): the Response holds what
// arrived.
var ErrStreamCut = errors.New("the model's answer was cut off")

// parseRetryAfter reads a Retry-After header: delay-seconds or an HTTP
// date. Unparsable or past values give 0.
func parseRetryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if n, err := strconv.ParseFloat(v, 64); err == nil {
		if n <= 0 || n > 24*3600 {
			return 0
		}
		return time.Duration(n * float64(time.Second))
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}
