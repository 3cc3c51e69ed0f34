package highlight

import (
	"context"
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/dsh-bridge/dsh-bridge/internal/helperbin"
)

// ErrUnavailable is returned when there is no helper to ask: none was
// found, it could not start, it stopped answering, or the client is closed.
var ErrUnavailable = errors.New("highlight: the dsh-highlight helper is unavailable")

// Options configure a [Client].
type Options struct {
	// Path is the helper binary. When it is empty, Lookup (if set) is
	// called once, at the first request, to find it ([Locate] is the
	// bridge's); when neither gives one, every call returns
	// ErrUnavailable.
	Path   string
	Lookup func() string
	// Log receives the helper's start, failures and restarts (default:
	// slog.Default()). The helper's own stderr goes to Stderr.
	Log    *slog.Logger
	Stderr io.Writer
	// Timeout bounds one request (default 5 s); a request past it kills the
	// helper, which the next request starts again.
	Timeout time.Duration
	// CacheBytes bounds the token cache (default 32 MiB).
	CacheBytes int
}

// maxStartFailures is how many helper starts may fail in a row before the
// client stops trying for the rest of its life.
const maxStartFailures = 3

// Client tokenizes through a dsh-highlight helper that it starts on the
// first request and restarts after a crash. It is safe for concurrent use;
// requests share one helper, which answers them in parallel. Results are
// cached by path, language hint and text; a request that was pending when
// the helper died or hung is not sent again (it gets no tokens), so a file
// that crashes a lexer costs one restart, not one per read. Close stops
// the helper and must be called exactly once by the owner.
type Client struct {
	opt   Options
	log   *slog.Logger
	cache *cache

	mu       sync.Mutex
	proc     *proc
	nextID   uint64
	failures int
	closed   bool
	langs    map[string]bool // language key → a lexer knows it
	// poisoned are the requests that were pending when the helper died or
	// hung: a text that crashes a lexer is not sent again (each time
	// would cost a restart).
	poisoned map[string]bool
}

// keySeed keys the cache's text hashes with a seed of this process's own:
// a file crafted so that its hash collides with another's (and borrows its
// tokens) would have to know it.
var keySeed = maphash.MakeSeed()

// errHelperDied is ask's failure when the helper died or was killed while
// the request was pending.
var errHelperDied = errors.New("highlight: the helper died during the request")

// maxPoisoned bounds the poisoned set (it is forgotten whole past this).
const maxPoisoned = 1024

// New returns a client for the helper at opt.Path; nothing starts until
// the first request.
func New(opt Options) *Client {
	if opt.Log == nil {
		opt.Log = slog.Default()
	}
	if opt.Timeout <= 0 {
		opt.Timeout = 5 * time.Second
	}
	if opt.CacheBytes <= 0 {
		opt.CacheBytes = 32 << 20
	}
	return &Client{opt: opt, log: opt.Log, cache: newCache(opt.CacheBytes), langs: map[string]bool{}, poisoned: map[string]bool{}}
}

// langKey is what decides the lexer: the hint, else the whole file name
// (the helper's chroma matches names case by case, and some patterns are
// whole names: "CMakeLists.txt" is not every ".txt").
func langKey(path, lang string) string {
	if lang != "" {
		return "lang:" + strings.ToLower(lang)
	}
	return "name:" + filepath.Base(path)
}

// maxLangKeys bounds the languages the client remembers (a key per file
// name read without a hint); past it they are forgotten whole.
const maxLangKeys = 4096

// Tokens returns the syntax spans of lines, highlighted as one text so that
// multi-line constructs are recognized; nil and no error when no lexer
// knows the language. It waits until the helper answers, ctx ends, or the
// request times out.
func (c *Client) Tokens(ctx context.Context, path, lang string, lines []string) (TokenLines, error) {
	if len(lines) == 0 {
		return nil, nil
	}
	lk := langKey(path, lang)
	c.mu.Lock()
	known, decided := c.langs[lk]
	c.mu.Unlock()
	if decided && !known {
		return nil, nil
	}
	var h maphash.Hash
	h.SetSeed(keySeed)
	for _, l := range lines {
		h.WriteString(l)
		h.WriteByte('\n')
	}
	key := fmt.Sprintf("%s\x00%s\x00%x\x00%d", path, lang, h.Sum64(), len(lines))
	if ts, ok := c.cache.get(key); ok {
		return ts, nil
	}
	c.mu.Lock()
	poisoned := c.poisoned[key]
	c.mu.Unlock()
	if poisoned {
		return nil, nil // it brought the helper down before: no colours for it
	}
	a, err := c.ask(ctx, path, lang, lines)
	if errors.Is(err, errHelperDied) {
		c.mu.Lock()
		if len(c.poisoned) >= maxPoisoned {
			clear(c.poisoned)
		}
		c.poisoned[key] = true
		c.mu.Unlock()
		return nil, ErrUnavailable
	}
	if err != nil {
		return nil, err
	}
	if a.Err != "" {
		return nil, fmt.Errorf("highlight: the helper failed: %s", a.Err)
	}
	c.mu.Lock()
	if len(c.langs) >= maxLangKeys {
		clear(c.langs)
	}
	c.langs[lk] = !a.Unknown
	c.mu.Unlock()
	if a.Unknown {
		return nil, nil
	}
	if len(a.Tokens) != len(lines) {
		return nil, fmt.Errorf("%w: %d lines of tokens for %d lines", ErrCorrupt, len(a.Tokens), len(lines))
	}
	c.cache.put(key, a.Tokens)
	return a.Tokens, nil
}

