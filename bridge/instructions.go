package bridge

import (
	"context"
	"runtime"
	"strings"
	"time"

	"github.com/dsh-bridge/dsh-bridge/acp"
	"github.com/dsh-bridge/dsh-bridge/card"
	"github.com/dsh-bridge/dsh-bridge/instructions"
	"github.com/dsh-bridge/dsh-bridge/internal/folders"
	"github.com/dsh-bridge/dsh-bridge/model"
	"github.com/dsh-bridge/dsh-bridge/plan"
	"github.com/dsh-bridge/dsh-bridge/prompt"
	"github.com/dsh-bridge/dsh-bridge/registry"
	"github.com/dsh-bridge/dsh-bridge/tools"
	"github.com/dsh-bridge/dsh-bridge/workspace"
)

// systemPromptParam is a client's systemPrompt on session/new, load and
// resume. Shapes from the ACP site, "Client-provided system prompts are
// stabilized" (agentclientprotocol.com/announcements/client-system-prompt-stabilized,
// and the RFD rfds/client-system-prompt) and the Rust SDK's SystemPrompt
// and SessionSystemPromptCapabilities (docs.rs agent-client-protocol
// 5.0.0, unstable_session_system_prompt), read 2026-12-04: mode "append"
// or "override" (the latter only when advertised), content a non-empty
// ContentBlock[] of which text is the baseline; an agent that cannot
// apply it must fail the request.
type systemPromptParam struct {
	Mode    string         `json:"mode"`
	Content []card.Content `json:"content"`
}

// systemPromptCapability is sessionCapabilities.systemPrompt: append, and
// override as the one further mode.
func systemPromptCapability() map[string]any {
	return map[string]any{"mode": map[string]any{"override": map[string]any{}}}
}

// clientPrompt checks a client's systemPrompt before the session is
// opened; "" when it sent none.
func clientPrompt(method string, p *systemPromptParam) (text, mode string, err error) {
	if p == nil {
		return "", "", nil
	}
	if p.Mode != "append" && p.Mode != "override" {
		return "", "", acp.InvalidParams("%s: systemPrompt.mode %q is not supported (append, override)", method, p.Mode)
	}
	if len(p.Content) == 0 {
		return "", "", acp.InvalidParams("%s: systemPrompt.content is empty", method)
	}
	var parts []string
	for _, c := range p.Content {
		if c.Type() != card.TypeText {
			return "", "", acp.InvalidParams("%s: systemPrompt.content: %s blocks are not supported (text only)", method, c.Type())
		}
		parts = append(parts, c.TextValue())
	}
	return strings.Join(parts, "\n\n"), p.Mode, nil
}

// guidance is what a session tells the model besides the conversation:
// the system prompt's data, computed once when the session opens so that
// every request starts with the same bytes, and the instructions files
// found as the agent works.
type guidance struct {
	loader *instructions.Loader
	data   prompt.Data
	loaded []instructions.File // the system prompt's files, announced once
}

// newGuidance reads the user's and the roots' instructions files and the
// environment. check is the rules' verdict on a resolved path.
func newGuidance(ws *workspace.Workspace, check func(string) error) *guidance {
	g := &guidance{loader: instructions.New(ws, check)}
	if f, ok := instructions.User(folders.Config(folders.Local())); ok {
		g.loaded = append(g.loaded, f)
	}
	g.loaded = append(g.loaded, g.loader.Roots()...)
	g.data = prompt.Data{
		OS: runtime.GOOS, Arch: runtime.GOARCH, Shell: string(tools.Shell().Kind),
		Roots: ws.Roots(), Git: prompt.GitState(ws.Cwd()), Date: time.Now().Format("2006-01-02"),
		Instructions: instructions.Block(g.loaded),
	}
	return g
}

