package model

import (
	"encoding/json"
	"reflect"
	"testing"
)

// realChunks are events as DeepSeek and OpenAI stream them today: each a
// whole envelope, a token of text, reasoning or arguments at a time.
var realChunks = []string{
	`{"id":"3c5a0f7e","object":"chat.completion.chunk","created":1764590000,"model":"deepseek-v4-pro","system_fingerprint":"fp_ffc7281d48_prod0820_fp8_kvcache","choices":[{"index":0,"delta":{"role":"assistant","content":null,"reasoning_content":""},"logprobs":null,"finish_reason":null}]}`,
	`{"id":"3c5a0f7e","object":"chat.completion.chunk","created":1764590000,"model":"deepseek-v4-pro","system_fingerprint":"fp_ffc7281d48_prod0820_fp8_kvcache","choices":[{"index":0,"delta":{"content":null,"reasoning_content":" file"},"logprobs":null,"finish_reason":null}]}`,
	`{"id":"3c5a0f7e","object":"chat.completion.chunk","created":1764590000,"model":"deepseek-v4-pro","system_fingerprint":"fp_ffc7281d48_prod0820_fp8_kvcache","choices":[{"index":0,"delta":{"content":"Read\u00e9 \"a\"\\\n"},"logprobs":null,"finish_reason":null}]}`,
	`{"id":"3c5a0f7e","object":"chat.completion.chunk","created":1764590000,"model":"deepseek-v4-pro","system_fingerprint":"fp_ffc7281d48_prod0820_fp8_kvcache","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_00_Hq4sQ6vx","type":"function","function":{"name":"read","arguments":""}}]},"logprobs":null,"finish_reason":null}]}`,
	`{"id":"3c5a0f7e","object":"chat.completion.chunk","created":1764590000,"model":"deepseek-v4-pro","system_fingerprint":"fp_ffc7281d48_prod0820_fp8_kvcache","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"file"}}]},"logprobs":null,"finish_reason":null}]}`,
	`{"id":"3c5a0f7e","object":"chat.completion.chunk","created":1764590000,"model":"deepseek-v4-pro","system_fingerprint":"fp_ffc7281d48_prod0820_fp8_kvcache","choices":[{"index":0,"delta":{"content":"","tool_calls":[{"index":1,"function":{"arguments":"😀\ud83d\ude00"}}]},"logprobs":null,"finish_reason":"tool_calls"}]}`,
	`{"id":"3c5a0f7e","object":"chat.completion.chunk","created":1764590000,"model":"deepseek-v4-pro","system_fingerprint":"fp_ffc7281d48_prod0820_fp8_kvcache","choices":[],"usage":{"prompt_tokens":2847,"completion_tokens":12,"total_tokens":2859,"prompt_tokens_details":{"cached_tokens":2816},"completion_tokens_details":{"reasoning_tokens":4},"prompt_cache_hit_tokens":2816,"prompt_cache_miss_tokens":31}}`,
	`{"id":"chatcmpl-Bx1","object":"chat.completion.chunk","created":1764590000,"model":"gpt-5.1","service_tier":"default","system_fingerprint":null,"choices":[{"index":0,"delta":{"role":"assistant","content":"","refusal":null},"logprobs":null,"finish_reason":null}],"usage":null,"obfuscation":"x9"}`,
	`{"error":{"message":"Internal error","type":"server_error","code":null}}`,
	` { "model" : "m" , "choices" : [ { "delta" : { "content" : "a" } , "finish_reason" : "stop" } ] } `,
	`{}`,
}

func TestDecodeChunk_RealEventsTakeTheFastPath(t *testing.T) {
	for i, ev := range realChunks {
		var fast, std chunk
		if !fastChunk([]byte(ev), &fast) {
			t.Errorf("event %d fell back to encoding/json: %s", i, ev)
			continue
		}
		if err := json.Unmarshal([]byte(ev), &std); err != nil {
			t.Fatalf("event %d: %v", i, err)
		}
		if !reflect.DeepEqual(fast, std) {
			t.Errorf("event %d: fast %+v, encoding/json %+v", i, fast, std)
		}
		// decodeChunk takes the fast path too: it allocates no more than
		// the fast path alone (encoding/json allocates more).
		var c chunk
		alone := testing.AllocsPerRun(20, func() { fastChunk([]byte(ev), &c) })
		if n := testing.AllocsPerRun(20, func() { decodeChunk([]byte(ev), &c) }); n > alone {
			t.Errorf("event %d: decodeChunk made %v allocations, the fast path %v: it fell back", i, n, alone)
		}
	}
}

