package model

import (
	"context"
	"math"
	"net/http"
	"testing"
	"time"
)

// TestChat_UsageSplit: every spelling of a cache split the API sends
// divides the prompt tokens once, so hits plus misses are the prompt
// tokens and no token is priced as both.
func TestChat_UsageSplit(t *testing.T) {
	const head = `{"id":"x","object":"chat.completion.chunk","created":1,"model":"m","choices":[],"usage":`
	for _, tc := range []struct {
		name  string
		usage string
		want  Usage
	}{
		{"DeepSeek fields", `{"prompt_tokens":300,"completion_tokens":4,"total_tokens":304,"prompt_cache_hit_tokens":256,"prompt_cache_miss_tokens":44}`,
			Usage{PromptTokens: 300, CompletionTokens: 4, TotalTokens: 304, CacheHit: 256, CacheMiss: 44, CacheKnown: true}},
		{"OpenAI cached_tokens only", `{"prompt_tokens":2847,"completion_tokens":12,"total_tokens":2859,"prompt_tokens_details":{"cached_tokens":2816}}`,
			Usage{PromptTokens: 2847, CompletionTokens: 12, TotalTokens: 2859, CacheHit: 2816, CacheMiss: 31, CacheKnown: true}},
		{"OpenAI cached_tokens before other details", `{"prompt_tokens_details":{"cached_tokens":100,"audio_tokens":0},"prompt_tokens":1000,"completion_tokens":1,"total_tokens":1001}`,
			Usage{PromptTokens: 1000, CompletionTokens: 1, TotalTokens: 1001, CacheHit: 100, CacheMiss: 900, CacheKnown: true}},
		{"OpenAI nothing cached", `{"prompt_tokens":500,"completion_tokens":2,"total_tokens":502,"prompt_tokens_details":{"cached_tokens":0}}`,
			Usage{PromptTokens: 500, CompletionTokens: 2, TotalTokens: 502, CacheHit: 0, CacheMiss: 500, CacheKnown: true}},
		{"both spellings: DeepSeek's split wins", `{"prompt_tokens":2847,"completion_tokens":12,"total_tokens":2859,"prompt_tokens_details":{"cached_tokens":2816},"prompt_cache_hit_tokens":2816,"prompt_cache_miss_tokens":31}`,
			Usage{PromptTokens: 2847, CompletionTokens: 12, TotalTokens: 2859, CacheHit: 2816, CacheMiss: 31, CacheKnown: true}},
		{"no split", `{"prompt_tokens":70,"completion_tokens":3,"total_tokens":73}`,
			Usage{PromptTokens: 70, CompletionTokens: 3, TotalTokens: 73}},
		{"details null", `{"prompt_tokens":70,"completion_tokens":3,"total_tokens":73,"prompt_tokens_details":null}`,
			Usage{PromptTokens: 70, CompletionTokens: 3, TotalTokens: 73}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newChat(t, func(w http.ResponseWriter, r *http.Request) {
				sse(w, delta(`{"content":"ok"}`, "stop"), head+tc.usage+`}`)
			}, ChatConfig{Model: "m"})
			resp, err := c.Complete(context.Background(), Request{Messages: []Message{{Role: "user", Content: "u"}}}, Handler{})
			if err != nil {
				t.Fatal(err)
			}
			if got := resp.Usage; got != tc.want {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
			if u := resp.Usage; u.CacheKnown && u.CacheHit+u.CacheMiss != u.PromptTokens {
				t.Errorf("got hits %d + misses %d, want %d prompt tokens", u.CacheHit, u.CacheMiss, u.PromptTokens)
			}
			// Priced at 1, 2 and 4 dollars per million: each prompt token
			// costs once, at the hit or the miss price.
			in := Info{Price: &Price{CacheHit: 1, CacheMiss: 2, Output: 4}}
			got, _ := in.Cost(resp.Usage, time.Time{})
			want := float64(tc.want.CacheHit*1+tc.want.CacheMiss*2+tc.want.CompletionTokens*4) / 1e6
			if !tc.want.CacheKnown {
				want = float64(tc.want.PromptTokens*2+tc.want.CompletionTokens*4) / 1e6
			}
			if math.Abs(got-want) > 1e-15 {
				t.Errorf("got cost %v, want %v", got, want)
			}
		})
	}
}
