-- dsh-bridge's commands. Nothing is loaded until one is used.
if vim.g.loaded_dsh then
  return
end
vim.g.loaded_dsh = 1

local function c()
  return require("dsh.commands")
end

-- SUB: every command once: its :Dsh subcommand, its :Dsh* command, what
-- it does, run, whether it takes a range, and its nargs. run(o) takes the
-- user command's arguments (o.line1, o.line2, o.range for the ranged
-- ones, o.args for those that take some).
local SUB = {
  { "chat", "DshChat", "open the chat (starts the agent)", function()
    require("dsh").chat()
  end },
  { "new", "DshNew", "a new chat session", function()
    require("dsh").new_chat()
  end },
  { "send", "DshSend", "send the prompt", function()
    require("dsh").send()
  end },
  { "cancel", "DshCancel", "cancel the running turn", function()
    require("dsh").cancel()
  end },
  { "undo", "DshUndo", "undo the last turn (its files and its place in the conversation)", function()
    require("dsh.rewind").undo()
  end },
  { "rewind", "DshRewind", "pick a message to rewind to before, or rewind to before turn N", function(o)
    if o.args == "" then
      require("dsh.rewind").pick()
    else
      require("dsh.rewind").to(o.args)
    end
  end, false, "?" },
  { "diff", "DshDiff", "review a proposed change side by side", function()
    c().diff()
  end },
  { "approve", "DshApprove", "answer an open permission request", function()
    c().approve()
  end },
  { "quickfix", "DshQuickfix", "the last search card's matches in the quickfix list", function()
    c().quickfix()
  end },
  { "sessions", "DshSessions", "load a stored session", function()
    c().sessions()
  end },
  { "resume", "DshResume", "bring back this folder's last session", function()
    c().resume()
  end },
  { "mode", "DshMode", "set the session's mode", function()
    c().mode()
  end },
  { "model", "DshModel", "set the session's model", function()
    c().config("model")
  end },
  { "config", "DshConfig", "set a session option (model, thought level, …)", function()
    c().config(nil)
  end },
  { "add", "DshAdd", "attach the buffer or the selection to the next prompt", function(o)
    c().add(o.line1, o.line2, o.range > 0)
  end, true },
  { "log", "DshLog", "the agent's log (stderr)", function()
    c().log()
  end },
  { "login", "DshLogin", "sign in (dsh-bridge login in a terminal)", function()
    c().login()
  end },
  { "stop", "DshStop", "stop the agent", function()
    c().stop()
  end },
}

local by_name = {}
for _, sc in ipairs(SUB) do
  by_name[sc[1]] = sc
  local opts = { range = sc[5] or nil, nargs = sc[6], desc = "dsh-bridge: " .. sc[3] }
  vim.api.nvim_create_user_command(sc[2], sc[4], opts)
  -- <Plug>(dsh-NAME): map it to a key of your own
  vim.keymap.set("n", "<Plug>(dsh-" .. sc[1] .. ")", "<Cmd>" .. sc[2] .. "<CR>", { silent = true })
end
vim.keymap.set("x", "<Plug>(dsh-add)", ":DshAdd<CR>", { silent = true })

vim.api.nvim_create_user_command("Dsh", function(o)
  local name = o.fargs[1] or "chat"
  local sc = by_name[name]
  if not sc then
    return vim.notify("dsh: no subcommand " .. name .. " (:Dsh <Tab> lists them)", vim.log.levels.ERROR)
  end
  sc[4](vim.tbl_extend("force", o, { args = table.concat(vim.list_slice(o.fargs, 2), " ") }))
end, {
  nargs = "*",
  range = true,
  desc = "dsh-bridge: :Dsh {subcommand}",
  complete = function(lead)
    local names = {}
    for _, sc in ipairs(SUB) do
      if sc[1]:sub(1, #lead) == lead then
        names[#names + 1] = sc[1]
      end
    end
    return names
  end,
})

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
