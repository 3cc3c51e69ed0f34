#!/usr/bin/env bash
# A real screen: Neovim inside tmux (160x48), driven with send-keys and read
# with capture-pane, compared (paths masked) with the goldens in testdata/
# (DSH_UPDATE=1 rewrites them). Usage: test/screen.sh path/to/dsh-bridge
#  1. the edit: the chat (empty: what to try, screen-empty), a prompt, the pending diff card and the floating
#     approval over it (screen-asking), `a` in it, the file changed in its
#     buffer and on disk (screen);
#  2. the tour: a plan block and an answer's Markdown drawn (screen-answer),
#     the slash-command menu as "/" starts the prompt (screen-complete),
#     :Dsh completing its subcommands (screen-dsh-complete), and :Dsh
#     sessions listing the chat by title and relative time
#     (screen-sessions), whose title the chat's statusline then shows;
#  3. the rewind: :DshRewind's picker of the two turns (screen-rewind),
#     and the chat cut to turn 1 with turn 2's message in the prompt
#     (screen-rewound).
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
bin="$(realpath "$1")"
# A fixed folder: the session's notice names the workspace, and the screen
# wraps it where no mask can find it.
work=/tmp/dsh-nvim-screen
rm -rf "$work"
mkdir -p "$work"
sock="dsh-screen-$$"
cleanup() { tmux -L "$sock" kill-server 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT
mkdir -p "$work/ws"
printf 'hello world\n' >"$work/ws/hello.txt"
# init SCRIPT: the config of a scene playing testdata/scripts/SCRIPT,
# copied to the fixed folder (the statusline names it: its length must not
# depend on where the checkout is).
init() {
  cp "$here/testdata/scripts/$1" "$work/$1"
  cat >"$work/init.lua" <<LUA
vim.opt.rtp:prepend("$here")
vim.o.swapfile = false
vim.o.shortmess = vim.o.shortmess .. "I"
vim.o.termguicolors = false
vim.cmd("syntax on")
vim.cmd("runtime plugin/dsh.lua")
require("dsh").setup({
  cmd = { "$bin", "--model", "script:$work/$1" },
  env = { DSH_STATE_DIR = "$work/state-$1", DSH_LOG_LEVEL = "warn", TMPDIR = "/tmp" },
  width = 90,
})
LUA
}

screen() { tmux -L "$sock" capture-pane -p -t dsh; }
# wait_for TEXT [SECONDS]: poll the screen until it shows TEXT.
wait_for() {
  local deadline=$((SECONDS + ${2:-15}))
  until screen | grep -qF -- "$1"; do
    if ((SECONDS > deadline)); then
      echo "screen test: timed out waiting for: $1" >&2
      screen >&2
      exit 1
    fi
    sleep 0.1
  done
}
# wait_gone TEXT [SECONDS]: poll the screen until it no longer shows TEXT.
wait_gone() {
  local deadline=$((SECONDS + ${2:-15}))
  while screen | grep -qF -- "$1"; do
    if ((SECONDS > deadline)); then
      echo "screen test: timed out waiting for $1 to go" >&2
      screen >&2
      exit 1
    fi
    sleep 0.1
  done
}

keys() { tmux -L "$sock" send-keys -t dsh "$@"; }

# start FILE: Neovim in a new tmux server, editing FILE.
start() {
  tmux -L "$sock" -f /dev/null new-session -d -s dsh -x 160 -y 48 \
    "env TERM=xterm-256color nvim --noplugin -i NONE -u $work/init.lua $1"
}
snap() { screen | sed -e "s|$work|/TMP|g" -e "s|$here|/PLUGIN|g" >"$work/$1.txt"; }

cd "$work/ws"
init edit.jsonl
start hello.txt
wait_for "hello world"
keys ":DshChat" Enter
wait_for "prompt · <CR> send"
wait_for "Commands run in a sandbox" # the session's notice, first in the golden
wait_for "Run the tests and fix the first failure" # an empty chat's prompts to try
snap empty
keys "i" "greet ACP, please" Escape Enter
# the pending diff card, and the floating approval over it
wait_for "a allow · A always · r reject"
wait_for "+hello ACP"
snap asking
keys "a"
wait_for "Done: hello.txt now greets ACP."
wait_for "hello ACP"
sleep 0.3 # let the last redraw land
snap final
grep -qx "hello ACP" "$work/ws/hello.txt" || { echo "screen test: the file did not change on disk" >&2; exit 1; }
grep -qF "✓ Edit hello.txt" "$work/final.txt" || { echo "screen test: no completed diff card" >&2; cat "$work/final.txt" >&2; exit 1; }
grep -qF "+hello ACP" "$work/final.txt" || { echo "screen test: no diff lines" >&2; exit 1; }
grep -qF "dsh-bridge asks to change a file: Edit hello.txt" "$work/asking.txt" || { echo "screen test: no approval window" >&2; exit 1; }
grep -qF "○ Edit hello.txt" "$work/asking.txt" && grep -qF "+hello ACP" "$work/asking.txt" || { echo "screen test: the pending diff card was not shown before the approval" >&2; cat "$work/asking.txt" >&2; exit 1; }
grep -qF "a allow" "$work/final.txt" && { echo "screen test: the approval window stayed open" >&2; exit 1; }
keys Escape ":qa!" Enter
sleep 0.3
tmux -L "$sock" kill-server 2>/dev/null || true

# 2. the tour
printf 'package main\n\nfunc main() {}\n' >"$work/ws/main.go"
init tour.jsonl
start main.go
wait_for "package main"
keys ":Dsh chat" Enter
wait_for "prompt · <CR> send"
keys "i" "explain the loop" Escape Enter
wait_for "That is all."
sleep 0.3
snap answer
tmux -L "$sock" capture-pane -e -p -t dsh >"$work/answer-colours.txt"
# the real screen's attributes: Go's syntax colours the fence's keyword,
# bold and italic are drawn as such
grep -qaP '\e\[[0-9;]*mfor\e\[39m _, p := \e\[[0-9;]*mrange' "$work/answer-colours.txt" || { echo "screen test: the Go block is not coloured" >&2; exit 1; }
grep -qaP '\e\[1mrange\e' "$work/answer-colours.txt" && grep -qaP '\e\[3meach\e' "$work/answer-colours.txt" || { echo "screen test: no bold or italic" >&2; exit 1; }
grep -qF "Plan  1/3 done" "$work/answer.txt" || { echo "screen test: no plan block" >&2; exit 1; }
grep -qF "**" "$work/answer.txt" && { echo "screen test: Markdown markers shown" >&2; cat "$work/answer.txt" >&2; exit 1; }
grep -qF "The range loop in main.go binds my_var_name to each item:" "$work/answer.txt" || { echo "screen test: the answer's Markdown is not drawn" >&2; exit 1; }
keys "i" "/c"
wait_for "/compact"
sleep 0.2
snap complete
keys C-e Escape
keys ":Dsh s" Tab
wait_for "sessions"
sleep 0.2
snap dsh-complete
grep -qF "send" "$work/dsh-complete.txt" && grep -qF "stop" "$work/dsh-complete.txt" || { echo "screen test: :Dsh does not complete its subcommands" >&2; cat "$work/dsh-complete.txt" >&2; exit 1; }
# Esc, not Ctrl-C: a Ctrl-C still in the typeahead interrupts the next
# command (its picker closes at once); and the next keys wait until the
# command line is gone
keys C-u Escape
wait_gone ":Dsh s"
keys ":Dsh sessions" Enter
wait_for "Type number and <Enter>"
snap sessions
grep -qF "just now" "$work/sessions.txt" && grep -qF "explain the loop" "$work/sessions.txt" || { echo "screen test: the session list has no title or time" >&2; cat "$work/sessions.txt" >&2; exit 1; }
keys "1" Enter
wait_for "dsh · explain the loop"
sleep 0.2
snap titled
keys ":qa!" Enter
sleep 0.3
tmux -L "$sock" kill-server 2>/dev/null || true

# 3. the rewind: two turns edit hello.txt; :DshRewind's picker lists
# them newest first (screen-rewind); picking turn 2 and confirming puts
# the file back (in its buffer too), cuts the chat and gives the message
# back (screen-rewound)
printf 'hello world\n' >"$work/ws/hello.txt"
init rewind.jsonl
start hello.txt
wait_for "hello world"
keys ":DshChat" Enter
wait_for "prompt · <CR> send"
keys "i" "greet ACP" Escape Enter
wait_for "a allow · A always"
keys "a"
wait_for "Turn one is done."
keys "i" "now greet Neovim" Escape Enter
wait_for "a allow · A always"
keys "a"
wait_for "Turn two is done."
keys ":DshRewind" Enter
wait_for "Type number and <Enter>"
sleep 0.2
snap rewind
grep -qF "1: 2. now greet Neovim  · hello.txt" "$work/rewind.txt" && grep -qF "2: 1. greet ACP  · hello.txt" "$work/rewind.txt" || { echo "screen test: the rewind picker does not list the turns newest first" >&2; cat "$work/rewind.txt" >&2; exit 1; }
keys "1" Enter
wait_for "Rewind, and put the message back"
keys "1" Enter
wait_gone "Turn two is done."
wait_for "rewound to before turn 2"
sleep 0.3
snap rewound
grep -qx "hello ACP" "$work/ws/hello.txt" || { echo "screen test: the rewind did not put turn 1's file back" >&2; exit 1; }
keys ":qa!" Enter

fail=0
for name in empty:screen-empty final:screen asking:screen-asking answer:screen-answer complete:screen-complete dsh-complete:screen-dsh-complete sessions:screen-sessions titled:screen-titled rewind:screen-rewind rewound:screen-rewound; do
  got="$work/${name%%:*}.txt" golden="$here/testdata/${name#*:}.golden.txt"
  if [ "${DSH_UPDATE:-}" = 1 ]; then
    cp "$got" "$golden"
  fi
  if ! diff -u "$golden" "$got"; then
    echo "screen test: the screen differs from $golden (DSH_UPDATE=1 to accept)" >&2
    fail=1
  fi
done
[ "$fail" = 0 ] || exit 1
echo "screen test: ok"
