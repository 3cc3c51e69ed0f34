package bridge

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dsh-bridge/dsh-bridge/acp"
)

// SyncBuffer is a bytes.Buffer safe for a writer and readers at once
// (the external tests' syncBuffer).
type SyncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *SyncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *SyncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// waitLine waits for the next line written to out, and returns it.
func waitLine(t *testing.T, out *SyncBuffer) string {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		out.mu.Lock()
		s, err := out.buf.ReadString('\n')
		if err != nil {
			out.buf.WriteString(s) // not a whole line yet: put it back
		}
		out.mu.Unlock()
		if err == nil {
			return strings.TrimSuffix(s, "\n")
		}
	}
	t.Fatal("no line written")
	return ""
}

// TestReadThroughEditor_Answers: an editor's answer to fs/read_text_file
// gives the file's text only when it holds one.
func TestReadThroughEditor_Answers(t *testing.T) {
	for _, tc := range []struct {
		name, result string
		want         string // "" for an error
	}{
		{"text", `{"content":"a\nb"}`, "a\nb"},
		{"empty text", `{"content":""}`, "\x00empty"},
		{"no content", `{}`, ""},
		{"content not text", `{"content":42}`, ""},
		{"null", `null`, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := &SyncBuffer{}
			pr, pw := io.Pipe()
			conn := acp.NewConn(pr, out, nil, acp.Options{Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
			served := make(chan struct{})
			go func() { conn.Serve(context.Background()); close(served) }()
			t.Cleanup(func() { pw.Close(); <-served; conn.Close(time.Second) })
			h := &editorHost{session: &Session{srv: &Server{conn: conn}, id: "s"}}
			type read struct {
				text string
				err  error
			}
			done := make(chan read, 1)
			go func() {
				text, err := h.readThroughEditor(context.Background(), "/w/a.txt")
				done <- read{text, err}
			}()
			waitLine(t, out)
			io.WriteString(pw, `{"jsonrpc":"2.0","id":1,"result":`+tc.result+"}\n")
			got := <-done
			switch {
			case tc.want == "" && got.err == nil:
				t.Errorf("read %q, want an error", got.text)
			case tc.want == "\x00empty" && (got.err != nil || got.text != ""):
				t.Errorf("read %q, %v; want the empty text", got.text, got.err)
			case tc.want != "" && tc.want != "\x00empty" && (got.err != nil || got.text != tc.want):
				t.Errorf("read %q, %v; want %q", got.text, got.err, tc.want)
			}
		})
	}
}
