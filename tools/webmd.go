package tools

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/dsh-bridge/dsh-bridge/internal/helperbin"
	"github.com/dsh-bridge/dsh-bridge/internal/secrets"
)

// MarkdownFunc converts the HTML of a fetched page to Markdown. It returns
// at most limit bytes of the result (possibly ending inside a character)
// and reports whether there was more.
type MarkdownFunc func(ctx context.Context, html string, limit int) (md string, more bool, err error)

// ErrNoMarkdown is returned by the helper converter when dsh-markdown is
// not installed; web_fetch then returns the page's HTML as it came.
var ErrNoMarkdown = errors.New("dsh-markdown, the HTML converter, is not installed next to dsh-bridge")

// markdownTimeout bounds one conversion, the helper's start included.
const markdownTimeout = 10 * time.Second

// LocateMarkdown finds dsh-markdown as markdownBin does, without
// caching or logging.
func LocateMarkdown() string { return helperbin.Locate("dsh-markdown", "DSH_MARKDOWN") }

// markdownBin is where dsh-markdown is: $DSH_MARKDOWN ("off" disables
// it), else next to this executable, else on $PATH. Looked up once.
var markdownBin = sync.OnceValue(func() string {
	bin := LocateMarkdown()
	if bin == "" {
		slog.Warn("dsh-markdown not found: web_fetch returns HTML pages unconverted (install it next to dsh-bridge, or set DSH_MARKDOWN)")
	}
	return bin
})

// HelperMarkdown converts html in a dsh-markdown process of its own, one
// per page, so that a page that exploits a flaw in the parser reaches
// nothing, not even the next page. A cold process costs more than
// converting in the bridge would (its start, and its heap faulted in
// afresh: BenchmarkMarkdown), little beside a fetch's wait for the
// network. The process is killed when ctx ends, after markdownTimeout, or
// when the bridge dies. The bridge never links an HTML parser.
func HelperMarkdown(ctx context.Context, html string, limit int) (string, bool, error) {
	bin := markdownBin()
	if bin == "" {
		return "", false, ErrNoMarkdown
	}
	return runMarkdown(ctx, bin, html, limit)
}

// runMarkdown runs the converter bin on html.
func runMarkdown(ctx context.Context, bin, html string, limit int) (string, bool, error) {
	ctx, cancel := context.WithTimeout(ctx, markdownTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin)
	cmd.SysProcAttr = helperbin.SysProcAttr()
	cmd.Env = secrets.Clean(os.Environ())
	cmd.WaitDelay = time.Second
	helperbin.Confine(cmd) // Seatbelt on macOS; the helper confines itself elsewhere
	cmd.Stdin = strings.NewReader(html)
	out := &capped{limit: limit}
	stderr := &capped{limit: 2048}
	cmd.Stdout, cmd.Stderr = out, stderr
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return "", false, fmt.Errorf("dsh-markdown: %w", ctx.Err())
		}
		return "", false, fmt.Errorf("dsh-markdown: %v: %s", err, strings.TrimSpace(stderr.b.String()))
	}
	return out.b.String(), out.more, nil
}

// capped keeps the first limit bytes written to it and drops the rest,
// so that a process writing to it never blocks and never grows our heap
// past limit. The kept bytes may end inside a character.
type capped struct {
	b     strings.Builder
	limit int
	more  bool
}

func (c *capped) Write(p []byte) (int, error) {
	if room := c.limit - c.b.Len(); room < len(p) {
		c.b.Write(p[:room])
		c.more = true
		return len(p), nil
	}
	c.b.Write(p)
	return len(p), nil
}
