package bridge

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/dsh-bridge/dsh-bridge/commands"
	"github.com/dsh-bridge/dsh-bridge/instructions"
	"github.com/dsh-bridge/dsh-bridge/internal/folders"
	"github.com/dsh-bridge/dsh-bridge/store"
)

// availableCommandsUpdate is the stable schema's AvailableCommandsUpdate.
type availableCommandsUpdate struct {
	SessionUpdate     string             `json:"sessionUpdate"`
	AvailableCommands []availableCommand `json:"availableCommands"`
}

type availableCommand struct {
	Name        string        `json:"name"`
	Description string        `json:"description"`
	Input       *commandInput `json:"input,omitempty"`
}

// commandInput is an UnstructuredCommandInput: the text after the name.
type commandInput struct {
	Hint string `json:"hint"`
}

// clearedText is what the person reads where /clear started a fresh
// context, live and replayed.
const clearedText = "Started a fresh context: the model no longer sees the conversation above (the session log keeps it)."

// advertiseCommands reads the session's commands again and sends
// available_commands_update when the set differs from the one last sent
// (always the first time). Called at session start and before each prompt.
func (ss *Session) advertiseCommands(ctx context.Context) {
	cmds, problems := commands.Load(commands.Source{
		UserDir: folders.Config(folders.Local()), Workspace: ss.ws,
		Trusted: ss.settings.Trusted, Check: ss.instructionsCheck,
	})
	ss.mu.Lock()
	same := ss.commands != nil && slices.Equal(ss.commands, cmds)
	ss.commands = cmds
	ss.mu.Unlock()
	if same {
		return
	}
	for _, p := range problems {
		ss.srv.log.Warn("a custom command was not loaded", "session", ss.id, "err", p)
	}
	upd := availableCommandsUpdate{SessionUpdate: "available_commands_update", AvailableCommands: make([]availableCommand, len(cmds))}
	for i, c := range cmds {
		upd.AvailableCommands[i] = availableCommand{Name: c.Name, Description: c.Description}
		if c.Takes() {
			upd.AvailableCommands[i].Input = &commandInput{Hint: c.Hint}
		}
	}
	ss.srv.notify(ctx, ss.id, upd)
}

// invocation reads a prompt as a slash command: the command and its
// arguments, false for a prompt that names none of the session's
// commands (it goes to the model unchanged).
func (ss *Session) invocation(text string) (commands.Command, string, bool) {
	name, args, ok := commands.Split(text)
	if !ok {
		return commands.Command{}, "", false
	}
	ss.mu.Lock()
	c, found := commands.Find(ss.commands, name)
	ss.mu.Unlock()
	return c, args, found
}

// runAction carries out a built-in action and ends its turn in the log;
// it returns the stop reason.
func (ss *Session) runAction(ctx context.Context, c commands.Command, args string) string {
	switch c.Name {
	case commands.Compact:
		ss.compactNow(ctx)
	case commands.Clear:
		ss.clearContext()
		ss.say(ctx, clearedText)
	case commands.Cost:
		ss.say(ctx, ss.costSummary())
	case commands.Mode:
		ss.modeCommand(ctx, args)
	case commands.Model:
		ss.modelCommand(ctx, args)
	case commands.Undo:
		ss.undoCommand(ctx)
	case commands.Rewind:
		ss.rewindCommand(ctx, args)
	case commands.Title:
		ss.setUserTitle(ctx, args)
	}
	ss.record(store.Event{Kind: store.KindTurnEnd, StopReason: stopEndTurn})
	ss.syncLog()
	return stopEndTurn
}

// compactNow summarises the whole conversation, announced as an automatic
// compaction is.
func (ss *Session) compactNow(ctx context.Context) {
	s := ss.srv
	if s.cfg.Model == nil {
		ss.say(ctx, "No model is configured, so nothing can be compacted.")
		return
	}
	fixed := requestBytes(ss.systemPrompt(), modelTools(s.reg.ModelSchemas(ss.scope)), nil)
	ss.compact(ctx, fixed, true, true)
}

// clearContext empties the model's history, logs the marker a load
// rebuilds from, and forgets which folders' instructions files the old
// context held (the roots' stay in the system prompt).
func (ss *Session) clearContext() {
	ss.history.Replace(nil)
	ss.record(store.Event{Kind: store.KindClear})
	loader := instructions.New(ss.ws, ss.instructionsCheck)
	loader.Roots()
	ss.guide.loader = loader
}

// costSummary is /cost's answer: the model, what the context holds and
// the session's cost.
func (ss *Session) costSummary() string {
	ss.mu.Lock()
	m := ss.model
	ss.mu.Unlock()
	info := ss.srv.modelInfo(m.id)
	var b strings.Builder
	fmt.Fprintf(&b, "Model: %s\n", m.id)
	if m.lastPrompt > 0 && info.Window > 0 {
		fmt.Fprintf(&b, "Context: %d of %d tokens (%.0f%%) at the last request\n", m.lastPrompt, info.Window, 100*float64(m.lastPrompt)/float64(info.Window))
	} else {
		b.WriteString("Context: no request yet\n")
	}
	if m.priced {
		fmt.Fprintf(&b, "Cost so far: $%.4f", roundUSD(m.cost))
	} else {
		b.WriteString("Cost so far: unknown (no price for this model)")
	}
	return b.String()
}

// modeCommand is /mode: without an argument it lists the modes, with one
// it switches as session/set_mode does.
func (ss *Session) modeCommand(ctx context.Context, arg string) {
	if arg == "" {
		var lines []string
		cur := ss.currentMode()
		for _, m := range modes {
			mark := "  "
			if m.ID == cur {
				mark = "* "
			}
			lines = append(lines, mark+m.ID+": "+m.Description)
		}
		ss.say(ctx, "Modes (switch with /mode ID):\n"+strings.Join(lines, "\n"))
		return
	}
	if err := ss.setMode(arg); err != nil {
		ss.say(ctx, fmt.Sprintf("Unknown mode %q; /mode lists them.", arg))
		return
	}
	ss.record(store.Event{Kind: store.KindMode, Mode: arg})
	ss.announceMode(ctx)
	ss.say(ctx, "Mode: "+arg)
}

// modelCommand is /model: without an argument it lists the models, with
// one it switches as session/set_config_option does.
func (ss *Session) modelCommand(ctx context.Context, arg string) {
	if arg == "" {
		ss.mu.Lock()
		cur, choices := ss.model.id, ss.modelChoices()
		ss.mu.Unlock()
		var lines []string
		for _, id := range choices {
			mark := "  "
			if id == cur {
				mark = "* "
			}
			lines = append(lines, mark+id)
		}
		ss.say(ctx, "Models (switch with /model ID):\n"+strings.Join(lines, "\n"))
		return
	}
	if _, err := ss.setModelOption("model", arg); err != nil {
		ss.say(ctx, err.Error())
		return
	}
	ss.record(store.Event{Kind: store.KindConfig, ConfigID: "model", Value: arg})
	ss.srv.notify(ctx, ss.id, configOptionUpdate{SessionUpdate: "config_option_update", ConfigOptions: ss.configOptions()})
	ss.say(ctx, "Model: "+arg)
}
