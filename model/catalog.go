package model

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// Price is a model's price in US dollars per million tokens.
type Price struct {
	CacheHit  float64 `json:"cacheHit"`  // input tokens served from the prefix cache
	CacheMiss float64 `json:"cacheMiss"` // other input tokens
	Output    float64 `json:"output"`    // completion tokens (reasoning included)
}

// Info is what the bridge knows about one model.
type Info struct {
	ID        string
	Window    int64 // context window in tokens
	MaxOutput int64 // longest completion in tokens (0: unknown)
	// Thinking reports whether the model takes DeepSeek's thinking and
	// reasoning_effort parameters (and streams reasoning_content).
	Thinking bool
	// Price is the off-peak price; nil when unknown, in which case no cost
	// is reported (an unknown price is not a zero price).
	Price *Price
	// PeakFactor multiplies Price during the provider's peak hours (0 or 1:
	// no peak pricing).
	PeakFactor float64
	// Retired, when set, says why requests naming this model are refused.
	Retired string
	Known   bool // the model is in the built-in table or the user's settings
}

// DefaultWindow is the context window assumed for a model nobody
// described: small enough to be safe with any current model.
const DefaultWindow = 128_000

// family is one row of the built-in table.
type family struct {
	info Info
	ids  []string
}

// builtin is DeepSeek's current line-up, off-peak prices (USD per 1M
// tokens), doubled in peak hours. Source: DeepSeek's pricing page,
// api-docs.deepseek.com/quick_start/pricing, copies of 2026-04 to 2026-07,
// and its list-models answer (read 2026-12-04 from the copies):
// the models are deepseek-v4-flash and deepseek-v4-pro, and V4-Pro's 75 %
// discount is its permanent price from 2026-05-31. deepseek-flash is
// recognised as another name of Flash (the endpoint does not list it).
// The first id of a family is its published name.
var builtin = []family{
	{ids: []string{"deepseek-v4-flash", "deepseek-flash"}, info: Info{Window: 1_000_000, MaxOutput: 384_000, Thinking: true,
		Price: &Price{CacheHit: 0.0028, CacheMiss: 0.14, Output: 0.28}, PeakFactor: 2}},
	{ids: []string{"deepseek-v4-pro"}, info: Info{Window: 1_000_000, MaxOutput: 384_000, Thinking: true,
		Price: &Price{CacheHit: 0.003625, CacheMiss: 0.435, Output: 0.87}, PeakFactor: 2}},
	{ids: []string{"deepseek-chat", "deepseek-reasoner"}, info: Info{Window: DefaultWindow, Thinking: true,
		Retired: "DeepSeek retired this model name on 2026-07-24; use deepseek-v4-flash or deepseek-v4-pro"}},
}

// Preferred is the default model order, by family: the first of these
// whose family the endpoint lists under any of its names is used when no
// model is configured. Flash comes first: Pro costs about three times as
// much.
var Preferred = []string{"deepseek-v4-flash", "deepseek-v4-pro"}

// IsDeepSeek reports whether a model id names a DeepSeek model, whatever
// host or gateway serves it ("deepseek-flash", "deepseek/deepseek-v4-pro").
func IsDeepSeek(id string) bool {
	if i := strings.LastIndexByte(id, '/'); i >= 0 {
		id = id[i+1:]
	}
	return strings.HasPrefix(strings.ToLower(id), "deepseek-")
}

// Catalog answers what the bridge knows about a model: the built-in table
// overridden by the user's settings.
type Catalog struct {
	Overrides map[string]ModelSettings
}

// Lookup describes a model. Unknown DeepSeek models take thinking (the
// family's default); every other unknown model gets DefaultWindow, no
// thinking and no price.
func (c Catalog) Lookup(id string) Info {
	info := Info{ID: id, Window: DefaultWindow, Thinking: IsDeepSeek(id)}
	if f := familyOf(id); f != nil {
		info = f.info
		info.ID, info.Known = id, true
	}
	if o, ok := c.Overrides[id]; ok {
		info.Known = true
		if o.ContextWindow > 0 {
			info.Window = o.ContextWindow
		}
		if o.MaxOutput > 0 {
			info.MaxOutput = o.MaxOutput
		}
		if o.Thinking != nil {
			info.Thinking = *o.Thinking
		}
		if o.Price != nil {
			p := *o.Price
			info.Price, info.PeakFactor = &p, 0
		}
	}
	return info
}

// familyOf finds the built-in family of a model id, in any case and behind
// a gateway's prefix ("deepseek/deepseek-v4-flash"); nil when none.
func familyOf(id string) *family {
	base := id
	if i := strings.LastIndexByte(base, '/'); i >= 0 && IsDeepSeek(id) {
		base = base[i+1:]
	}
	base = strings.ToLower(base)
	for i := range builtin {
		if slices.Contains(builtin[i].ids, base) {
			return &builtin[i]
		}
	}
	return nil
}

// Default picks the model to use when none is configured: the first listed
// id of the first family of Preferred that listed holds under any name,
// else the first listed, else Preferred[0].
func Default(listed []string) string {
	for _, p := range Preferred {
		want := familyOf(p)
		for _, id := range listed {
			if want != nil && familyOf(id) == want {
				return id
			}
		}
	}
	if len(listed) > 0 {
		return listed[0]
	}
	return Preferred[0]
}

// peak reports whether t falls in DeepSeek's peak hours: 09:00–12:00 and
// 14:00–18:00 Beijing time (UTC+8), every day of the week. Source:
// DeepSeek's notice of 2026-06-29 on api-docs.deepseek.com/quick_start/pricing
// (read 2026-12-04 from the copies).
func peak(t time.Time) bool {
	h := t.UTC().Add(8 * time.Hour).Hour()
	return (h >= 9 && h < 12) || (h >= 14 && h < 18)
}

// Cost is the price of one request's usage at time t, in US dollars; ok is
// false when the model's price is unknown. Without a cache split every
// prompt token is priced as a cache miss.
func (in Info) Cost(u Usage, t time.Time) (usd float64, ok bool) {
	if in.Price == nil {
		return 0, false
	}
	p := *in.Price
	hit, miss := u.CacheHit, u.CacheMiss
	if !u.CacheKnown {
		hit, miss = 0, u.PromptTokens
	}
	usd = (float64(hit)*p.CacheHit + float64(miss)*p.CacheMiss + float64(u.CompletionTokens)*p.Output) / 1e6
	if in.PeakFactor > 1 && peak(t) {
		usd *= in.PeakFactor
	}
	return usd, true
}

// Describe is a one-line description of a model for a picker.
func (in Info) Describe() string {
	var parts []string
	if in.Window >= 1_000_000 && in.Window%1_000_000 == 0 {
		parts = append(parts, fmt.Sprintf("%dM context", in.Window/1_000_000))
	} else {
		parts = append(parts, fmt.Sprintf("%dK context", in.Window/1000))
	}
	if in.Thinking {
		parts = append(parts, "thinking")
	}
	if in.Price != nil {
		parts = append(parts, fmt.Sprintf("$%g/$%g per M tokens in/out", in.Price.CacheMiss, in.Price.Output))
	}
	return strings.Join(parts, " · ")
}
