//go:build unix

package tools

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dsh-bridge/dsh-bridge/internal/proctest"
)

// TestRunMarkdown_FakeHelpers: runMarkdown against helpers that misbehave,
// written as shell scripts.
func TestRunMarkdown_FakeHelpers(t *testing.T) {
	script := func(body string) string {
		p := filepath.Join(t.TempDir(), "fake-markdown")
		proctest.WriteExec(t, p, []byte("#!/bin/sh\n"+body+"\n"))
		return p
	}
	ctx := context.Background()
	t.Run("output past the limit is dropped and reported", func(t *testing.T) {
		md, more, err := runMarkdown(ctx, script("cat >/dev/null; head -c 10000000 /dev/zero"), "x", 4096)
		if err != nil || !more || len(md) != 4096 {
			t.Fatalf("kept %d bytes, more=%v, err=%v", len(md), more, err)
		}
	})
	t.Run("a failure says why", func(t *testing.T) {
		_, _, err := runMarkdown(ctx, script("echo 'the parser broke' >&2; exit 1"), "x", 100)
		if err == nil || !strings.Contains(err.Error(), "the parser broke") {
			t.Fatalf("err %v", err)
		}
	})
	t.Run("cancellation kills it", func(t *testing.T) {
		ctx, cancel := context.WithCancel(ctx)
		time.AfterFunc(50*time.Millisecond, cancel)
		start := time.Now()
		_, _, err := runMarkdown(ctx, script("exec sleep 60"), "x", 100)
		if !errors.Is(err, context.Canceled) || time.Since(start) > 5*time.Second {
			t.Fatalf("err %v after %v", err, time.Since(start))
		}
	})
}
