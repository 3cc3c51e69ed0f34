// Package store keeps durable session logs: one append-only JSONL file per
// session, holding the events a conversation needs to survive a restart —
// the user's messages, the assistant's committed text, reasoning and tool
// calls, each call's durable result (content, error, presentation meta;
// never the canonical value), mode changes and the title.
//
// Files are 0600 in 0700 folders. Appends are written as the turn goes and
// fsynced when the caller asks (at turn boundaries and before a permission
// request). A torn last line — a crash mid-write — is skipped on load and
// reported, never fatal; a corrupt file affects only its own session.
package store

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/dsh-bridge/dsh-bridge/card"
	"github.com/dsh-bridge/dsh-bridge/checkpoint"
	"github.com/dsh-bridge/dsh-bridge/internal/bufpool"
	"github.com/dsh-bridge/dsh-bridge/internal/secrets"
	"github.com/dsh-bridge/dsh-bridge/jsonv"
	"github.com/dsh-bridge/dsh-bridge/registry"
)

// Event kinds.
const (
	KindSession    = "session"        // the header: cwd, additional directories
	KindUser       = "user"           // a user message
	KindAssistant  = "assistant"      // committed text, reasoning and tool calls
	KindToolResult = "tool/result"    // one call's durable result
	KindContext    = "context"        // an additional context given to the model
	KindTurnEnd    = "turn/end"       // a finished turn and its stop reason
	KindAbandoned  = "turn/abandoned" // closes a turn cut off by a crash: its events are void
	KindMode       = "mode"           // a mode change
	KindTitle      = "title"          // the session title (TitleBy says whose)
	KindConfig     = "config"         // a session config option set (model, thought level)
	KindUsage      = "usage"          // one model request's token usage and cost
	KindCompaction = "compaction"     // the history was compacted before a request
	KindClear      = "clear"          // /clear: the model's context starts afresh here
	// KindCodeDispatch is one settled sub-call of a run_code program, logged
	// right before its run_code call's result. Log-only: it never enters
	// the model's history.
	KindCodeDispatch = "tool/code-dispatch"
	// KindSubagent is a task call's child session (SessionID, Title, the
	// agent as Name, StopReason, its answer as Text with its MessageID),
	// logged with the child's calls — each a
	// KindCodeDispatch event whose ParentCallID is the task's — right
	// before the task's result. Log-only, like them.
	KindSubagent = "subagent"
	// KindCheckpoint is file changes of the turn whose user message has
	// MessageID, with their pre-images (package checkpoint); logged
	// before or after that turn's end.
	KindCheckpoint = "checkpoint"
	// KindRewind cuts the history: the turn whose user message has
	// MessageID, and every later one, are gone from the conversation (the
	// log keeps them).
	KindRewind = "rewind"
)

// Compaction records how the history was compacted, so that a load
// rebuilds the same history.
type Compaction struct {
	ID string `json:"id"`
	// Shrunk lists the tool calls whose results the model no longer sees
	// (replaced by a placeholder; the log keeps them whole).
	Shrunk []string `json:"shrunk,omitempty"`
	// Through is how many leading history messages the summary replaced
	// (0: no summary).
	Through int    `json:"through,omitempty"`
	Summary string `json:"summary,omitempty"`
}

// Usage is one model request's usage.
type Usage struct {
	Model            string   `json:"model"`
	PromptTokens     int64    `json:"promptTokens"`
	CompletionTokens int64    `json:"completionTokens"`
	CacheHit         int64    `json:"cacheHit,omitempty"`
	CacheMiss        int64    `json:"cacheMiss,omitempty"`
	CostUSD          *float64 `json:"costUsd,omitempty"` // nil: the price is unknown
	// Bytes is the estimated size of a request that carried the
	// conversation, which calibrates the session's token estimate (0: a
	// summary request).
	Bytes int `json:"bytes,omitempty"`
}

// ToolCall is one tool call of an assistant event.
type ToolCall struct {
	ID        string `json:"id"` // the model's, as it sent it
	Name      string `json:"name"`
	Arguments string `json:"arguments"` // raw, as the model wrote it
	// CardID is the editor's toolCallId when it is not ID (the model
	// reused ID in the session). The call's KindToolResult and the
	// ParentCallID of its sub-calls name the card id.
	CardID string `json:"cardId,omitempty"`
}

// Card is the call's card id: CardID, else ID.
func (tc ToolCall) Card() string {
	if tc.CardID != "" {
		return tc.CardID
	}
	return tc.ID
}

