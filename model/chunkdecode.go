package model

import (
	"bytes"
	"encoding/json"
	"math"

	"github.com/dsh-bridge/dsh-bridge/jsonv"
)

// decodeChunk decodes one streamed event into c exactly as
// encoding/json.Unmarshal would, and in a fraction of its time: a long
// turn's answers arrive a token per event, each event a whole envelope
// (some ten of them for one tool call's arguments), and reflection made
// that the largest part of reading a stream.
//
// The fast path reads the shapes chat-completions services send: it walks
// the event once, keeps the fields of chunk and checks the syntax of the
// rest. Anything it does not handle the way encoding/json does (a key that
// matches a field only without regard to case, a key given twice, a value
// of another type, a \u escape that is not a character, invalid UTF-8,
// invalid JSON) makes it give up, and encoding/json decodes the event
// instead, so that its answer, error or not, is always encoding/json's.
func decodeChunk(data []byte, c *chunk) error {
	var fast chunk
	if fastChunk(data, &fast) {
		*c = fast
		return nil
	}
	return json.Unmarshal(data, c)
}

// fastChunk is decodeChunk's fast path: false when it gave up (c is then
// partly filled, and to be discarded).
func fastChunk(data []byte, c *chunk) bool {
	d := decoder{data: data}
	d.ws()
	ok := d.object(func(key []byte) bool {
		switch string(key) {
		case "model":
			return d.str(&c.Model)
		case "choices":
			return d.choices(c)
		case "usage":
			return d.usage(c)
		case "error":
			if d.null() {
				c.Error = nil
				return true
			}
			c.Error = &chunkError{}
			return d.object(func(key []byte) bool {
				if string(key) == "message" {
					return d.str(&c.Error.Message)
				}
				return d.other(key, "message")
			})
		}
		return d.other(key, "model", "choices", "usage", "error")
	})
	if !ok {
		return false
	}
	d.ws()
	return d.i == len(d.data)
}

func (d *decoder) choices(c *chunk) bool {
	if d.null() {
		c.Choices = nil
		return true
	}
	c.Choices = make([]chunkChoice, 0, 1) // [] is an empty slice, not nil
	return d.array(func() bool {
		c.Choices = append(c.Choices, chunkChoice{})
		ch := &c.Choices[len(c.Choices)-1]
		return d.object(func(key []byte) bool {
			switch string(key) {
			case "finish_reason":
				return d.str(&ch.FinishReason)
			case "delta":
				if d.null() {
					return true
				}
				dl := &ch.Delta
				return d.object(func(key []byte) bool {
					switch string(key) {
					case "content":
						return d.str(&dl.Content)
					case "reasoning_content":
						return d.str(&dl.ReasoningContent)
					case "tool_calls":
						return d.toolCalls(&dl.ToolCalls)
					}
					return d.other(key, "content", "reasoning_content", "tool_calls")
				})
			}
			return d.other(key, "finish_reason", "delta")
		})
	})
}

func (d *decoder) toolCalls(calls *[]toolCallDelta) bool {
	if d.null() {
		*calls = nil
		return true
	}
	*calls = make([]toolCallDelta, 0, 1)
	return d.array(func() bool {
		*calls = append(*calls, toolCallDelta{})
		tc := &(*calls)[len(*calls)-1]
		return d.object(func(key []byte) bool {
			switch string(key) {
			case "index":
				n, ok := d.int()
				tc.Index = int(n)
				return ok
			case "id":
				return d.str(&tc.ID)
			case "function":
				if d.null() {
					return true
				}
				return d.object(func(key []byte) bool {
					switch string(key) {
					case "name":
						return d.str(&tc.Function.Name)
					case "arguments":
						return d.str(&tc.Function.Arguments)
					}
					return d.other(key, "name", "arguments")
				})
			}
			return d.other(key, "index", "id", "function")
		})
	})
}

func (d *decoder) usage(c *chunk) bool {
	if d.null() {
		c.Usage = nil
		return true
	}
	u := &chunkUsage{}
	c.Usage = u
	optional := func(p **int64) bool {
		if d.null() {
			*p = nil
			return true
		}
		n, ok := d.int()
		*p = &n
		return ok
	}
	return d.object(func(key []byte) bool {
		switch string(key) {
		case "prompt_tokens":
			return d.int64(&u.PromptTokens)
		case "completion_tokens":
			return d.int64(&u.CompletionTokens)
		case "total_tokens":
			return d.int64(&u.TotalTokens)
		case "prompt_cache_hit_tokens":
			return optional(&u.PromptCacheHitTokens)
		case "prompt_cache_miss_tokens":
			return optional(&u.PromptCacheMissTokens)
		case "prompt_tokens_details":
			if d.null() {
				u.PromptTokensDetails = nil
				return true
			}
			u.PromptTokensDetails = &cachedTokens{}
			return d.object(func(key []byte) bool {
				if string(key) == "cached_tokens" {
					return d.int64(&u.PromptTokensDetails.CachedTokens)
				}
				return d.other(key, "cached_tokens")
			})
		}
		return d.other(key, "prompt_tokens", "completion_tokens", "total_tokens",
			"prompt_cache_hit_tokens", "prompt_cache_miss_tokens", "prompt_tokens_details")
	})
}

