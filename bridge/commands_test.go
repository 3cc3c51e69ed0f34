package bridge_test

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// advertised returns the names (with their hints) of the last
// available_commands_update.
func advertised(e *editor) (list []string, updates int) {
	for _, u := range e.decodedUpdates() {
		if u.SessionUpdate != "available_commands_update" {
			continue
		}
		updates++
		var v struct {
			AvailableCommands []struct {
				Name  string
				Input *struct{ Hint string }
			}
		}
		json.Unmarshal(u.Raw, &v)
		list = nil
		for _, c := range v.AvailableCommands {
			s := c.Name
			if c.Input != nil {
				s += "<" + c.Input.Hint + ">"
			}
			list = append(list, s)
		}
	}
	return list, updates
}

// lastUser is the last user message of the model's last request.
func lastUser(m *fakeModel) string {
	reqs := m.recorded()
	msgs := reqs[len(reqs)-1].Messages
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == "user" {
			return contentText(msgs[i].Content)
		}
	}
	return ""
}

// TestCommands_AdvertisedAndExpanded: available_commands_update lists the
// built-ins and the custom commands (the workspace's only when it is
// trusted), "/name args" sends the expanded prompt, and an unknown /word
// reaches the model unchanged.
func TestCommands_AdvertisedAndExpanded(t *testing.T) {
	builtins := "compact clear cost mode<default | acceptEdits | plan | bypassPermissions> model<model id> undo rewind<turn number (optional)> title<new title> review<what to focus on (optional)> init<what to cover (optional)>"
	for _, tc := range []struct {
		name, user, wantList, prompt, wantSent string
	}{
		{"trusted", `{"trustedWorkspaces":["WORKSPACE"]}`, builtins + " fix<issue number> mine",
			"/fix 42 now", "Fix issue 42 now, then run the tests."},
		{"untrusted", `{}`, builtins + " mine", "/fix 42 now", "/fix 42 now"},
		{"unknown word", `{"trustedWorkspaces":["WORKSPACE"]}`, builtins + " fix<issue number> mine",
			"/nosuch thing", "/nosuch thing"},
		{"user command", `{}`, builtins + " mine", "/mine x", "Mine.\n\nARGUMENTS: x"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newLiveWorld(t, "", fakeTurn{text: "ok"})
			writeFile(t, filepath.Join(w.cfg, "dsh-bridge", "settings.json"), strings.ReplaceAll(tc.user, "WORKSPACE", w.dir))
			writeFile(t, filepath.Join(w.cfg, "dsh-bridge", "commands", "mine.md"), "Mine.")
			writeFile(t, filepath.Join(w.dir, ".dsh", "commands", "fix.md"),
				"---\ndescription: Fix an issue\nargument-hint: issue number\n---\nFix issue $ARGUMENTS, then run the tests.\n")
			e := w.editor(nil)
			s := e.newSession(w.dir)
			e.waitFor(func() bool { _, n := advertised(e); return n > 0 })
			if got, _ := advertised(e); strings.Join(got, " ") != tc.wantList {
				t.Errorf("got commands\n%s\nwant\n%s", strings.Join(got, " "), tc.wantList)
			}
			e.prompt(s, tc.prompt)
			if got := lastUser(w.model); got != tc.wantSent {
				t.Errorf("got %q sent, want %q", got, tc.wantSent)
			}
			if _, n := advertised(e); n != 1 {
				t.Errorf("got %d updates for an unchanged set, want 1", n)
			}
		})
	}
}

// TestCommands_SetChanges: a command file added between prompts is
// advertised before the next prompt runs.
func TestCommands_SetChanges(t *testing.T) {
	w := newLiveWorld(t, "", fakeTurn{text: "ok"}, fakeTurn{text: "ok"})
	e := w.editor(nil)
	s := e.newSession(w.dir)
	e.prompt(s, "hi")
	writeFile(t, filepath.Join(w.cfg, "dsh-bridge", "commands", "later.md"), "Later.")
	e.prompt(s, "/later")
	list, n := advertised(e)
	if n != 2 || list[len(list)-1] != "later" {
		t.Errorf("got %d updates, last %v; want 2 ending with later", n, list)
	}
	if got := lastUser(w.model); got != "Later." {
		t.Errorf("got %q sent, want %q", got, "Later.")
	}
}

