package store

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/dsh-bridge/dsh-bridge/card"
	"github.com/dsh-bridge/dsh-bridge/jsonv"
)

func TestStore_RoundTrip(t *testing.T) {
	s, err := Open(filepath.Join(t.TempDir(), "state"))
	if err != nil {
		t.Fatal(err)
	}
	l, err := s.Create("sess_1", Event{Cwd: "/w", AdditionalDirectories: []string{"/x"}})
	if err != nil {
		t.Fatal(err)
	}
	events := []Event{
		{Kind: KindUser, Text: "hello"},
		{Kind: KindAssistant, Text: "hi", Reasoning: "think", ToolCalls: []ToolCall{{ID: "c1", Name: "read", Arguments: `{"file_path":"a"}`}}},
		{Kind: KindToolResult, CallID: "c1", Content: []card.Content{card.Text("1: x")}, Meta: jsonv.MustParse(`{"n":12345678901234567890}`)},
		{Kind: KindTurnEnd, StopReason: "end_turn"},
	}
	for _, e := range events {
		if err := l.Append(e); err != nil {
			t.Fatal(err)
		}
	}
	l.Close()
	got, rep, err := s.Load("sess_1")
	if err != nil || len(rep.Skipped) != 0 {
		t.Fatal(err, rep)
	}
	if len(got) != 5 || got[0].Cwd != "/w" || got[2].ToolCalls[0].Arguments != `{"file_path":"a"}` || got[3].Meta.String() != `{"n":12345678901234567890}` || got[3].Content[0].TextValue() != "1: x" {
		t.Errorf("loaded %+v", got)
	}
	if runtime.GOOS == "windows" {
		return // no Unix mode bits: the state dir is private by its place (%LOCALAPPDATA%), not by its mode
	}
	info, _ := os.Stat(l.Path())
	dir, _ := os.Stat(s.Dir())
	if info.Mode().Perm() != 0o600 || dir.Mode().Perm() != 0o700 {
		t.Errorf("permissions file %v dir %v", info.Mode().Perm(), dir.Mode().Perm())
	}
}

func TestStore_TornAndCorruptLines(t *testing.T) {
	s, _ := Open(t.TempDir())
	l, _ := s.Create("sess_t", Event{Cwd: "/w"})
	l.Append(Event{Kind: KindUser, Text: "one"})
	l.Close()
	path, _ := s.Path("sess_t")
	f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0o600)
	f.WriteString("garbage line\n" + `{"kind":"user","text":"torn`)
	f.Close()
	got, rep, err := s.Load("sess_t")
	if err != nil || len(got) != 2 || !rep.Torn || len(rep.Skipped) != 2 {
		t.Fatalf("got %d events, report %+v, err %v", len(got), rep, err)
	}
	l, err = s.Reopen("sess_t")
	if err != nil {
		t.Fatal(err)
	}
	l.Append(Event{Kind: KindUser, Text: "after the crash"})
	l.Close()
	got, _, _ = s.Load("sess_t")
	if got[len(got)-1].Text != "after the crash" {
		t.Errorf("an append after a torn line was swallowed: %+v", got[len(got)-1])
	}
}

func TestStore_ListAndErrors(t *testing.T) {
	s, _ := Open(t.TempDir())
	for i, cwd := range []string{"/a", "/b"} {
		l, _ := s.Create(fmt.Sprintf("sess_%d", i), Event{Cwd: cwd})
		l.Append(Event{Kind: KindTitle, Title: "title " + cwd})
		l.Close()
		time.Sleep(10 * time.Millisecond)
		os.Chtimes(l.Path(), time.Now().Add(time.Duration(i)*time.Second), time.Now().Add(time.Duration(i)*time.Second))
	}
	os.WriteFile(filepath.Join(s.Dir(), "broken.jsonl"), []byte("not json\n"), 0o600)
	list, err := s.List()
	if err != nil || len(list) != 2 || list[0].ID != "sess_1" || list[0].Title != "title /b" || list[1].Cwd != "/a" {
		t.Errorf("list %+v %v", list, err)
	}
	if _, _, err := s.Load("missing"); !errors.Is(err, ErrNotFound) {
		t.Errorf("missing: %v", err)
	}
	if _, _, err := s.Load("../etc/passwd"); !errors.Is(err, ErrNotFound) {
		t.Errorf("path traversal: %v", err)
	}
	if _, _, err := s.Load("broken"); err == nil || !strings.Contains(err.Error(), "no header") {
		t.Errorf("broken: %v", err)
	}
	if _, err := s.Create("sess_0", Event{Cwd: "/again"}); err == nil {
		t.Errorf("Create overwrote an existing log")
	}
}