// decoder reads JSON from data; every method returns false to give up.
type decoder struct {
	data []byte
	i    int
}

func (d *decoder) ws() {
	for d.i < len(d.data) {
		switch d.data[d.i] {
		case ' ', '\t', '\n', '\r':
			d.i++
		default:
			return
		}
	}
}

// peek is the next byte after white space, or 0 at the end.
func (d *decoder) peek() byte {
	d.ws()
	if d.i < len(d.data) {
		return d.data[d.i]
	}
	return 0
}

// other skips the value of key, a key of no field, or gives up when key
// matches one of fields but for case (encoding/json would fill it).
func (d *decoder) other(key []byte, fields ...string) bool {
	for _, f := range fields {
		if bytes.EqualFold(key, []byte(f)) {
			return false
		}
	}
	return d.skip(0)
}

// object reads an object, calling member for each key with the value
// next; a key given twice gives up.
func (d *decoder) object(member func(key []byte) bool) bool {
	if d.peek() != '{' {
		return false
	}
	d.i++
	var buf [8][]byte // the keys read so far: an event's objects have few
	seen := buf[:0]
	if d.peek() == '}' {
		d.i++
		return true
	}
	for {
		if d.peek() != '"' {
			return false
		}
		key, ok := d.strBytes()
		if !ok {
			return false
		}
		for _, k := range seen {
			if bytes.Equal(k, key) {
				return false
			}
		}
		seen = append(seen, key)
		if d.peek() != ':' {
			return false
		}
		d.i++
		if !member(key) {
			return false
		}
		switch d.peek() {
		case ',':
			d.i++
		case '}':
			d.i++
			return true
		default:
			return false
		}
	}
}

// array reads an array, calling elem with each element next.
func (d *decoder) array(elem func() bool) bool {
	if d.peek() != '[' {
		return false
	}
	d.i++
	if d.peek() == ']' {
		d.i++
		return true
	}
	for {
		if !elem() {
			return false
		}
		switch d.peek() {
		case ',':
			d.i++
		case ']':
			d.i++
			return true
		default:
			return false
		}
	}
}

// null consumes a null.
func (d *decoder) null() bool {
	return d.peek() == 'n' && d.word("null")
}

// str reads a string into *s; null leaves *s as it is.
func (d *decoder) str(s *string) bool {
	if d.null() {
		return true
	}
	b, ok := d.strBytes()
	if ok {
		*s = string(b)
	}
	return ok
}

// strBytes reads a string: its bytes in data when it has no escapes,
// else a copy unescaped. A string jsonv refuses (invalid UTF-8, a lone
// surrogate escape) gives up: encoding/json would replace what it can.
func (d *decoder) strBytes() ([]byte, bool) {
	if d.peek() != '"' {
		return nil, false
	}
	text, end, ok := jsonv.ReadString(d.data, d.i)
	d.i = end
	return text, ok
}

// int reads a JSON integer that fits int64; a fraction, an exponent or a
// number out of range gives up (encoding/json refuses them for an int).
func (d *decoder) int() (int64, bool) {
	d.ws()
	start := d.i
	if d.i < len(d.data) && d.data[d.i] == '-' {
		d.i++
	}
	digits := d.i
	for d.i < len(d.data) && d.data[d.i] >= '0' && d.data[d.i] <= '9' {
		d.i++
	}
	if d.i == digits || (d.data[digits] == '0' && d.i > digits+1) {
		return 0, false
	}
	if d.i < len(d.data) {
		switch d.data[d.i] {
		case '.', 'e', 'E':
			return 0, false
		}
	}
	// Accumulate negatively: -9223372036854775808 fits, its opposite not.
	var n int64
	for _, b := range d.data[digits:d.i] {
		v := int64(b - '0')
		if n < (math.MinInt64+v)/10 {
			return 0, false
		}
		n = n*10 - v
	}
	if start == digits { // no minus sign
		if n == math.MinInt64 {
			return 0, false
		}
		n = -n
	}
	return n, true
}

// int64 reads an integer into *p; null leaves *p as it is.
func (d *decoder) int64(p *int64) bool {
	if d.null() {
		return true
	}
	n, ok := d.int()
	*p = n
	return ok
}

// maxDepth bounds skip's nesting, as encoding/json bounds its own.
const maxDepth = 1000

// skip checks and passes over any one value.
func (d *decoder) skip(depth int) bool {
	if depth > maxDepth {
		return false
	}
	switch d.peek() {
	case '{':
		return d.object(func([]byte) bool { return d.skip(depth + 1) })
	case '[':
		return d.array(func() bool { return d.skip(depth + 1) })
	case '"':
		_, ok := d.strBytes()
		return ok
	case 't':
		return d.word("true")
	case 'f':
		return d.word("false")
	case 'n':
		return d.null()
	}
	end := jsonv.ScanNumber(d.data, d.i)
	if end < 0 {
		return false
	}
	d.i = end
	return true
}

func (d *decoder) word(w string) bool {
	if bytes.HasPrefix(d.data[d.i:], []byte(w)) {
		d.i += len(w)
		return true
	}
	return false
}
