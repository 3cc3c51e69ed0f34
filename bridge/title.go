package bridge

import (
	"context"
	"regexp"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/dsh-bridge/dsh-bridge/model"
	"github.com/dsh-bridge/dsh-bridge/store"
)

// Session titles. The first prompt gives the session a provisional title
// at once (its first line cut short), logged so that session/list shows
// something from the start. Once the first turn's model work is done,
// the session asks the model for a title of a few words in one cheap
// request (thinking off, no tools, a few tokens), on the turn's goroutine
// before the turn answers: it never runs beside another model request,
// and its session_info_update comes inside the turn, as clients expect
// of updates (the ACP conformance peer flags one between turns). A model
// that fails, refuses or takes longer than titleTimeout leaves the
// provisional title. The result is logged (and kept for session/list
// beside the log), sent as session_info_update, and its cost added to
// the session's (not to the turn's usage). A title the person gave
// (/title) is never replaced: a session with a title asks for none, and
// /title runs only between turns.

// titleTimeout bounds the title request: it delays the first answer.
const titleTimeout = 10 * time.Second

// titleMaxRunes bounds a title, the provisional one and the model's.
const titleMaxRunes = 60

// sessionInfoUpdate is ACP's session_info_update (schema
// $defs/SessionInfoUpdate).
type sessionInfoUpdate struct {
	SessionUpdate string `json:"sessionUpdate"`
	Title         string `json:"title"`
	UpdatedAt     string `json:"updatedAt,omitempty"`
}

// titleOf is the provisional title: the first line of the first prompt,
// cut short at a word boundary.
func titleOf(text string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(text), "\n")
	return shorten(oneLine(line))
}

// terminalEscape matches the escape sequences a terminal acts on: CSI
// (colours, cursor moves, clearing), OSC (a window title, a hyperlink)
// ended by BEL or ST, and two-character escapes.
var terminalEscape = regexp.MustCompile(`\x1b(?:\[[0-9:;<=>?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)?|[0-~])`)

// oneLine is s as one line of plain text for a title: terminal escape
// sequences gone, control and format characters (bidi overrides,
// zero-width marks) as spaces, spaces collapsed. A title is drawn in
// chat lists and terminals, where those would act.
func oneLine(s string) string {
	s = terminalEscape.ReplaceAllString(s, " ")
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) {
			return ' '
		}
		return r
	}, s)
	return strings.Join(strings.Fields(s), " ")
}

// shorten cuts s to titleMaxRunes, at a word boundary when there is one
// in its second half, with an ellipsis.
func shorten(s string) string {
	r := []rune(s)
	if len(r) <= titleMaxRunes {
		return s
	}
	cut := titleMaxRunes - 1
	if i := strings.LastIndex(string(r[:cut]), " "); i > 0 && utf8.RuneCountInString(s[:i]) > titleMaxRunes/2 {
		return s[:i] + "…"
	}
	return string(r[:cut]) + "…"
}

// cleanTitle makes a model's answer a title: its first non-empty line,
// without a "Title:" label, quotes, markdown emphasis or a final full
// stop, spaces collapsed, cut short. It returns "" for an answer with
// nothing left.
func cleanTitle(answer string) string {
	line := ""
	for l := range strings.SplitSeq(answer, "\n") {
		if line = strings.TrimSpace(l); line != "" {
			break
		}
	}
	line = oneLine(line)
	if head, rest, ok := strings.Cut(line, ":"); ok && strings.EqualFold(strings.Trim(head, "*# "), "title") {
		line = strings.TrimSpace(rest)
	}
	const quotes = "\"'`*#_“”‘’«»「」"
	line = strings.TrimLeftFunc(line, func(r rune) bool { return strings.ContainsRune(quotes, r) || unicode.IsSpace(r) })
	line = strings.TrimRightFunc(line, func(r rune) bool { return strings.ContainsRune(quotes+".。!！", r) || unicode.IsSpace(r) })
	if strings.IndexFunc(line, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) < 0 {
		return ""
	}
	return shorten(line)
}

// provisionalTitle gives a session its first title from its first
// prompt, and reports whether it did (the session had none).
func (ss *Session) provisionalTitle(text string) bool {
	ss.mu.Lock()
	if ss.title != "" {
		ss.mu.Unlock()
		return false
	}
	ss.title = titleOf(text)
	title := ss.title
	ss.mu.Unlock()
	ss.record(store.Event{Kind: store.KindTitle, Title: title})
	ss.indexTitle(title)
	return true
}

