package mcptools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/dsh-bridge/dsh-bridge/card"
	"github.com/dsh-bridge/dsh-bridge/jsonv"
	"github.com/dsh-bridge/dsh-bridge/registry"
)

// define turns one MCP tool into a raw registry tool.
func (s *server) define(t *mcp.Tool) *registry.Tool {
	s.m.mu.Lock()
	name := s.m.names.name(s.cfg.Name, t.Name)
	s.m.mu.Unlock()
	params := inputSchema(t.InputSchema)
	title := s.cfg.Name + " · " + t.Name
	if t.Title != "" {
		title = s.cfg.Name + " · " + t.Title
	}
	desc := t.Description
	if desc == "" {
		desc = "The " + t.Name + " tool of the MCP server " + s.cfg.Name + "."
	}
	timeout := s.cfg.Timeout
	if timeout <= 0 {
		timeout = DefaultCallTimeout
	}
	remote := t.Name
	var output *registry.Schema
	if t.OutputSchema != nil {
		output = argsSchema(inputSchema(t.OutputSchema))
	}
	return &registry.Tool{
		Name:        name,
		Description: desc,
		Parameters:  params,
		Args:        argsSchema(params),
		Output: registry.Output{
			Schema: jsonv.MustParse(`{}`),
			Render: renderResult,
		},
		Execute: func(ctx context.Context, args jsonv.Value, run registry.RunContext) (jsonv.Value, error) {
			return s.call(ctx, remote, name, run.Execution().CallID, args, output)
		},
		Timeout: timeout,
		Effect:  effectOf(t.Annotations, s.cfg.TrustAnnotations),
		PresentCall: func(args jsonv.Value) card.CallView {
			return &card.Generic{Title: title, Kind: kindOf(t.Annotations, s.cfg.TrustAnnotations), RawInput: args}
		},
	}
}

// effectOf maps MCP annotations to the permission classes: readOnlyHint is
// a read; destructiveHint false (it defaults to true) an edit, which
// acceptEdits lets run; anything else the most careful class. Annotations
// count only when the server is trusted for them; otherwise every tool is
// the most careful class (refused in plan mode, asked in the others).
func effectOf(a *mcp.ToolAnnotations, trusted bool) registry.Effect {
	switch {
	case a == nil || !trusted:
		return registry.EffectUnknown
	case a.ReadOnlyHint:
		return registry.EffectRead
	case a.DestructiveHint != nil && !*a.DestructiveHint:
		return registry.EffectEdit
	}
	return registry.EffectUnknown
}

// kindOf is the card's kind: a read only when the server is trusted to
// say so, since the card is what the person approves.
func kindOf(a *mcp.ToolAnnotations, trusted bool) card.Kind {
	if trusted && a != nil && a.ReadOnlyHint {
		return card.KindRead
	}
	return card.KindOther
}

// call runs one tool call. The canonical value is {"content": [...]} plus
// "structured" when the server returned structuredContent; isError is a
// failed result whose message is the server's text.
func (s *server) call(ctx context.Context, tool, name, callID string, args jsonv.Value, output *registry.Schema) (jsonv.Value, error) {
	cs, err := s.current()
	if err != nil {
		return jsonv.Value{}, err
	}
	var a map[string]any
	if args.IsValid() {
		if err := json.Unmarshal(args.Bytes(), &a); err != nil {
			return jsonv.Value{}, fmt.Errorf("the arguments are not a JSON object: %w", err)
		}
	}
	params := &mcp.CallToolParams{Name: tool, Arguments: a}
	if callID != "" {
		params.SetProgressToken(progressPrefix + callID)
	}
	res, err := cs.CallTool(ctx, params)
	if ctx.Err() != nil {
		return jsonv.Value{}, ctx.Err() // the SDK told the server (notifications/cancelled)
	}
	if errors.Is(err, mcp.ErrConnectionClosed) {
		// The server went away before or during the call (a crash its
		// watcher has not marked yet): the same failure as a call while
		// it is down.
		return jsonv.Value{}, s.unavailable(err)
	}
	if err != nil {
		return jsonv.Value{}, fmt.Errorf("the MCP server %q failed the call: %w", s.cfg.Name, err)
	}
	blocks, err := contentBlocks(res.Content)
	if err != nil {
		return jsonv.Value{}, err
	}
	if res.IsError {
		msg := blocksText(blocks)
		if msg == "" {
			msg = "the tool reported an error"
		}
		return jsonv.Value{}, errors.New(msg)
	}
	value := map[string]any{"content": blocks}
	if res.StructuredContent != nil {
		sv, err := jsonv.FromGo(res.StructuredContent)
		if err != nil {
			return jsonv.Value{}, fmt.Errorf("the structured result is not lossless JSON: %w", err)
		}
		if output != nil {
			if v := output.Validate(sv, "structuredContent"); len(v) > 0 {
				return jsonv.Value{}, registry.OutputError(name, v)
			}
		}
		value["structured"] = sv
	}
	return jsonv.FromGo(value)
}

// contentBlocks converts MCP content to ACP content blocks (the shapes are
// the same: text, image, audio, resource_link, resource).
func contentBlocks(content []mcp.Content) ([]card.Content, error) {
	out := make([]card.Content, 0, len(content))
	for _, c := range content {
		b, err := json.Marshal(c)
		if err != nil {
			return nil, fmt.Errorf("unreadable content from the server: %w", err)
		}
		v, err := jsonv.Parse(b)
		if err != nil {
			return nil, fmt.Errorf("unreadable content from the server: %w", err)
		}
		block, err := card.ContentFromValue(v)
		if err != nil {
			out = append(out, card.Text(string(b))) // an unknown kind: show it as JSON
			continue
		}
		out = append(out, block)
	}
	return out, nil
}

func blocksText(blocks []card.Content) string {
	var parts []string
	for _, b := range blocks {
		if b.Type() == card.TypeText {
			parts = append(parts, b.TextValue())
		}
	}
	return strings.Join(parts, "\n")
}

// renderResult is the model-facing content: the server's blocks, or the
// structured value as JSON when there are none.
func renderResult(_, v jsonv.Value) ([]card.Content, error) {
	content, _ := v.Get("content")
	blocks, err := card.ContentsFromValue(content)
	if err != nil {
		return nil, err
	}
	if len(blocks) == 0 {
		if sv, ok := v.Get("structured"); ok {
			return []card.Content{card.Text(sv.String())}, nil
		}
		return []card.Content{card.Text("(no content)")}, nil
	}
	return blocks, nil
}
