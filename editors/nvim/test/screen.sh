#!/usr/bin/env bash
# A real screen: Neovim inside tmux (160x48), driven with send-keys and read
# with capture-pane. Opens the chat, sends a prompt, sees the diff card,
# approves it through Neovim's own vim.ui.select (inputlist: "1" + Enter),
# sees the file change in its buffer and on disk, and compares the final
# screen (paths masked) with testdata/screen.golden.txt (DSH_UPDATE=1
# rewrites it). Usage: test/screen.sh path/to/dsh-bridge
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
cat >"$work/init.lua" <<LUA
vim.opt.rtp:prepend("$here")
vim.o.swapfile = false
vim.o.shortmess = vim.o.shortmess .. "I"
vim.o.termguicolors = false
vim.cmd("runtime plugin/dsh.lua")
require("dsh").setup({
  cmd = { "$bin", "--model", "script:$here/testdata/scripts/edit.jsonl" },
  env = { DSH_STATE_DIR = "$work/state", DSH_LOG_LEVEL = "warn", TMPDIR = "/tmp" },
  width = 90,
})
LUA

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
keys() { tmux -L "$sock" send-keys -t dsh "$@"; }

cd "$work/ws"
tmux -L "$sock" -f /dev/null new-session -d -s dsh -x 160 -y 48 \
  "env TERM=xterm-256color nvim --noplugin -i NONE -u $work/init.lua hello.txt"
wait_for "hello world"
keys ":DshChat" Enter
wait_for "prompt · <CR> send"
wait_for "Commands run in a sandbox" # the session's notice, first in the golden
keys "i" "greet ACP, please" Escape Enter
# the pending diff card, and Neovim's own picker for the approval
wait_for "Type number and <Enter>"
wait_for "Allow once"
screen | sed -e "s|$work|/TMP|g" -e "s|$here|/PLUGIN|g" >"$work/asking.txt"
keys "1" Enter
wait_for "Done: hello.txt now greets ACP."
wait_for "hello ACP"
sleep 0.3 # let the last redraw land
screen | sed -e "s|$work|/TMP|g" -e "s|$here|/PLUGIN|g" >"$work/final.txt"
grep -qx "hello ACP" "$work/ws/hello.txt" || { echo "screen test: the file did not change on disk" >&2; exit 1; }
grep -qF "✓ Edit hello.txt" "$work/final.txt" || { echo "screen test: no completed diff card" >&2; cat "$work/final.txt" >&2; exit 1; }
grep -qF "+hello ACP" "$work/final.txt" || { echo "screen test: no diff lines" >&2; exit 1; }
grep -qF "Allow once" "$work/asking.txt" || { echo "screen test: no approval prompt" >&2; exit 1; }
grep -qF "○ Edit hello.txt" "$work/asking.txt" && grep -qF "+hello ACP" "$work/asking.txt" || { echo "screen test: the pending diff card was not shown before the approval" >&2; cat "$work/asking.txt" >&2; exit 1; }
keys Escape ":qa!" Enter

golden="$here/testdata/screen.golden.txt"
if [ "${DSH_UPDATE:-}" = 1 ]; then
  cp "$work/final.txt" "$golden"
  cp "$work/asking.txt" "$here/testdata/screen-asking.golden.txt"
fi
if ! diff -u "$golden" "$work/final.txt" || ! diff -u "$here/testdata/screen-asking.golden.txt" "$work/asking.txt"; then
  echo "screen test: the screen differs from $golden (DSH_UPDATE=1 to accept)" >&2
  exit 1
fi
echo "screen test: ok"
