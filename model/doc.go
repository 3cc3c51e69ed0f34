// Package model holds the model clients the agent loop talks to and what
// the bridge knows about models.
//
//   - Chat is a small client for any OpenAI-compatible chat completions API
//     (DeepSeek by default), over net/http and the SSE framing. It writes
//     each request in one pass from per-message encodings, which a
//     session's History keeps with its messages (so a request encodes and
//     sizes only the messages added since the last one), speaks
//     DeepSeek's thinking mode (reasoning_content sent back on tool-call
//     messages, thinking and reasoning_effort) only to models whose id says
//     DeepSeek, retries 429 and 5xx honouring Retry-After, and turns error
//     bodies into APIError values a person can act on. An answer's body
//     is read to its end after [DONE] while the turn goes on (release), so
//     its connection serves the next request instead of a new one and,
//     over TLS, a new handshake. A stream that brings no byte for its idle
//     limit (ChatConfig.StreamIdle) is cut, as DeepSeek's sometimes stop
//     without ending.
//   - Script replays a JSONL script with no network; a title request
//     (IsTitleRequest) takes none of its turns.
//   - The catalogue (Lookup) knows each model family's context window,
//     maximum output, thinking support and prices; Settings override it
//     from the user's settings file.
//   - Compact shrinks a history that no longer fits its window.
package model
