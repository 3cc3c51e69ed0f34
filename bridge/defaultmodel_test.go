package bridge_test

import (
	"math"
	"strings"
	"testing"
)

// TestLiveModel_DefaultModel: with no model configured the bridge uses the
// Flash model under whichever name the endpoint lists, Pro only when no
// Flash is listed, and DSH_MODEL wins over the listing. The first request
// of a Flash session is priced at Flash's published price (doubled in
// peak hours, so either figure is right).
func TestLiveModel_DefaultModel(t *testing.T) {
	for _, tc := range []struct {
		name   string
		listed []string // nil: DeepSeek's own listing, deepseek-v4-flash and deepseek-v4-pro
		env    []string
		want   string
	}{
		{"DeepSeek's listing", nil, nil, "deepseek-v4-flash"},
		{"Pro listed first", []string{"deepseek-v4-pro", "deepseek-v4-flash"}, nil, "deepseek-v4-flash"},
		{"Flash under its other name", []string{"deepseek-v4-pro", "deepseek-flash"}, nil, "deepseek-flash"},
		{"only Pro listed", []string{"deepseek-v4-pro"}, nil, "deepseek-v4-pro"},
		{"DSH_MODEL wins", nil, []string{"DSH_MODEL=deepseek-v4-pro"}, "deepseek-v4-pro"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newLiveWorld(t, "", fakeTurn{text: "ok"})
			w.model.mu.Lock()
			w.model.listed = tc.listed
			w.model.tokens = []fakeUsage{{prompt: 1000, completion: 100, hit: 640}}
			w.model.mu.Unlock()
			e := w.editor(nil, tc.env...)
			s := e.newSession(w.dir)
			if stop := e.prompt(s, "hi"); stop != "end_turn" {
				t.Fatalf("got stop %q, want end_turn", stop)
			}
			if txt := e.agentText(); strings.Contains(txt, "[model error]") || strings.Contains(txt, "does not list") {
				t.Errorf("got text %q, want a clean answer", txt)
			}
			reqs := w.model.recorded()
			if len(reqs) != 1 || reqs[0].Model != tc.want {
				t.Fatalf("got %d requests (%+v), want one to %s", len(reqs), reqs, tc.want)
			}
			if tc.want != "deepseek-v4-flash" {
				return
			}
			// api-docs.deepseek.com/quick_start/pricing, read 2026-12-04
			// from issue 47's copies: USD per 1M tokens.
			u := w.model.reported()[0]
			base := (float64(u.hit)*0.0028 + float64(u.miss)*0.14 + float64(u.completion)*0.28) / 1e6
			seen := usages(e)
			if len(seen) != 2 || seen[0].Cost == nil { // the turn's, then the title request's
				t.Fatalf("got usage updates %+v, want two with a cost", seen)
			}
			if got := seen[0].Cost.Amount; math.Abs(got-base) > 1e-9 && math.Abs(got-2*base) > 1e-9 {
				t.Errorf("got cost %v, want %v (or %v at peak)", got, base, 2*base)
			}
		})
	}
}
