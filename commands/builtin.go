package commands

// Names of the built-in actions, which the session carries out itself.
const (
	Compact = "compact"
	Clear   = "clear"
	Cost    = "cost"
	Mode    = "mode"
	Model   = "model"
	Undo    = "undo"
	Rewind  = "rewind"
	Title   = "title"
)

const reviewPrompt = `Review the uncommitted changes in this workspace. Run ` + "`git status`" + `, ` + "`git diff`" + ` and ` + "`git diff --staged`" + ` to see them, and read the surrounding code where a change needs it.

Report your findings, most important first: bugs, missed cases, security problems, tests that are missing or do not test what they claim, and anything unclear. For each, name the file and line and say why it matters. Do not edit any file and do not run commands that change anything: this is a review only. If there are no uncommitted changes, say so.

$ARGUMENTS`

const initPrompt = `Write an AGENTS.md for this workspace, or improve the one at its root if there is one. Read the repository first (its README, build files, test setup and layout) and record what an agent needs to work here: how to build, test and lint, the layout, the conventions the code follows, and anything surprising. Keep it short and specific to this project; leave out general advice. Make the change with the write or edit tool, so that it goes through the normal approval.

$ARGUMENTS`

// Builtins returns the built-in commands, in the order they are listed.
func Builtins() []Command {
	return []Command{
		{Name: Compact, Description: "Compact the conversation now: summarise it to free the context window"},
		{Name: Clear, Description: "Start a fresh context in this session (the log keeps what came before)"},
		{Name: Cost, Description: "Show this session's usage and cost"},
		{Name: Mode, Description: "Show or switch the session mode", Hint: "default | acceptEdits | plan | bypassPermissions"},
		{Name: Model, Description: "Show or switch the model", Hint: "model id"},
		{Name: Undo, Description: "Undo the last turn: restore the files it changed and cut it from the conversation"},
		{Name: Rewind, Description: "List the turns, or rewind to before one: its files and the conversation", Hint: "turn number (optional)"},
		{Name: Title, Description: "Show or rename this session's title (yours is kept over the one the agent gives)", Hint: "new title"},
		{Name: "review", Description: "Review the uncommitted changes (git diff) and report findings without editing", Hint: "what to focus on (optional)", Prompt: reviewPrompt},
		{Name: "init", Description: "Write or improve AGENTS.md for this workspace", Hint: "what to cover (optional)", Prompt: initPrompt},
	}
}
