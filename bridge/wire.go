package bridge

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/dsh-bridge/dsh-bridge/card"
	"github.com/dsh-bridge/dsh-bridge/model"
)

// ACP v1 wire types the bridge reads and writes (the subset it uses).

type clientCapabilities struct {
	FS struct {
		ReadTextFile  bool `json:"readTextFile"`
		WriteTextFile bool `json:"writeTextFile"`
	} `json:"fs"`
	Terminal bool `json:"terminal"`
	Session  struct {
		// Compaction is non-nil when the client takes compaction_update.
		Compaction *json.RawMessage `json:"compaction"`
	} `json:"session"`
	Auth struct {
		Terminal bool `json:"terminal"`
	} `json:"auth"`
	// Elicitation.Form is non-nil when the client takes form elicitations
	// (elicitation/create, mode "form").
	Elicitation struct {
		Form *json.RawMessage `json:"form"`
	} `json:"elicitation"`
	// Plan is non-nil when the client takes plan_update and plan_removed.
	Plan *json.RawMessage `json:"plan"`
	// Subagents is non-nil when the client takes subagent_update.
	Subagents *json.RawMessage `json:"subagents"`
	Meta      map[string]any   `json:"_meta"`
}

// dsh is the client's `_meta.dsh` object (docs/meta-dsh.md), nil when it
// sent none.
func (c clientCapabilities) dsh() map[string]any {
	d, _ := c.Meta["dsh"].(map[string]any)
	return d
}

// rendersCards reports whether the client renders `_meta.dsh` cards: it
// advertised `_meta.dsh.version` 1 (docs/meta-dsh.md). Such a client is
// not sent a read's or a search's text twice.
func (c clientCapabilities) rendersCards() bool { return c.dsh()["version"] == float64(1) }

// packsTokens reports whether the client asked for its syntax tokens
// packed (`_meta.dsh.packedTokens: true`); only a client that renders
// cards is sent tokens at all (tokenizerFor).
func (c clientCapabilities) packsTokens() bool { return c.dsh()["packedTokens"] == true }

type initializeParams struct {
	ProtocolVersion    *int               `json:"protocolVersion"`
	ClientCapabilities clientCapabilities `json:"clientCapabilities"`
}

type implementation struct {
	Name    string `json:"name"`
	Title   string `json:"title,omitempty"`
	Version string `json:"version"`
}

type initializeResult struct {
	ProtocolVersion   int            `json:"protocolVersion"`
	AgentCapabilities map[string]any `json:"agentCapabilities"`
	AuthMethods       []authMethod   `json:"authMethods"`
	AgentInfo         implementation `json:"agentInfo"`
}

type newSessionParams struct {
	Cwd                   string             `json:"cwd"`
	MCPServers            []json.RawMessage  `json:"mcpServers"`
	AdditionalDirectories []string           `json:"additionalDirectories"`
	SystemPrompt          *systemPromptParam `json:"systemPrompt"`
}

type sessionMode struct {
	ID          string `json:"id"`
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
}

type modeState struct {
	CurrentModeID  string        `json:"currentModeId"`
	AvailableModes []sessionMode `json:"availableModes"`
}

type selectOption struct {
	Value       string `json:"value"`
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
}

type configOption struct {
	ID           string         `json:"id"`
	Name         string         `json:"name"`
	Description  string         `json:"description,omitempty"`
	Category     string         `json:"category,omitempty"`
	Type         string         `json:"type"`
	CurrentValue string         `json:"currentValue"`
	Options      []selectOption `json:"options"`
}

type newSessionResult struct {
	SessionID     string         `json:"sessionId"`
	Modes         modeState      `json:"modes"`
	ConfigOptions []configOption `json:"configOptions"`
}

type sessionParams struct {
	SessionID string `json:"sessionId"`
}

// promptParams is a PromptRequest. MessageID is the client's id for the
// user message, from the message-id RFD (agentclientprotocol PR 536,
// "docs(rfd): introduce messageId field", read 2026-12-07; unstable):
// used when it is a valid name, else the bridge makes one.
type promptParams struct {
	SessionID string         `json:"sessionId"`
	Prompt    []card.Content `json:"prompt"`
	MessageID string         `json:"messageId"`
}

// promptResult is a PromptResponse; _meta.dsh.userMessageId is the id of
// the user message the turn answered (what _dsh/session/rewind takes).
type promptResult struct {
	StopReason string         `json:"stopReason"`
	Usage      *turnUsage     `json:"usage,omitempty"`
	Meta       map[string]any `json:"_meta,omitempty"`
}

// turnUsage is PromptResponse.usage: the tokens of every model request a
// turn made (compaction summaries and its subagents' requests included;
// the title request is in no turn's). The shape is ACP's Usage, UNSTABLE
// in the SDK's v1 schema.unstable.json (agentclientprotocol/
// agent-client-protocol, schema/v1/schema.unstable.json as of commit
// bb2ef8f, 2026-08-20, read 2026-12-07); the stable schema.json we follow
// has no usage yet, and allows the property. outputTokens are the
// completion tokens as the API counts them, thinking included;
// thoughtTokens are the part of them spent thinking, and totalTokens
// is input plus output.
type turnUsage struct {
	TotalTokens      int64  `json:"totalTokens"`
	InputTokens      int64  `json:"inputTokens"`
	OutputTokens     int64  `json:"outputTokens"`
	ThoughtTokens    int64  `json:"thoughtTokens"`
	CachedReadTokens *int64 `json:"cachedReadTokens,omitempty"` // nil: the API did not split the prompt
	requests         int    // responses that reported usage
	responses        int    // responses, with usage or without (a scripted model's)
}