// Event is one line of a session log.
type Event struct {
	Kind string    `json:"kind"`
	At   time.Time `json:"at"`

	Cwd                   string   `json:"cwd,omitempty"`
	AdditionalDirectories []string `json:"additionalDirectories,omitempty"`
	// ForkOf is, in a forked session's header, the session it was forked
	// from; the events that follow the header up to the fork are a copy
	// of that session's.
	ForkOf string `json:"forkOf,omitempty"`

	// MessageID identifies a user or assistant message (ACP's messageId).
	MessageID  string              `json:"messageId,omitempty"`
	Checkpoint []checkpoint.Change `json:"checkpoint,omitempty"`

	Text      string     `json:"text,omitempty"`
	Reasoning string     `json:"reasoning,omitempty"`
	ToolCalls []ToolCall `json:"toolCalls,omitempty"`

	CallID string `json:"callId,omitempty"`
	// ParentCallID, Name and Arguments describe a Code Mode sub-call or a
	// subagent's call.
	ParentCallID string            `json:"parentCallId,omitempty"`
	Name         string            `json:"name,omitempty"`
	Arguments    string            `json:"arguments,omitempty"`
	Content      []card.Content    `json:"content,omitempty"`
	IsError      bool              `json:"isError,omitempty"`
	Error        *registry.Failure `json:"error,omitempty"`
	Meta         jsonv.Value       `json:"meta,omitzero"`

	ConfigID   string      `json:"configId,omitempty"`
	Value      string      `json:"value,omitempty"`
	Usage      *Usage      `json:"usage,omitempty"`
	Compaction *Compaction `json:"compaction,omitempty"`

	StopReason string `json:"stopReason,omitempty"`
	Mode       string `json:"mode,omitempty"`
	Title      string `json:"title,omitempty"`
	SessionID  string `json:"sessionId,omitempty"` // a subagent's child session
	// TitleBy is who gave Title: TitleByUser, TitleByModel, or empty for
	// the first prompt cut short.
	TitleBy string `json:"titleBy,omitempty"`
}

// Title sources (Event.TitleBy).
const (
	TitleByUser  = "user"
	TitleByModel = "model"
)

// ErrNotFound means no log exists for a session id.
var ErrNotFound = errors.New("session log not found")

// Store is a directory of session logs. Safe for concurrent use.
type Store struct{ dir string }

// Open returns the store in dir, creating it (0700) when missing.
func Open(dir string) (*Store, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	return &Store{dir: dir}, nil
}

// Dir returns the store's directory.
func (s *Store) Dir() string { return s.dir }

// Path returns the log file of a session id.
func (s *Store) Path(id string) (string, error) {
	if !registry.IsName(id, 128) {
		return "", fmt.Errorf("%w: invalid session id %q", ErrNotFound, id)
	}
	return filepath.Join(s.dir, id+".jsonl"), nil
}

// titlePath is the file that keeps a session's latest title for List,
// beside its log: a title given after the first turn lies too deep in the
// log for List to read it there.
func (s *Store) titlePath(id string) string { return filepath.Join(s.dir, id+titleSuffix) }

const titleSuffix = ".title"

// SetTitle records a session's title for List (the log keeps it too, for
// session/load): written whole to a temporary file and renamed, so List
// reads the old title or the new one, never a part.
func (s *Store) SetTitle(id, title string) error {
	if _, err := s.Path(id); err != nil {
		return err
	}
	f, err := os.CreateTemp(s.dir, id+".*.tmp")
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, err = f.WriteString(title)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, s.titlePath(id))
	}
	if err != nil {
		os.Remove(tmp)
	}
	return err
}

// Delete removes a session's log and its title file. An id that is not a
// session name (a path, "..") is ErrNotFound and removes nothing; so is an
// id with no log.
func (s *Store) Delete(id string) error {
	path, err := s.Path(id)
	if err != nil {
		return err
	}
	if err := os.Remove(path); errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("%w: %s", ErrNotFound, id)
	} else if err != nil {
		return err
	}
	if err := os.Remove(s.titlePath(id)); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return nil
}

// Log is one session's open log.
type Log struct {
	mu   sync.Mutex
	f    *os.File
	path string
}

// Create starts a new log with its header event.
func (s *Store) Create(id string, header Event) (*Log, error) {
	path, err := s.Path(id)
	if err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, err
	}
	l := &Log{f: f, path: path}
	header.Kind = KindSession
	if err := l.Append(header); err != nil {
		f.Close()
		return nil, err
	}
	return l, l.Sync()
}

// Reopen opens an existing log for appending (after Load).
func (s *Store) Reopen(id string) (*Log, error) {
	path, err := s.Path(id)
	if err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0o600)
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("%w: %s", ErrNotFound, id)
	}
	if err != nil {
		return nil, err
	}
	// A torn last line must not swallow the next event: end it.
	if info, err := f.Stat(); err == nil && info.Size() > 0 {
		last := make([]byte, 1)
		if r, err := os.Open(path); err == nil {
			if _, err := r.ReadAt(last, info.Size()-1); err == nil && last[0] != '\n' {
				_, _ = f.Write([]byte("\n"))
			}
			r.Close()
		}
	}
	return &Log{f: f, path: path}, nil
}

