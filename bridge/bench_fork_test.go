package bridge_test

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/dsh-bridge/dsh-bridge/store"
)

// BenchmarkFork measures session/fork of a session of 1,000 messages (500
// turns of a user message and a 2 KB answer, written to the log
// directly) from the answer's request to its arrival, each fork then
// closed; with session/new and session/load of the same log as peers in
// the same run. Reported: the median.
func BenchmarkFork(b *testing.B) {
	dir, _ := filepath.EvalSymlinks(b.TempDir())
	state := b.TempDir()
	st, err := store.Open(state)
	if err != nil {
		b.Fatal(err)
	}
	const parent = "sess_benchparent"
	log, err := st.Create(parent, store.Event{Cwd: dir})
	if err != nil {
		b.Fatal(err)
	}
	answer := strings.Repeat("An answer of some length. ", 80)
	var events []store.Event
	for i := range 500 {
		events = append(events,
			store.Event{Kind: store.KindUser, Text: fmt.Sprintf("question %d", i), MessageID: fmt.Sprintf("msg_u%d", i)},
			store.Event{Kind: store.KindAssistant, Text: answer, MessageID: fmt.Sprintf("msg_a%d", i)},
			store.Event{Kind: store.KindTurnEnd, StopReason: "end_turn"})
	}
	if err := log.Append(events...); err != nil {
		b.Fatal(err)
	}
	log.Close()
	m := newFakeModel(b)
	e := startEditor(b, "DSH_BASE_URL="+m.srv.URL, "DSH_STATE_DIR="+state, "DSH_LOG_LEVEL=error")
	e.noValidate = true
	e.initialize(nil)
	run := func(b *testing.B, method string, params map[string]any) {
		var lat []time.Duration
		for b.Loop() {
			start := time.Now()
			res, rerr := e.call(method, params)
			lat = append(lat, time.Since(start))
			if rerr != nil {
				b.Fatalf("%s: %+v", method, rerr)
			}
			var r struct{ SessionID string }
			json.Unmarshal(res, &r)
			if r.SessionID == "" {
				r.SessionID = parent
			}
			if _, rerr := e.call("session/close", map[string]any{"sessionId": r.SessionID}); rerr != nil {
				b.Fatal(rerr)
			}
		}
		slices.Sort(lat)
		b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "median-ms")
	}
	b.Run("new", func(b *testing.B) { run(b, "session/new", map[string]any{"cwd": dir, "mcpServers": []any{}}) })
	b.Run("fork", func(b *testing.B) {
		run(b, "session/fork", map[string]any{"sessionId": parent, "cwd": dir, "mcpServers": []any{}})
	})
	b.Run("load", func(b *testing.B) {
		run(b, "session/load", map[string]any{"sessionId": parent, "cwd": dir, "mcpServers": []any{}})
	})
}