// PackedTokens is [Client.Tokens] in the packed form: nil and no error
// when no lexer knows the language.
func (c *Client) PackedTokens(ctx context.Context, path, lang string, lines []string) (Packed, error) {
	ts, err := c.Tokens(ctx, path, lang, lines)
	if err != nil || ts == nil {
		return nil, err
	}
	return Pack(ts), nil
}

// ask sends one request and waits for its answer.
func (c *Client) ask(ctx context.Context, path, lang string, lines []string) (Answer, error) {
	p, id, err := c.running()
	if err != nil {
		return Answer{}, err
	}
	ch := make(chan Answer, 1)
	if !p.register(id, ch) {
		return Answer{}, ErrUnavailable
	}
	defer p.unregister(id)
	if err := p.send(AppendRequest(nil, Request{ID: id, Path: path, Lang: lang, Lines: lines})); err != nil {
		p.fail(fmt.Errorf("writing a request: %w", err))
		return Answer{}, ErrUnavailable
	}
	timer := time.NewTimer(c.opt.Timeout)
	defer timer.Stop()
	select {
	case a := <-ch:
		return a, nil
	case <-p.done:
		return Answer{}, errHelperDied
	case <-timer.C:
		c.log.Warn("the highlighter did not answer in time; restarting it", "path", path, "timeout", c.opt.Timeout)
		p.fail(errors.New("a request timed out"))
		return Answer{}, errHelperDied
	case <-ctx.Done():
		return Answer{}, ctx.Err()
	}
}

// running returns the live helper, starting one when there is none, and a
// fresh request id.
func (c *Client) running() (*proc, uint64, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.opt.Path == "" && c.opt.Lookup != nil {
		c.opt.Path, c.opt.Lookup = c.opt.Lookup(), nil
	}
	if c.opt.Path == "" && !c.closed && c.failures == 0 {
		c.failures = maxStartFailures // say it once
		c.log.Info("no dsh-highlight helper next to the binary or on PATH ($DSH_HIGHLIGHTER names one): read cards have no syntax tokens")
	}
	if c.closed || c.opt.Path == "" || c.failures >= maxStartFailures {
		return nil, 0, ErrUnavailable
	}
	c.nextID++
	if c.proc != nil {
		select {
		case <-c.proc.done:
			c.proc = nil // crashed or killed: start another
		default:
			return c.proc, c.nextID, nil
		}
	}
	p, err := start(c.opt)
	if err != nil {
		c.failures++
		c.log.Warn("the highlighter could not start; read cards have no syntax tokens", "helper", c.opt.Path, "err", err, "attempt", c.failures)
		return nil, 0, ErrUnavailable
	}
	c.failures = 0
	c.proc = p
	return p, c.nextID, nil
}

// Close stops the helper (if it runs) and waits for it and its reader.
func (c *Client) Close() error {
	c.mu.Lock()
	c.closed = true
	p := c.proc
	c.proc = nil
	c.mu.Unlock()
	if p != nil {
		p.stop()
	}
	return nil
}

// Locate finds the helper: $DSH_HIGHLIGHTER (a path; "off" disables it),
// else dsh-highlight next to this executable (symlinks resolved), else
// dsh-highlight on $PATH. Empty when there is none.
func Locate() string { return helperbin.Locate("dsh-highlight", "DSH_HIGHLIGHTER") }

// Off reports whether $DSH_HIGHLIGHTER is "off": no card gets tokens.
func Off() bool { return helperbin.Off("DSH_HIGHLIGHTER") }
