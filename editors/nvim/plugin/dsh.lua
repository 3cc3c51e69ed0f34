-- dsh-bridge's commands. Nothing is loaded until one is used.
if vim.g.loaded_dsh then
  return
end
vim.g.loaded_dsh = 1

local function cmd(name, fn, opts)
  vim.api.nvim_create_user_command(name, fn, opts or {})
end
local function c()
  return require("dsh.commands")
end

cmd("DshChat", function()
  require("dsh").chat()
end, { desc = "dsh-bridge: open the chat (starts the agent)" })
cmd("DshNew", function()
  require("dsh").new_chat()
end, { desc = "dsh-bridge: a new chat session" })
cmd("DshSend", function()
  require("dsh").send()
end, { desc = "dsh-bridge: send the prompt" })
cmd("DshCancel", function()
  require("dsh").cancel()
end, { desc = "dsh-bridge: cancel the running turn" })
cmd("DshDiff", function()
  c().diff()
end, { desc = "dsh-bridge: review a proposed change side by side" })
cmd("DshApprove", function()
  c().approve()
end, { desc = "dsh-bridge: answer an open permission request" })
cmd("DshQuickfix", function()
  c().quickfix()
end, { desc = "dsh-bridge: the last search card's matches in the quickfix list" })
cmd("DshSessions", function()
  c().sessions()
end, { desc = "dsh-bridge: load a stored session" })
cmd("DshMode", function()
  c().mode()
end, { desc = "dsh-bridge: set the session's mode" })
cmd("DshModel", function()
  c().config("model")
end, { desc = "dsh-bridge: set the session's model" })
cmd("DshConfig", function()
  c().config(nil)
end, { desc = "dsh-bridge: set a session option (model, thought level, …)" })
cmd("DshAdd", function(o)
  c().add(o.line1, o.line2, o.range > 0)
end, { range = true, desc = "dsh-bridge: attach the buffer or the selection to the next prompt" })
cmd("DshLog", function()
  c().log()
end, { desc = "dsh-bridge: the agent's log (stderr)" })
cmd("DshLogin", function()
  c().login()
end, { desc = "dsh-bridge: sign in (dsh-bridge login in a terminal)" })
cmd("DshStop", function()
  c().stop()
end, { desc = "dsh-bridge: stop the agent" })

vim.api.nvim_create_autocmd("ColorScheme", {
  callback = function()
    if package.loaded["dsh.ui.highlight"] then
      require("dsh.ui.highlight").setup() -- :hi clear dropped the links
    end
  end,
})

vim.api.nvim_create_autocmd("VimLeavePre", {
  callback = function()
    if package.loaded["dsh"] then
      c().stop()
      require("dsh.terminal").kill_all()
    end
  end,
})
