package bridge

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/dsh-bridge/dsh-bridge/acp"
	"github.com/dsh-bridge/dsh-bridge/card"
	"github.com/dsh-bridge/dsh-bridge/model"
	"github.com/dsh-bridge/dsh-bridge/store"
)

// modelList is the endpoint's model list, asked for once, lazily: on the
// first session/new or session/load, never during initialize.
type modelList struct {
	once   sync.Once
	done   chan struct{}
	listed []string // nil when the endpoint could not tell
	err    error
}

// listWait bounds how long opening a session waits for the model list.
const listWait = 5 * time.Second

// listedModels returns the models the endpoint lists (nil when it cannot
// be asked or did not answer in time), fetching the list on first use.
func (s *Server) listedModels(ctx context.Context) []string {
	lister, ok := s.cfg.Model.(model.Lister)
	if !ok {
		return nil
	}
	s.models.once.Do(func() {
		s.models.done = make(chan struct{})
		go func() { // owned by the server's life; ends with the request
			defer close(s.models.done)
			lctx, cancel := context.WithTimeout(s.life, 20*time.Second)
			defer cancel()
			s.models.listed, s.models.err = lister.Models(lctx)
			if s.models.err != nil {
				s.log.Warn("could not list the endpoint's models", "err", s.models.err)
			}
		}()
	})
	t := time.NewTimer(listWait)
	defer t.Stop()
	select {
	case <-s.models.done:
		return s.models.listed
	case <-t.C:
	case <-ctx.Done():
	}
	return nil
}

// defaultModel is the configured model, else the first preferred model
// the endpoint lists.
func (s *Server) defaultModel(listed []string) string {
	if s.cfg.ModelName != "" {
		return s.cfg.ModelName
	}
	return model.Default(listed)
}

// modelInfo describes a model through the catalogue and the user's
// settings.
func (s *Server) modelInfo(id string) model.Info {
	return model.Catalog{Overrides: s.settings().Models}.Lookup(id)
}

// modelState is a session's model choice and what its requests cost.
type modelState struct {
	id       string
	thinking model.Thinking
	listed   []string // the endpoint's models when the session opened; nil: unknown
	warned   bool     // the model's availability has been checked

	lastPrompt int64 // prompt tokens of the last request
	lastBytes  int   // the estimated size of that request
	// maxBody is the size of the smallest request body the endpoint
	// refused as too large (HTTP 413; 0: none was): requests are
	// compacted to stay under it, as under the context window.
	maxBody int
	cost    float64
	priced  bool // at least one request had a known price
}

// initModel chooses the session's model.
func (ss *Session) initModel(ctx context.Context) {
	listed := ss.srv.listedModels(ctx)
	ss.mu.Lock()
	defer ss.mu.Unlock()
	ss.model = modelState{id: ss.srv.defaultModel(listed), thinking: model.ThinkingHigh, listed: listed}
}

// modelChoices lists the model picker's values: the listed models and the
// current one.
func (ss *Session) modelChoices() []string {
	out := slices.Clone(ss.model.listed)
	if !slices.Contains(out, ss.model.id) {
		out = append([]string{ss.model.id}, out...)
	}
	return out
}

var thoughtLevels = []selectOption{
	{Value: string(model.ThinkingOff), Name: "Off", Description: "Answer directly, without reasoning first (faster, cheaper)."},
	{Value: string(model.ThinkingHigh), Name: "High", Description: "Reason before answering (the default)."},
	{Value: string(model.ThinkingMax), Name: "Max", Description: "Reason at the greatest effort."},
}

func (ss *Session) configOptions() []configOption {
	modeOpts := make([]selectOption, len(modes))
	for i, m := range modes {
		modeOpts[i] = selectOption{Value: m.ID, Name: m.Name, Description: m.Description}
	}
	ss.mu.Lock()
	defer ss.mu.Unlock()
	var modelOpts []selectOption
	for _, id := range ss.modelChoices() {
		desc := ss.srv.modelInfo(id).Describe()
		if strings.HasPrefix(id, "script:") {
			desc = "A scripted model: replays a file, no network."
		}
		modelOpts = append(modelOpts, selectOption{Value: id, Name: id, Description: desc})
	}
	opts := []configOption{
		{ID: "mode", Name: "Mode", Category: "mode", Type: "select", CurrentValue: ss.mode, Options: modeOpts},
		{ID: "model", Name: "Model", Category: "model", Type: "select", CurrentValue: ss.model.id, Options: modelOpts},
	}
	if ss.srv.modelInfo(ss.model.id).Thinking {
		opts = append(opts, configOption{ID: "thought_level", Name: "Thinking", Category: "thought_level", Type: "select",
			CurrentValue: string(ss.model.thinking), Options: thoughtLevels})
	}
	// A category of our own: "_" names are reserved for extensions.
	opts = append(opts, configOption{ID: "tools_mode", Name: "Tools", Category: "_dsh", Type: "select",
		CurrentValue: ss.toolsMode, Options: toolsModes})
	return opts
}