// setClient applies a client's checked systemPrompt.
func (g *guidance) setClient(text, mode string) {
	g.data.Client, g.data.Override = "", ""
	if mode == "override" {
		g.data.Override = text
	} else {
		g.data.Client = text
	}
}

// basePrompt is the session's system prompt before Code Mode's sections:
// the same for every request of a turn, and of a session while its mode
// and tools stay.
func (ss *Session) basePrompt() string { return ss.promptFor(ss.scope) }

// promptFor is basePrompt with the tools scope sees (a subagent's).
func (ss *Session) promptFor(scope *registry.Scope) string {
	d := ss.guide.data
	for _, t := range ss.srv.reg.Visible(scope) {
		d.Tools = append(d.Tools, prompt.Tool{Name: t.Name, Use: prompt.Use(t.Name, t.Description)})
		d.Plans = d.Plans || t.Name == plan.ToolName
	}
	d.Confinement = ss.confinement()
	return prompt.Render(d)
}

// confinement is the sandbox and permission state in a sentence.
func (ss *Session) confinement() string {
	title, _ := sandboxNotice(ss.settings, ss.sandbox, ss.caps.Terminal)
	var asks string
	switch ss.currentMode() {
	case ModeAccept:
		asks = "edits inside the workspace run; commands, fetches and anything outside the workspace ask the user first"
	case ModePlan:
		asks = "this is plan mode: edits and commands are refused, so read, search and plan"
	case ModeBypass:
		asks = "nothing asks, but deny rules still refuse"
	default:
		asks = "reads and searches inside the workspace run; edits, commands, fetches and anything outside the workspace ask the user first"
	}
	return title + "; " + asks + " (a refusal is a tool result: do not retry it unchanged)."
}

// instructionsNotice announces the files the system prompt holds, once.
func (ss *Session) instructionsNotice(ctx context.Context) {
	ss.announceInstructions(ctx, ss.guide.loaded)
}

func (ss *Session) announceInstructions(ctx context.Context, files []instructions.File) {
	if len(files) == 0 {
		return
	}
	var paths []string
	for _, f := range files {
		p := f.Path
		if f.Truncated {
			p += " (cut to its first 32 KiB)"
		}
		paths = append(paths, p)
	}
	ss.srv.notify(ctx, ss.id, noticeUpdate{SessionUpdate: "notice", Severity: "info",
		Title: "Project instructions loaded", Description: strings.Join(paths, ", ")})
}

// touchedPath is the file or folder a built-in call works in; "" for a
// call that names none.
func touchedPath(tc model.ToolCall) string {
	args := registry.CallArgs([]byte(tc.Arguments))
	key := "path"
	switch tc.Name {
	case "read", "write", "edit":
		key = "file_path"
	case "grep", "glob":
	default:
		return ""
	}
	v, _ := args.Get(key)
	return v.Str()
}

// addInstructions attaches to each successful call's result the
// instructions files of the folders it first worked in, and announces
// them: they reach the model with that result, and the system prompt
// stays as it was.
func (ss *Session) addInstructions(ctx context.Context, tcs []model.ToolCall, results []registry.Result) {
	for i, tc := range tcs {
		if i >= len(results) || results[i].IsError {
			continue
		}
		p := touchedPath(tc)
		if p == "" {
			continue
		}
		files := ss.guide.loader.Touched(ss.ws.Abs(p))
		if len(files) == 0 {
			continue
		}
		text := "Instructions for the folder you are working in; follow them for files below it.\n\n" + instructions.Block(files)
		results[i].AdditionalContexts = append(results[i].AdditionalContexts, registry.ContextMessage{Content: []card.Content{card.Text(text)}, Source: "instructions"})
		ss.announceInstructions(ctx, files)
	}
}

// instructionsCheck is the rules' verdict on reading a resolved path.
func (ss *Session) instructionsCheck(real string) error {
	if err := workspace.ProcessSecret(real); err != nil {
		return err
	}
	return ss.policy.CheckPath(real, false)
}
