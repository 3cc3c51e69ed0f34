package bridge_test

import (
	"math"
	"testing"
)

// TestLiveModel_CostAfterLoad: the cost a loaded session goes on from is
// the total of the requests made before it, each counted once (the log
// records each request's cost, not the running total): the usage
// update after the next request in a new process is that total plus the
// new request's cost. The load itself shows the usage as the live session
// last showed it (context used, window, cost).
func TestLiveModel_CostAfterLoad(t *testing.T) {
	w := newLiveWorld(t, `{"models":{"deepseek-v4-flash":{"price":{"cacheHit":1,"cacheMiss":2,"output":4}}}}`,
		fakeTurn{calls: []fakeCall{readCall("r1")}}, fakeTurn{text: "one"}, fakeTurn{text: "two"}, fakeTurn{text: "three"})
	w.model.tokens = []fakeUsage{{prompt: 50}, {prompt: 63, completion: 2, hit: 0}, {prompt: 3000, completion: 7, hit: 128}, {prompt: 3100, completion: 5, hit: 2944}}
	cost := func(us []fakeUsage) float64 {
		sum := 0.0
		for _, u := range us {
			sum += (float64(u.hit)*1 + float64(u.miss)*2 + float64(u.completion)*4) / 1e6
		}
		return sum
	}
	e := w.editor(nil)
	s := e.newSession(w.dir)
	e.prompt(s, "first")
	e.prompt(s, "second")
	before := usages(e)
	// the first turn's two, the title request's and the second turn's
	if len(before) != 4 || before[3].Cost == nil {
		t.Fatalf("got usage updates %+v, want 4 priced", before)
	}
	before = append(before[:2], before[3]) // the conversation's
	if want := cost(w.model.billed()); math.Abs(before[2].Cost.Amount-want) > 1e-12 {
		t.Fatalf("got cost %v before the load, want %v", before[2].Cost.Amount, want)
	}
	e.close()

	e2 := w.editor(nil)
	w.load(e2, s)
	// The load shows the usage as the live session last showed it.
	replayed := usages(e2)
	if len(replayed) != 1 || replayed[0].Cost == nil || math.Abs(replayed[0].Cost.Amount-before[2].Cost.Amount) > 1e-12 ||
		replayed[0].Used != before[2].Used || replayed[0].Size != before[2].Size {
		t.Errorf("got usage updates %+v from the load, want one as the last before it, %+v", replayed, before[2])
	}
	e2.prompt(s, "third")
	after := usages(e2)
	reported := w.model.reported()
	if len(after) != 2 || after[1].Cost == nil || len(reported) != 4 {
		t.Fatalf("got usage updates %+v after the load (%d requests), want the load's and one priced", after, len(reported))
	}
	want := cost(w.model.billed()) // the title request's cost included
	if got := after[1].Cost.Amount; math.Abs(got-want) > 1e-12 {
		t.Errorf("got cost %v after the load, want %v (%v before it, %v for the new request)", got, want, before[2].Cost.Amount, cost(reported[3:]))
	}
	if after[1].Used != int64(reported[3].prompt) || after[1].Size != before[2].Size {
		t.Errorf("got used %d of %d after the load, want %d of %d", after[1].Used, after[1].Size, reported[3].prompt, before[2].Size)
	}
}
