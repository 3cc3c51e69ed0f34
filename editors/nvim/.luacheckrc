-- luacheck over lua/ (and the specs): Neovim's LuaJIT with the vim global.
std = "luajit"
globals = { "vim" }
max_line_length = 120
files["spec/"] = { std = "+busted" }
