package bridge_test

import (
	"path/filepath"
	"testing"
	"time"
)

// BenchmarkFirstTurn_Title measures what the title request adds to a
// session's first answer on the loopback fake: "first" is a new
// session's first prompt (its turn asks for the title before it
// answers), its peer "later" a second prompt of the same kind in the same
// session (no title request). It also reports the title request's
// prompt tokens as the fake measures them.
func BenchmarkFirstTurn_Title(b *testing.B) {
	dir, _ := filepath.EvalSymlinks(b.TempDir())
	m := newFakeModel(b)
	m.always = &fakeTurn{text: "ok"}
	e := startEditor(b, "DSH_BASE_URL="+m.srv.URL)
	e.noValidate = true
	e.initialize(nil)
	var first, later time.Duration
	b.ResetTimer()
	for range b.N {
		s := e.newSession(dir)
		t0 := time.Now()
		e.prompt(s, "please fix the flaky parser test in pkg/a")
		t1 := time.Now()
		e.prompt(s, "please fix the flaky parser test in pkg/b")
		first, later = first+t1.Sub(t0), later+time.Since(t1)
	}
	b.StopTimer()
	b.ReportMetric(float64(first.Microseconds())/float64(b.N), "first-µs/op")
	b.ReportMetric(float64(later.Microseconds())/float64(b.N), "later-µs/op")
	if u := m.billed(); len(u) > 0 {
		b.ReportMetric(float64(u[len(u)-1].prompt), "title-prompt-tokens")
	}
}