// TestCommands_Compact: /compact summarises the conversation at once,
// announced as compaction is, and the next request carries the summary
// in place of the turns.
func TestCommands_Compact(t *testing.T) {
	w := newLiveWorld(t, "", fakeTurn{text: "first answer"}, fakeTurn{text: "second answer"})
	w.model.summary = "SUMMARY-OF-ALL"
	e := w.editor(map[string]any{"session": map[string]any{"compaction": map[string]any{}}})
	s := e.newSession(w.dir)
	e.prompt(s, "first question")
	before := len(w.model.recorded())
	if stop := e.prompt(s, "/compact"); stop != "end_turn" {
		t.Fatalf("stop %q", stop)
	}
	c := compactions(e)
	if len(c) != 2 || c[1]["status"] != "completed" {
		t.Fatalf("got compaction updates %v, want in_progress then completed", c)
	}
	if n := len(w.model.recorded()) - before; n != 1 {
		t.Errorf("/compact made %d model requests, want 1 (the summary)", n)
	}
	e.prompt(s, "next question")
	reqs := w.model.recorded()
	var sent []string
	for _, m := range reqs[len(reqs)-1].Messages[1:] {
		sent = append(sent, m.Role+":"+contentText(m.Content))
	}
	all := strings.Join(sent, "\n")
	if !strings.Contains(all, "SUMMARY-OF-ALL") || strings.Contains(all, "first question") || strings.Contains(all, "/compact") {
		t.Errorf("the request after /compact sent:\n%s", all)
	}
}

// TestCommands_Clear: /clear starts a fresh context that the next request
// shows, and session/load replays the marker and rebuilds the context
// from it.
func TestCommands_Clear(t *testing.T) {
	w := newLiveWorld(t, "", fakeTurn{text: "one answer"}, fakeTurn{text: "two answer"}, fakeTurn{text: "three answer"})
	e := w.editor(nil)
	s := e.newSession(w.dir)
	e.prompt(s, "one")
	e.prompt(s, "/clear")
	e.prompt(s, "two")
	roles := func() string {
		reqs := w.model.recorded()
		var out []string
		for _, m := range reqs[len(reqs)-1].Messages[1:] {
			out = append(out, m.Role+":"+contentText(m.Content))
		}
		return strings.Join(out, "|")
	}
	if got := roles(); got != "user:two" {
		t.Errorf("after /clear the request sent %q, want %q", got, "user:two")
	}
	if !strings.Contains(e.agentText(), "fresh context") {
		t.Errorf("no word of the fresh context in %q", e.agentText())
	}
	e.close()
	again := w.editor(nil)
	w.load(again, s)
	if txt := again.agentText(); !strings.Contains(txt, "one answer") || !strings.Contains(txt, "fresh context") {
		t.Errorf("session/load replayed %q, want the old answer and the marker", txt)
	}
	again.prompt(s, "three")
	if got := roles(); got != "user:two|assistant:two answer|user:three" {
		t.Errorf("after load the request sent %q", got)
	}
}

// TestCommands_CostModeModel: /cost answers without a model request;
// /mode switches the mode as session/set_mode does.
func TestCommands_CostModeModel(t *testing.T) {
	w := newLiveWorld(t, "", fakeTurn{text: "ok"})
	e := w.editor(nil)
	s := e.newSession(w.dir)
	e.prompt(s, "hi")
	n := len(w.model.recorded())
	e.prompt(s, "/cost")
	e.prompt(s, "/mode plan")
	e.prompt(s, "/model")
	if got := len(w.model.recorded()); got != n {
		t.Errorf("the commands made %d model requests, want 0", got-n)
	}
	txt := e.agentText()
	for _, want := range []string{"Context: ", "Cost so far", "Mode: plan", "Models (switch with /model ID):"} {
		if !strings.Contains(txt, want) {
			t.Errorf("no %q in %q", want, txt)
		}
	}
	var modeUpdate bool
	for _, u := range e.decodedUpdates() {
		modeUpdate = modeUpdate || (u.SessionUpdate == "current_mode_update" && strings.Contains(string(u.Raw), `"plan"`))
	}
	if !modeUpdate {
		t.Error("no current_mode_update to plan")
	}
}
