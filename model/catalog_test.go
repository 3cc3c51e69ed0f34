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

func TestDefault_Pick(t *testing.T) {
	for _, tc := range []struct {
		name   string
		listed []string
		want   string
	}{
		{"DeepSeek's real listing", []string{"deepseek-v4-flash", "deepseek-v4-pro"}, "deepseek-v4-flash"},
		{"Pro listed first", []string{"deepseek-v4-pro", "deepseek-v4-flash"}, "deepseek-v4-flash"},
		{"Flash under its other name", []string{"deepseek-v4-pro", "deepseek-flash"}, "deepseek-flash"},
		{"Flash behind a gateway", []string{"deepseek/deepseek-v4-pro", "deepseek/deepseek-v4-flash"}, "deepseek/deepseek-v4-flash"},
		{"Flash in capitals", []string{"deepseek-v4-pro", "DeepSeek-V4-Flash"}, "DeepSeek-V4-Flash"},
		{"Flash among others", []string{"qwen3-coder", "deepseek-v4-pro", "deepseek-v4-flash"}, "deepseek-v4-flash"},
		{"only Pro", []string{"deepseek-v4-pro"}, "deepseek-v4-pro"},
		{"Pro before an unknown model", []string{"qwen3-coder", "deepseek-v4-pro"}, "deepseek-v4-pro"},
		{"no DeepSeek model", []string{"qwen3-coder", "llama"}, "qwen3-coder"},
		{"a retired name is not Flash", []string{"deepseek-chat", "deepseek-v4-pro"}, "deepseek-v4-pro"},
		{"nothing listed", nil, "deepseek-v4-flash"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Default(tc.listed); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

// TestCatalog_Prices holds the built-in prices to DeepSeek's pricing page
// (api-docs.deepseek.com/quick_start/pricing, copies of 2026-04 to
// 2026-07, read 2026-12-04 from the copies).
func TestCatalog_Prices(t *testing.T) {
	flash := Price{CacheHit: 0.0028, CacheMiss: 0.14, Output: 0.28}
	pro := Price{CacheHit: 0.003625, CacheMiss: 0.435, Output: 0.87}
	for _, tc := range []struct {
		id   string
		want Price
	}{
		{"deepseek-v4-flash", flash},
		{"deepseek-flash", flash},
		{"deepseek/deepseek-v4-flash", flash},
		{"deepseek-v4-pro", pro},
	} {
		t.Run(tc.id, func(t *testing.T) {
			in := Catalog{}.Lookup(tc.id)
			if in.Price == nil || *in.Price != tc.want || in.PeakFactor != 2 {
				t.Errorf("got %+v (peak ×%v), want %+v (peak ×2)", in.Price, in.PeakFactor, tc.want)
			}
		})
	}
}

func TestInfo_Cost(t *testing.T) {
	u := Usage{PromptTokens: 1_000_000, CacheHit: 800_000, CacheMiss: 200_000, CacheKnown: true, CompletionTokens: 100_000}
	bj := time.FixedZone("Beijing", 8*3600)
	sat := func(h, m int) time.Time { return time.Date(2026, 11, 28, h, m, 0, 0, bj) } // a Saturday
	mon := func(h, m int) time.Time { return time.Date(2026, 11, 30, h, m, 0, 0, bj) } // a Monday
	flash := 0.8*0.0028 + 0.2*0.14 + 0.1*0.28
	pro := 0.8*0.003625 + 0.2*0.435 + 0.1*0.87
	for _, tc := range []struct {
		name  string
		model string
		at    time.Time
		want  float64
	}{
		{"Flash, Saturday night", "deepseek-v4-flash", sat(3, 0), flash},
		{"Flash, Saturday morning peak", "deepseek-v4-flash", sat(10, 0), 2 * flash},
		{"Flash, Saturday lunch break", "deepseek-v4-flash", sat(12, 30), flash},
		{"Flash, Saturday afternoon peak", "deepseek-v4-flash", sat(17, 59), 2 * flash},
		{"Flash, Saturday evening", "deepseek-v4-flash", sat(18, 0), flash},
		{"Flash, Monday at nine", "deepseek-v4-flash", mon(9, 0), 2 * flash},
		{"Flash, Monday before nine", "deepseek-v4-flash", mon(8, 59), flash},
		{"Flash's other name, Saturday peak", "deepseek-flash", sat(15, 0), 2 * flash},
		{"Pro, Sunday peak", "deepseek-v4-pro", sat(24+14, 0), 2 * pro},
		{"Pro, Sunday off-peak", "deepseek-v4-pro", sat(24+20, 0), pro},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := Catalog{}.Lookup(tc.model).Cost(u, tc.at)
			if !ok || math.Abs(got-tc.want) > 1e-12 {
				t.Errorf("got %v (known %v), want %v", got, ok, tc.want)
			}
		})
	}
	t.Run("a user's price has no peak factor", func(t *testing.T) {
		c := Catalog{Overrides: map[string]ModelSettings{
			"deepseek-v4-pro": {Price: &Price{CacheHit: 1, CacheMiss: 2, Output: 3}},
			"local-llm":       {Price: &Price{CacheHit: 1, CacheMiss: 2, Output: 3}},
		}}
		own := 0.8*1 + 0.2*2 + 0.1*3
		for _, id := range []string{"deepseek-v4-pro", "local-llm"} {
			for _, at := range []time.Time{sat(10, 0), sat(3, 0)} {
				if got, ok := c.Lookup(id).Cost(u, at); !ok || math.Abs(got-own) > 1e-12 {
					t.Errorf("%s at %s: got %v (known %v), want %v", id, at.Format("15:04"), got, ok, own)
				}
			}
		}
	})
	if _, ok := (Catalog{}).Lookup("gpt-5").Cost(u, sat(3, 0)); ok {
		t.Error("an unknown price was reported as a cost")
	}
	noSplit := Usage{PromptTokens: 1000, CompletionTokens: 0}
	if got, _ := (Catalog{}).Lookup("deepseek-v4-flash").Cost(noSplit, sat(3, 0)); math.Abs(got-1000*0.14/1e6) > 1e-15 {
		t.Errorf("without a cache split every prompt token is a miss: got %v, want %v", got, 1000*0.14/1e6)
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