// TestDecodeChunk_AnswersAsEncodingJSON covers what the fast path must
// leave to encoding/json, and checks decodeChunk's answer is its answer.
func TestDecodeChunk_AnswersAsEncodingJSON(t *testing.T) {
	tests := []struct {
		name, event string
		fast        bool // the fast path decodes it itself
	}{
		{"key in another case", `{"Model":"m"}`, false},
		{"key given twice", `{"model":"a","model":"b"}`, false},
		{"index null", `{"choices":[{"delta":{"tool_calls":[{"index":null}]}}]}`, false},
		{"index fraction", `{"choices":[{"delta":{"tool_calls":[{"index":1.5}]}}]}`, false},
		{"index exponent", `{"choices":[{"delta":{"tool_calls":[{"index":1e2}]}}]}`, false},
		{"index too large", `{"choices":[{"delta":{"tool_calls":[{"index":9223372036854775808}]}}]}`, false},
		{"index smallest", `{"choices":[{"delta":{"tool_calls":[{"index":-9223372036854775808}]}}]}`, true},
		{"index largest", `{"choices":[{"delta":{"tool_calls":[{"index":9223372036854775807}]}}]}`, true},
		{"tokens negative zero", `{"usage":{"prompt_tokens":-0}}`, true},
		{"content a number", `{"choices":[{"delta":{"content":5}}]}`, false},
		{"content null", `{"choices":[{"delta":{"content":null}}]}`, true},
		{"invalid UTF-8", "{\"model\":\"a\xffb\"}", false},
		{"invalid UTF-8 skipped", "{\"id\":\"a\xffb\"}", false},
		{"lone surrogate", `{"model":"\ud83d"}`, false},
		{"low surrogate first", `{"model":"\ude00\ud83d"}`, false},
		{"bad escape", `{"model":"\x"}`, false},
		{"control character", "{\"model\":\"a\tb\"}", false},
		{"trailing comma", `{"model":"a",}`, false},
		{"trailing data", `{"model":"a"} x`, false},
		{"two values", `{}{}`, false},
		{"leading zero", `{"created":01}`, false},
		{"bare minus", `{"created":-}`, false},
		{"top-level null", `null`, false},
		{"top-level array", `[]`, false},
		{"unterminated", `{"model":"a`, false},
		{"literal cut", `{"x":tru}`, false},
		{"nested unknowns", `{"x":{"a":[1,-2.5e+3,true,false,null,{"b":"\u00e9"}]},"model":"m"}`, true},
		{"usage pointers null", `{"usage":{"prompt_cache_hit_tokens":null,"prompt_tokens_details":null}}`, true},
		{"usage null", `{"usage":null,"error":null,"choices":null}`, true},
		{"function null", `{"choices":[{"delta":{"tool_calls":[{"index":0,"function":null}]}}]}`, true},
		{"escapes", `{"model":"\"\\\/\b\f\n\r\t\u0000\u20ac"}`, true},
		{"empty", ``, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var fast chunk
			if got := fastChunk([]byte(tt.event), &fast); got != tt.fast {
				t.Errorf("fast path taken: %v, want %v", got, tt.fast)
			}
			sameAsEncodingJSON(t, []byte(tt.event))
		})
	}
}

func sameAsEncodingJSON(t *testing.T, event []byte) {
	t.Helper()
	var got, want chunk
	err := decodeChunk(event, &got)
	werr := json.Unmarshal(event, &want)
	if (err == nil) != (werr == nil) {
		t.Fatalf("error %v, encoding/json's %v", err, werr)
	}
	if err == nil && !reflect.DeepEqual(got, want) {
		t.Fatalf("decoded %+v, encoding/json %+v", got, want)
	}
}

func FuzzDecodeChunk(f *testing.F) {
	for _, ev := range realChunks {
		f.Add([]byte(ev))
	}
	f.Add([]byte(`{"choices":[{"delta":{"tool_calls":[{"index":2,"id":"x","function":{"name":"n","arguments":"{\"a\":1}"}}]}}]}`))
	f.Fuzz(func(t *testing.T, event []byte) {
		sameAsEncodingJSON(t, event)
	})
}

func BenchmarkDecodeChunk(b *testing.B) {
	ev := []byte(realChunks[4])
	b.Run("fast", func(b *testing.B) {
		for b.Loop() {
			var c chunk
			if err := decodeChunk(ev, &c); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("encoding-json", func(b *testing.B) {
		for b.Loop() {
			var c chunk
			if err := json.Unmarshal(ev, &c); err != nil {
				b.Fatal(err)
			}
		}
	})
}