// name asks the model for the session's title once its first turn's
// model work is done (after its last model response, before its answer:
// never beside another request of the turn, and inside the turn, where
// clients expect its updates), and gives it to the session. A turn that
// was cancelled or got no model response keeps the provisional title
// without asking. Either way the title goes out as session_info_update.
func (ss *Session) name(ctx context.Context, prompt, stop string) {
	var title, by string
	ss.mu.Lock()
	answered := ss.turnUsage.responses > 0
	ss.mu.Unlock()
	if stop != stopCancelled && answered {
		title, by = ss.requestTitle(ctx, prompt)
	}
	ss.mu.Lock()
	if title == "" {
		title = ss.title
	}
	ss.title = title
	ss.mu.Unlock()
	if by != "" {
		ss.record(store.Event{Kind: store.KindTitle, Title: title, TitleBy: by})
		ss.indexTitle(title)
	}
	ss.announceTitle(ctx, title, true)
}

// requestTitle is the model's title for a conversation that began with
// prompt, and store.TitleByModel; "" when the model failed or refused.
func (ss *Session) requestTitle(ctx context.Context, prompt string) (string, string) {
	s := ss.srv
	if s.cfg.Model == nil {
		return "", ""
	}
	ss.mu.Lock()
	id := ss.model.id
	ss.mu.Unlock()
	answer := ""
	for _, m := range ss.history.Messages() {
		if m.Role == "assistant" && strings.TrimSpace(m.Content) != "" {
			answer = m.Content
			break
		}
	}
	msgs := []model.Message{{Role: "user", Content: clipText(prompt, 2000)}}
	if answer != "" {
		msgs = append(msgs, model.Message{Role: "assistant", Content: clipText(answer, 1000)})
	}
	msgs = append(msgs, model.Message{Role: "user", Content: "Reply with the title of this conversation."})
	req := model.Request{Model: id, System: model.TitlePrompt, Messages: msgs, Thinking: model.ThinkingOff, MaxTokens: 32}
	if !s.modelInfo(id).Thinking {
		req.Thinking = model.ThinkingDefault
	}
	tctx, cancel := context.WithTimeout(ctx, titleTimeout)
	defer cancel()
	resp, err := s.cfg.Model.Complete(tctx, req, model.Handler{})
	if err == nil || resp.Usage.PromptTokens > 0 {
		ss.charge(ctx, resp) // paid for whether or not it names the session
	}
	if err != nil {
		s.log.Debug("the title request failed; the session keeps its first prompt as title", "session", ss.id, "err", err)
		return "", ""
	}
	if resp.FinishReason == "content_filter" {
		return "", ""
	}
	if t := cleanTitle(resp.Text); t != "" {
		return t, store.TitleByModel
	}
	return "", ""
}

// clipText cuts s to about n bytes on a rune boundary.
func clipText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// announceTitle sends the session's title as session_info_update; now
// stamps it as the session's last activity (a replayed title has none).
func (ss *Session) announceTitle(ctx context.Context, title string, now bool) {
	u := sessionInfoUpdate{SessionUpdate: "session_info_update", Title: title}
	if now {
		u.UpdatedAt = time.Now().UTC().Format(time.RFC3339)
	}
	ss.srv.notify(ctx, ss.id, u)
}

// indexTitle keeps the title beside the log for session/list.
func (ss *Session) indexTitle(title string) {
	if st := ss.srv.store(); st != nil && ss.log != nil {
		if err := st.SetTitle(ss.id, title); err != nil {
			ss.srv.log.Warn("keeping the session title for session/list", "session", ss.id, "err", err)
		}
	}
}

// setUserTitle is /title: the person's own title, which no model title
// replaces.
func (ss *Session) setUserTitle(ctx context.Context, title string) {
	title = shorten(oneLine(title))
	if title == "" {
		ss.mu.Lock()
		cur := ss.title
		ss.mu.Unlock()
		ss.say(ctx, "This session's title is "+quote(cur)+". Give one after /title to rename it.")
		return
	}
	ss.mu.Lock()
	ss.title = title
	ss.mu.Unlock()
	ss.record(store.Event{Kind: store.KindTitle, Title: title, TitleBy: store.TitleByUser})
	ss.indexTitle(title)
	ss.announceTitle(ctx, title, true)
	ss.say(ctx, "Renamed this session "+quote(title)+".")
}
