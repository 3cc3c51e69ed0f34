-- dsh.ui.chatkeys: a chat's keymaps (dsh.config's `keymaps` names the
-- keys; an empty one maps nothing).
local M = {}

-- M.attach maps the keys of chat self's prompt and transcript buffers.
function M.attach(self)
  local km = self.opts.keymaps or {}
  local function map(buf, modes, lhs, fn, desc)
    if lhs and lhs ~= "" then
      vim.keymap.set(modes, lhs, fn, { buffer = buf, silent = true, desc = desc })
    end
  end
  local function call(mod, fn)
    return function()
      require(mod)[fn]()
    end
  end
  map(self.input, "n", km.send or "<CR>", call("dsh", "send"), "dsh: send the prompt")
  map(self.input, "i", km.send_insert or "<C-s>", function()
    vim.cmd("stopinsert")
    require("dsh").send()
  end, "dsh: send the prompt")
  for _, b in ipairs({ self.input, self.buf }) do
    map(b, { "n", "i" }, km.cancel or "<C-c>", call("dsh", "cancel"), "dsh: cancel the turn")
    map(b, "n", km.close or "q", function()
      self:close()
    end, "dsh: close the chat")
  end
  map(self.buf, "n", km.toggle or "<Tab>", function()
    self:toggle()
  end, "dsh: expand or collapse the card")
  map(self.buf, "n", km.open or "<CR>", function()
    self:open_target()
  end, "dsh: open the file or terminal under the cursor")
  map(self.buf, "n", km.diff or "gd", call("dsh.commands", "diff"), "dsh: review the proposed change")
end

return M