// appendChunk is how much Append encodes before it writes: a turn's
// events leave in a few writes, and the pooled buffer stays small however
// large the turn (a buffer grown to a whole turn's results was kept by the
// pool, per concurrent session).
const appendChunk = 64 << 10

// Append writes events, one line each (stamping At when zero), in as few
// writes as appendChunk allows: a turn's results cost a system call or
// two, not one per call. An event that cannot be encoded is left out and
// its error returned; the others are still written. A crash mid-write
// tears at most the last line, which Load skips.
func (l *Log) Append(events ...Event) error {
	buf := bufpool.Get()
	defer bufpool.Put(buf)
	var first error
	for i, e := range events {
		if e.At.IsZero() {
			e.At = time.Now().UTC()
		}
		b, err := jsonv.AppendGo(*buf, e) // one pass: cards and values write themselves
		if err != nil {
			first = cmp.Or(first, err) // *buf still ends before e
		} else {
			*buf = append(b, '\n')
		}
		if len(*buf) == 0 || (len(*buf) < appendChunk && i < len(events)-1) {
			continue
		}
		if err := l.write(secrets.RedactJSON(*buf)); err != nil {
			return err
		}
		*buf = (*buf)[:0]
	}
	return first
}

func (l *Log) write(b []byte) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return os.ErrClosed
	}
	_, err := l.f.Write(b)
	return err
}

// Sync flushes the log to stable storage.
func (l *Log) Sync() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return os.ErrClosed
	}
	return l.f.Sync()
}

// Close syncs and closes the log; later appends fail.
func (l *Log) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return nil
	}
	_ = l.f.Sync()
	err := l.f.Close()
	l.f = nil
	return err
}

// Path returns the log's file.
func (l *Log) Path() string { return l.path }

// Report says what loading a log skipped.
type Report struct {
	Skipped []int // 1-based line numbers that did not parse
	Torn    bool  // the last line was incomplete (a crash mid-write)
}

// Load reads a session's events. Lines that do not parse are skipped and
// reported; a torn last line is expected after a crash.
func (s *Store) Load(id string) ([]Event, Report, error) {
	path, err := s.Path(id)
	if err != nil {
		return nil, Report{}, err
	}
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, Report{}, fmt.Errorf("%w: %s", ErrNotFound, id)
	}
	if err != nil {
		return nil, Report{}, err
	}
	var events []Event
	var rep Report
	lines := bytes.Split(data, []byte("\n"))
	for i, line := range lines {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var e Event
		if err := json.Unmarshal(line, &e); err != nil || e.Kind == "" {
			rep.Skipped = append(rep.Skipped, i+1)
			if i == len(lines)-1 {
				rep.Torn = true
			}
			continue
		}
		events = append(events, e)
	}
	if len(events) == 0 || events[0].Kind != KindSession {
		return nil, rep, fmt.Errorf("session log %s has no header", path)
	}
	return events, rep, nil
}

// maxTitleBytes bounds a title file List believes.
const maxTitleBytes = 4 << 10

// Info describes a stored session.
type Info struct {
	ID        string
	Cwd       string
	Title     string
	UpdatedAt time.Time
}

// List returns the stored sessions, most recently updated first, reading
// only each log's header and title. Unreadable logs are skipped.
func (s *Store) List() ([]Info, error) {
	entries, err := os.ReadDir(s.dir)
	if err != nil {
		return nil, err
	}
	var out []Info
	for _, e := range entries {
		id, ok := strings.CutSuffix(e.Name(), ".jsonl")
		if !ok || !registry.IsName(id, 128) {
			continue
		}
		info, err := e.Info()
		if err != nil {
			continue
		}
		in := Info{ID: id, UpdatedAt: info.ModTime().UTC()}
		f, err := os.Open(filepath.Join(s.dir, e.Name()))
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 64*1024), 64<<20)
		for n := 0; sc.Scan() && n < 50; n++ {
			var ev Event
			if json.Unmarshal(sc.Bytes(), &ev) != nil {
				continue
			}
			switch ev.Kind {
			case KindSession:
				in.Cwd = ev.Cwd
			case KindTitle:
				in.Title = ev.Title
			}
		}
		f.Close()
		if t, err := os.ReadFile(s.titlePath(id)); err == nil && len(t) > 0 && len(t) <= maxTitleBytes {
			in.Title = string(t)
		}
		if in.Cwd != "" {
			out = append(out, in)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if !out[i].UpdatedAt.Equal(out[j].UpdatedAt) {
			return out[i].UpdatedAt.After(out[j].UpdatedAt)
		}
		return out[i].ID < out[j].ID
	})
	return out, nil
}
