package bridge_test

import (
	"fmt"
	"math"
	"strings"
	"testing"
)

// TestLiveModel_CompactionCost: the request that summarises the
// conversation is paid for like any other: the usage update after the
// compacted turn reports the cost of every request so far, the summary's
// included, and a loaded session goes on from that same total.
func TestLiveModel_CompactionCost(t *testing.T) {
	const window = 13_000 // tokens; the fake counts 4 bytes to a token
	w := newLiveWorld(t, fmt.Sprintf(`{"models":{"deepseek-v4-flash":{"contextWindow":%d,"price":{"cacheHit":1,"cacheMiss":2,"output":4}}}}`, window),
		fakeTurn{text: "noted"}, fakeTurn{text: "noted again"}, fakeTurn{text: "after load"})
	w.model.window = window
	w.model.summary = "SUMMARY OF THE FIRST TURN"
	cost := func(us []fakeUsage) float64 {
		sum := 0.0
		for _, u := range us {
			sum += (float64(u.hit)*1 + float64(u.miss)*2 + float64(u.completion)*4) / 1e6
		}
		return sum
	}
	caps := map[string]any{"session": map[string]any{"compaction": map[string]any{}}}
	big := strings.Repeat("Please keep this requirement in mind. ", 500) // ~19 KB
	e := w.editor(caps)
	s := e.newSession(w.dir)
	e.prompt(s, big)
	e.prompt(s, big)
	if cs := compactions(e); len(cs) != 2 || cs[1]["status"] != "completed" {
		t.Fatalf("compaction updates %v, want one completed compaction", cs)
	}
	reported := w.model.reported()
	if len(reported) != 3 {
		t.Fatalf("%d requests, want 3: the first turn, the summary, the second turn", len(reported))
	}
	before := usages(e)
	// the first turn's, the title request's and the compacted turn's
	if len(before) != 3 || before[2].Cost == nil {
		t.Fatalf("got usage updates %+v, want 3 priced", before)
	}
	if got, want := before[2].Cost.Amount, cost(w.model.billed()); math.Abs(got-want) > 1e-12 {
		t.Errorf("got cost %v after the compacted turn, want %v (the summary's %v included)", got, want, cost(reported[1:2]))
	}
	e.close()

	e2 := w.editor(caps)
	w.load(e2, s)
	if replayed := usages(e2); len(replayed) != 1 || replayed[0].Cost == nil || math.Abs(replayed[0].Cost.Amount-before[2].Cost.Amount) > 1e-12 {
		t.Errorf("got usage updates %+v from the load, want one with the cost %v", replayed, before[2].Cost.Amount)
	}
	e2.prompt(s, "go on")
	after, reported := usages(e2), w.model.reported()
	if len(after) != 2 || after[1].Cost == nil || len(reported) != 4 {
		t.Fatalf("got usage updates %+v after the load (%d requests), want the load's and one priced", after, len(reported))
	}
	if got, want := after[1].Cost.Amount, cost(w.model.billed()); math.Abs(got-want) > 1e-12 {
		t.Errorf("got cost %v after the load, want %v (the title request's included)", got, want)
	}
}