// add counts one response's usage.
func (u *turnUsage) add(m model.Usage) {
	u.responses++
	if m.PromptTokens == 0 && m.CompletionTokens == 0 {
		return
	}
	u.requests++
	u.InputTokens += m.PromptTokens
	u.OutputTokens += m.CompletionTokens
	u.TotalTokens = u.InputTokens + u.OutputTokens
	u.ThoughtTokens += m.ReasoningTokens
	if m.CacheKnown {
		if u.CachedReadTokens == nil {
			u.CachedReadTokens = new(int64)
		}
		*u.CachedReadTokens += m.CacheHit
	}
}

// result is the usage to answer with: nil for a turn that made no
// request that reported usage.
func (u turnUsage) result() *turnUsage {
	if u.requests == 0 {
		return nil
	}
	return &u
}

type setModeParams struct {
	SessionID string `json:"sessionId"`
	ModeID    string `json:"modeId"`
}

type setConfigParams struct {
	SessionID string          `json:"sessionId"`
	ConfigID  string          `json:"configId"`
	Value     json.RawMessage `json:"value"`
}

type setConfigResult struct {
	ConfigOptions []configOption `json:"configOptions"`
}

type cancelRequestParams struct {
	RequestID json.RawMessage `json:"requestId"`
}

type permissionOption struct {
	OptionID string `json:"optionId"`
	Name     string `json:"name"`
	Kind     string `json:"kind"`
	Meta     any    `json:"_meta,omitempty"`
}

type permissionResponse struct {
	Outcome struct {
		Outcome  string `json:"outcome"`
		OptionID string `json:"optionId"`
	} `json:"outcome"`
}

// answerHunks is a permission answer's _meta.dsh.hunks, raw: the hunks
// accepted of a proposal (docs/meta-dsh.md); nil when absent or null.
// The keys are matched exactly (encoding/json would take "_META" or
// "HUNKS" too). Malformed _meta is ignored, as the schema says.
func answerHunks(answer json.RawMessage) json.RawMessage {
	v := answer
	for _, key := range []string{"_meta", "dsh", "hunks"} {
		var m map[string]json.RawMessage
		if json.Unmarshal(v, &m) != nil {
			return nil
		}
		v = m[key]
	}
	if len(v) == 0 || string(v) == "null" {
		return nil
	}
	return v
}

// hunkIndices decodes a selection (_meta.dsh.hunks) strictly: a JSON
// list whose every element is a JSON integer without fraction or
// exponent ("-0" included in the refusal, as no index is written so), in
// the range of int. Anything else is errNotHunkList, wrapping
// errNotInteger too when an element is wrong (null, a string, 1.0):
// encoding/json alone would take null for 0.
func hunkIndices(selected json.RawMessage) ([]int, error) {
	var elems []json.RawMessage
	if json.Unmarshal(selected, &elems) != nil || elems == nil {
		return nil, errNotHunkList
	}
	out := make([]int, 0, len(elems))
	for _, e := range elems {
		k, ok := jsonInteger(bytes.TrimSpace(e))
		if !ok {
			return nil, fmt.Errorf("%w: %s is %w", errNotHunkList, e, errNotInteger)
		}
		out = append(out, k)
	}
	return out, nil
}

// jsonInteger is b as an int when b is a JSON integer: 0, or an optional
// minus and digits not starting with 0, in the range of int.
func jsonInteger(b []byte) (int, bool) {
	digits := b
	if len(digits) > 0 && digits[0] == '-' {
		digits = digits[1:]
	}
	if len(digits) == 0 || (digits[0] == '0' && len(b) > 1) {
		return 0, false
	}
	for _, c := range digits {
		if c < '0' || c > '9' {
			return 0, false
		}
	}
	k, err := strconv.Atoi(string(b))
	return k, err == nil
}

// sessionNotification is the params of session/update.
type sessionNotification struct {
	SessionID string `json:"sessionId"`
	Update    any    `json:"update"`
}

// contentChunk is the stable schema's ContentChunk, with its messageId
// (schema.json's ContentChunk.messageId, ../shared/acp/schema.json read
// 2026-12-07): every chunk of one message carries the same id.
type contentChunk struct {
	SessionUpdate string       `json:"sessionUpdate"`
	Content       card.Content `json:"content"`
	MessageID     string       `json:"messageId,omitempty"`
}

type usageUpdate struct {
	SessionUpdate string    `json:"sessionUpdate"`
	Used          int64     `json:"used"`
	Size          int64     `json:"size"`
	Cost          *costInfo `json:"cost,omitempty"`
}

type costInfo struct {
	Amount   float64 `json:"amount"`
	Currency string  `json:"currency"`
}

type compactionUpdate struct {
	SessionUpdate string         `json:"sessionUpdate"`
	CompactionID  string         `json:"compactionId"`
	Status        string         `json:"status"`
	Summary       []card.Content `json:"summary,omitempty"`
	Error         string         `json:"error,omitempty"`
}

type noticeUpdate struct {
	SessionUpdate string `json:"sessionUpdate"`
	Severity      string `json:"severity"`
	Title         string `json:"title"`
	Description   string `json:"description,omitempty"`
}

type currentModeUpdate struct {
	SessionUpdate string `json:"sessionUpdate"`
	CurrentModeID string `json:"currentModeId"`
}

type configOptionUpdate struct {
	SessionUpdate string         `json:"sessionUpdate"`
	ConfigOptions []configOption `json:"configOptions"`
}
