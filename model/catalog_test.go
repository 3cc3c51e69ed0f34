package model

import (
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestCatalog(t *testing.T) {
	yes := true
	c := Catalog{Overrides: map[string]ModelSettings{
		"local-llm":       {ContextWindow: 32_000, Thinking: &yes},
		"deepseek-v4-pro": {Price: &Price{CacheHit: 1, CacheMiss: 2, Output: 3}},
	}}
	for _, tc := range []struct {
		id       string
		window   int64
		thinking bool
		priced   bool
		retired  bool
	}{
		{"deepseek-flash", 1_000_000, true, true, false},
		{"deepseek-v4-flash", 1_000_000, true, true, false},
		{"deepseek/deepseek-v4-pro", 1_000_000, true, true, false},
		{"deepseek-v4-pro", 1_000_000, true, true, false},
		{"deepseek-chat", DefaultWindow, true, false, true},
		{"deepseek-v9-experimental", DefaultWindow, true, false, false},
		{"gpt-5-mini", DefaultWindow, false, false, false},
		{"local-llm", 32_000, true, false, false},
	} {
		in := c.Lookup(tc.id)
		if in.Window != tc.window || in.Thinking != tc.thinking || (in.Price != nil) != tc.priced || (in.Retired != "") != tc.retired {
			t.Errorf("%s: %+v", tc.id, in)
		}
	}
	if p := c.Lookup("deepseek-v4-pro"); p.Price.Output != 3 || p.PeakFactor != 0 {
		t.Errorf("the user's price did not replace the table's: %+v", p)
	}
}

func TestDefaultModel(t *testing.T) {
	for _, tc := range []struct {
		listed []string
		want   string
	}{
		{[]string{"deepseek-v4-pro", "deepseek-flash"}, "deepseek-flash"},
		{[]string{"deepseek-v4-pro"}, "deepseek-v4-pro"},
		{[]string{"qwen3-coder", "llama"}, "qwen3-coder"},
		{nil, "deepseek-flash"},
	} {
		if got := Default(tc.listed); got != tc.want {
			t.Errorf("%v: %q, want %q", tc.listed, got, tc.want)
		}
	}
}

func TestCost(t *testing.T) {
	flash := Catalog{}.Lookup("deepseek-flash")
	u := Usage{PromptTokens: 1_000_000, CacheHit: 800_000, CacheMiss: 200_000, CacheKnown: true, CompletionTokens: 100_000}
	offPeak := time.Date(2026, 11, 28, 3, 0, 0, 0, time.UTC)  // Saturday
	peakTime := time.Date(2026, 11, 30, 2, 0, 0, 0, time.UTC) // Monday 10:00 in Beijing
	want := 0.8*0.003 + 0.2*0.15 + 0.1*0.60
	for _, tc := range []struct {
		name string
		at   time.Time
		want float64
	}{{"off-peak", offPeak, want}, {"peak", peakTime, 2 * want}, {"lunch break", time.Date(2026, 11, 30, 4, 30, 0, 0, time.UTC), want}} {
		got, ok := flash.Cost(u, tc.at)
		if !ok || math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("%s: %v %v, want %v", tc.name, got, ok, tc.want)
		}
	}
	if _, ok := (Catalog{}).Lookup("gpt-5").Cost(u, offPeak); ok {
		t.Error("an unknown price was reported as a cost")
	}
	noSplit := Usage{PromptTokens: 1000, CompletionTokens: 0}
	if got, _ := flash.Cost(noSplit, offPeak); math.Abs(got-1000*0.15/1e6) > 1e-15 {
		t.Errorf("without a cache split every prompt token is a miss: %v", got)
	}
}

func TestLoadSettings(t *testing.T) {
	dir := t.TempDir()
	write := func(s string) string {
		p := filepath.Join(dir, "settings.json")
		os.WriteFile(p, []byte(s), 0o600)
		return p
	}
	s, err := LoadSettings(filepath.Join(dir, "missing.json"))
	if err != nil || s.Compaction.Threshold != 0.8 {
		t.Errorf("missing file: %+v %v", s, err)
	}
	s, err = LoadSettings(write(`{"permissions":{"allow":["read"]},"models":{"m":{"contextWindow":2000,"price":{"cacheHit":1,"cacheMiss":2,"output":3}}},"compaction":{"threshold":0.5}}`))
	if err != nil || s.Models["m"].ContextWindow != 2000 || s.Compaction.Threshold != 0.5 || s.Compaction.MaxToolResultBytes != 100_000 {
		t.Errorf("settings %+v %v", s, err)
	}
	for _, bad := range []string{`{"compaction":{"threshold":2}}`, `{"models":{"m":{"contextWindow":-1}}}`, `{"models":{"m":{"price":{"output":-1}}}}`, `{`} {
		if s, err := LoadSettings(write(bad)); err == nil || s.Compaction.Threshold != 0.8 {
			t.Errorf("%s: accepted (%+v)", bad, s)
		}
	}
}