// setModelOption applies a model or thought_level choice; it reports
// whether configID is one of those.
func (ss *Session) setModelOption(configID, value string) (bool, error) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	switch configID {
	case "model":
		choices := ss.modelChoices()
		if !slices.Contains(choices, value) {
			return true, acp.InvalidParams("session/set_config_option: unknown model %q (available: %s)", value, strings.Join(choices, ", "))
		}
		ss.model.id, ss.model.warned = value, false
		return true, nil
	case "thought_level":
		if !ss.srv.modelInfo(ss.model.id).Thinking {
			return true, acp.InvalidParams("session/set_config_option: the model %q has no thought levels", ss.model.id)
		}
		if !slices.ContainsFunc(thoughtLevels, func(o selectOption) bool { return o.Value == value }) {
			return true, acp.InvalidParams("session/set_config_option: unknown thought level %q (available: off, high, max)", value)
		}
		ss.model.thinking = model.Thinking(value)
		return true, nil
	}
	return false, nil
}

// restoreConfig applies the choices a session log recorded; a model the
// endpoint no longer lists is dropped (the default stays).
func (ss *Session) restoreConfig(choices map[string]string) {
	if v, ok := choices["tools_mode"]; ok {
		if err := ss.setToolsMode(v); err != nil {
			ss.srv.log.Warn("a recorded session option no longer applies", "option", "tools_mode", "value", v, "err", err)
		}
	}
	for _, id := range []string{"model", "thought_level"} {
		if v, ok := choices[id]; ok {
			if _, err := ss.setModelOption(id, v); err != nil {
				ss.srv.log.Warn("a recorded session option no longer applies", "option", id, "value", v, "err", err)
			}
		}
	}
}

func (s *Server) setConfigOption(ctx context.Context, p setConfigParams) (setConfigResult, error) {
	ss, err := s.requireSession(ctx, p.SessionID)
	if err != nil {
		return setConfigResult{}, err
	}
	var value string
	if err := json.Unmarshal(p.Value, &value); err != nil {
		return setConfigResult{}, acp.InvalidParams("session/set_config_option: value must be a string")
	}
	if p.ConfigID == "mode" {
		if err := ss.setMode(value); err != nil {
			return setConfigResult{}, err
		}
		ss.record(store.Event{Kind: store.KindMode, Mode: value})
		acp.AfterReply(ctx, func() {
			s.notify(context.Background(), ss.id, currentModeUpdate{SessionUpdate: "current_mode_update", CurrentModeID: value})
			s.notify(context.Background(), ss.id, configOptionUpdate{SessionUpdate: "config_option_update", ConfigOptions: ss.configOptions()})
		})
		return setConfigResult{ConfigOptions: ss.configOptions()}, nil
	}
	var known bool
	if p.ConfigID == "tools_mode" {
		known, err = true, ss.setToolsMode(value)
	} else {
		known, err = ss.setModelOption(p.ConfigID, value)
	}
	if !known {
		return setConfigResult{}, acp.InvalidParams("session/set_config_option: unknown config option %q (available: mode, model, thought_level, tools_mode)", p.ConfigID)
	}
	if err != nil {
		return setConfigResult{}, err
	}
	ss.record(store.Event{Kind: store.KindConfig, ConfigID: p.ConfigID, Value: value})
	ss.syncLog()
	opts := ss.configOptions()
	acp.AfterReply(ctx, func() {
		s.notify(context.Background(), ss.id, configOptionUpdate{SessionUpdate: "config_option_update", ConfigOptions: opts})
	})
	return setConfigResult{ConfigOptions: opts}, nil
}

// checkModel runs before a session's first request to a model: a retired
// model the endpoint does not list ends the turn with a message saying
// what to use; an unlisted one gets a warning and is tried. It returns
// false when the turn must end.
func (ss *Session) checkModel(ctx context.Context) bool {
	ss.mu.Lock()
	m := ss.model
	ss.mu.Unlock()
	if m.warned || m.listed == nil || slices.Contains(m.listed, m.id) {
		return true
	}
	listed := strings.Join(m.listed, ", ")
	if info := ss.srv.modelInfo(m.id); info.Retired != "" {
		ss.say(ctx, "The model "+quote(m.id)+" cannot be used: "+info.Retired+". The endpoint lists: "+listed+
			". Pick one in the model selector, or set DSH_MODEL.")
		return false // and again at the next prompt, until the model changes
	}
	ss.mu.Lock()
	ss.model.warned = true
	ss.mu.Unlock()
	ss.say(ctx, "Note: the endpoint does not list the model "+quote(m.id)+" (it lists: "+listed+"); trying it anyway.\n\n")
	return true
}

// say sends text to the conversation as the agent.
func (ss *Session) say(ctx context.Context, text string) {
	ss.srv.notify(ctx, ss.id, contentChunk{SessionUpdate: "agent_message_chunk", Content: card.Text(text)})
}

func quote(s string) string { b, _ := json.Marshal(s); return string(b) }
