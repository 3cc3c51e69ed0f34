-- Runs the specs with busted inside Neovim (Debian's lua-busted loads in
-- Neovim's LuaJIT):
--   nvim --headless -u NONE -c 'luafile spec/runner.lua' [-- spec files]
-- from editors/nvim. os.exit inside Neovim hangs, so the result leaves
-- through :cquit. DSH_BRIDGE_BIN names the dsh-bridge binary to drive.
local root = vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":p:h:h")
package.path = root .. "/spec/?.lua;" .. package.path
vim.opt.rtp:prepend(root)
vim.cmd("runtime plugin/dsh.lua")
vim.cmd("cd " .. vim.fn.fnameescape(root))
local files = vim.split(os.getenv("DSH_SPECS") or "spec", " ", { trimempty = true })
_G.arg = { [0] = "busted", "--output=TAP", unpack(files) }
local ok = pcall(require("busted.runner"), { standalone = false })
-- a spec that changed the working directory must not move the exit
vim.cmd(ok and "qa!" or "cquit 1")