func BenchmarkAppend(b *testing.B) {
	s, _ := Open(b.TempDir())
	l, _ := s.Create("bench", Event{Cwd: "/w"})
	defer l.Close()
	e := Event{Kind: KindToolResult, CallID: "c1", Content: []card.Content{card.Text(strings.Repeat("line of output\n", 20))}}
	b.ReportAllocs()
	for b.Loop() {
		if err := l.Append(e); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLoad1000 loads a log of 1,000 tool calls (assistant event,
// result and turn end each).
func BenchmarkLoad1000(b *testing.B) {
	s, _ := Open(b.TempDir())
	l, _ := s.Create("big", Event{Cwd: "/w"})
	for i := range 1000 {
		id := fmt.Sprintf("c%d", i)
		l.Append(Event{Kind: KindUser, Text: "do it"})
		l.Append(Event{Kind: KindAssistant, ToolCalls: []ToolCall{{ID: id, Name: "read", Arguments: `{"file_path":"a.go"}`}}})
		l.Append(Event{Kind: KindToolResult, CallID: id, Content: []card.Content{card.Text(strings.Repeat("1: package main\n", 20))},
			Meta: jsonv.MustParse(`{"path":"/w/a.go","offset":1,"lines":[{"number":1,"text":"package main"}],"totalLines":20}`)})
		l.Append(Event{Kind: KindTurnEnd, StopReason: "end_turn"})
	}
	l.Close()
	for b.Loop() {
		if ev, _, err := s.Load("big"); err != nil || len(ev) != 4001 {
			b.Fatal(err, len(ev))
		}
	}
}

// TestLog_AppendMany: a turn's events go in one call; one that cannot be
// encoded is left out and reported, and the others are all written.
func TestLog_AppendMany(t *testing.T) {
	s, l := newLog(t)
	err := l.Append(
		Event{Kind: KindAssistant, Text: "reading", ToolCalls: []ToolCall{{ID: "c1", Name: "read"}, {ID: "c2", Name: "read"}, {ID: "c3", Name: "read"}}},
		Event{Kind: KindToolResult, CallID: "c1", Content: []card.Content{card.Text("one")}},
		Event{Kind: KindToolResult, CallID: "c2", Content: []card.Content{{}}}, // an absent value
		Event{Kind: KindToolResult, CallID: "c3", Content: []card.Content{card.Text("three")}},
	)
	if err == nil {
		t.Error("an unencodable event was not reported")
	}
	if err := l.Append(Event{Kind: KindTurnEnd, StopReason: "end_turn"}); err != nil {
		t.Fatal(err)
	}
	l.Close()
	got, rep, err := s.Load("sess_1")
	if err != nil || len(rep.Skipped) != 0 {
		t.Fatal(err, rep)
	}
	var ids []string
	for _, e := range got {
		ids = append(ids, e.Kind+":"+e.CallID)
	}
	want := []string{"session:", "assistant:", "tool/result:c1", "tool/result:c3", "turn/end:"}
	if !slices.Equal(ids, want) {
		t.Errorf("logged %v, want %v", ids, want)
	}
	if got[3].Content[0].TextValue() != "three" {
		t.Errorf("c3 logged %+v", got[3].Content)
	}
}

// TestLog_AppendLargeTurn: a turn larger than one chunk is written whole,
// in order.
func TestLog_AppendLargeTurn(t *testing.T) {
	s, l := newLog(t)
	var events []Event
	for i := range 60 { // about 4 chunks
		events = append(events, Event{Kind: KindToolResult, CallID: fmt.Sprint("c", i), Content: []card.Content{card.Text(strings.Repeat("x", 4096))}})
	}
	if err := l.Append(events...); err != nil {
		t.Fatal(err)
	}
	l.Close()
	got, rep, err := s.Load("sess_1")
	if err != nil || len(rep.Skipped) != 0 || len(got) != 61 {
		t.Fatalf("%d events, %v, %v", len(got), rep, err)
	}
	for i, e := range got[1:] {
		if e.CallID != fmt.Sprint("c", i) || len(e.Content[0].TextValue()) != 4096 {
			t.Fatalf("event %d: %s", i, e.CallID)
		}
	}
}

// newLog opens a store in a fresh directory and creates a log in it.
func newLog(t *testing.T) (*Store, *Log) {
	t.Helper()
	s, err := Open(filepath.Join(t.TempDir(), "state"))
	if err != nil {
		t.Fatal(err)
	}
	l, err := s.Create("sess_1", Event{Cwd: "/w"})
	if err != nil {
		t.Fatal(err)
	}
	return s, l
}

// TestDelete: Delete removes a session's log and title file; an unknown
// id and an id that is not a session name (a path) are ErrNotFound and
// remove nothing, whatever lies at the path they spell.
func TestDelete(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "state")
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	l, err := s.Create("sess_a", Event{Cwd: "/w"})
	if err != nil {
		t.Fatal(err)
	}
	l.Close()
	if err := s.SetTitle("sess_a", "A title"); err != nil {
		t.Fatal(err)
	}
	if list, _ := s.List(); len(list) != 1 || list[0].Title != "A title" {
		t.Fatalf("list %+v", list)
	}
	outside := filepath.Join(root, "victim.jsonl")
	os.WriteFile(outside, []byte("{}\n"), 0o600)
	for _, id := range []string{"../victim", "..", "sess_a/../sess_a", "", "sess_a.jsonl", "sess_b"} {
		t.Run("refused "+id, func(t *testing.T) {
			if err := s.Delete(id); !errors.Is(err, ErrNotFound) {
				t.Errorf("Delete(%q) = %v, want ErrNotFound", id, err)
			}
			if err := s.SetTitle(id, "x"); id != "sess_b" && !errors.Is(err, ErrNotFound) {
				t.Errorf("SetTitle(%q) = %v, want ErrNotFound", id, err)
			}
		})
	}
	os.Remove(filepath.Join(dir, "sess_b.title"))
	if _, err := os.Stat(outside); err != nil {
		t.Fatalf("a refused id removed %s: %v", outside, err)
	}
	if err := s.Delete("sess_a"); err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 0 {
		t.Errorf("left in the store: %v", entries)
	}
	if err := s.Delete("sess_a"); !errors.Is(err, ErrNotFound) {
		t.Errorf("second Delete = %v", err)
	}
}
