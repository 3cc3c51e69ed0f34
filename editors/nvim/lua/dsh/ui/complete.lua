-- dsh.ui.complete: the slash commands the agent advertises
-- (available_commands_update) completed in the prompt buffer: the
-- prompt's 'omnifunc' (<C-x><C-o>), a menu that opens as a "/" starts
-- the prompt (opts.complete_auto), and the command's input hint shown
-- after its name until the arguments are typed.
local M = {}

local NS = vim.api.nvim_create_namespace("dsh_prompt_hint")
local by_input = {} -- prompt buffer -> chat

local function hint_of(c)
  if type(c.input) == "table" and type(c.input.hint) == "string" and c.input.hint ~= "" then
    return c.input.hint
  end
  return nil
end

-- M.items returns the complete-items of the commands whose name starts
-- with base (what follows the "/"), sorted by name. A command that takes
-- text completes with a space after it, its hint in the menu.
function M.items(commands, base)
  local list = {}
  base = (base or ""):gsub("^/", "")
  for _, c in ipairs(commands or {}) do
    -- a name with NUL or a line break cannot be a complete-item (E976)
    if type(c) == "table" and type(c.name) == "string" and not c.name:find("[%z\r\n]")
      and c.name:sub(1, #base) == base then
      local hint = hint_of(c)
      hint = hint and (hint:gsub("[%z\r\n]", " "))
      -- the description in the menu, not in 'info' (which opens a
      -- preview window over the chat)
      local desc = type(c.description) == "string" and c.description:gsub("[%z\r\n]", " ") or ""
      if #desc > 60 then
        desc = desc:sub(1, 59) .. "…"
      end
      list[#list + 1] = {
        word = "/" .. c.name .. (hint and " " or ""),
        abbr = "/" .. c.name .. (hint and (" <" .. hint .. ">") or ""),
        menu = desc,
        dup = 0,
      }
    end
  end
  table.sort(list, function(a, b)
    return a.abbr < b.abbr
  end)
  return list
end

-- M.slash_start returns the 0-based byte column of the "/" that starts
-- the prompt when the text before the cursor is a command name being
-- typed ("/", "/co"), else nil.
function M.slash_start(before)
  local lead = before:match("^(%s*)/[%w_.:-]*$")
  if lead then
    return #lead
  end
  return nil
end

-- M.hint returns the hint to show after a prompt line that is a command
-- name alone ("/review" or "/review "), or nil.
function M.hint(commands, line)
  local name = line:match("^%s*/([%w_.:-]+)%s?$")
  if not name then
    return nil
  end
  for _, c in ipairs(commands or {}) do
    if type(c) == "table" and c.name == name then
      return hint_of(c)
    end
  end
  return nil
end

local function chat_of(buf)
  return by_input[buf]
end

local function commands_of(buf)
  local chat = chat_of(buf)
  return chat and chat.session.commands or {}
end

-- M.omnifunc is the prompt buffer's 'omnifunc'.
function M.omnifunc(findstart, base)
  local buf = vim.api.nvim_get_current_buf()
  if findstart == 1 then
    local row, col = unpack(vim.api.nvim_win_get_cursor(0))
    local line = vim.api.nvim_buf_get_lines(buf, row - 1, row, false)[1] or ""
    if row ~= 1 then
      return -3 -- a command starts the prompt
    end
    return M.slash_start(line:sub(1, col)) or -3
  end
  return M.items(commands_of(buf), base)
end

_G.dsh_omnifunc = M.omnifunc

-- M.show_hint draws (or clears) the hint after the prompt's first line.
function M.show_hint(buf)
  if not vim.api.nvim_buf_is_valid(buf) then
    return
  end
  vim.api.nvim_buf_clear_namespace(buf, NS, 0, -1)
  local line = vim.api.nvim_buf_get_lines(buf, 0, 1, false)[1] or ""
  local hint = M.hint(commands_of(buf), line)
  if hint then
    vim.api.nvim_buf_set_extmark(buf, NS, 0, 0, { virt_text = { { "<" .. hint .. ">", "DshHint" } },
      virt_text_pos = "eol" })
  end
  return hint
end

-- auto opens the menu while a command name is typed at the start.
local function auto(buf)
  if vim.fn.pumvisible() == 1 then
    return
  end
  local row, col = unpack(vim.api.nvim_win_get_cursor(0))
  if row ~= 1 then
    return
  end
  local line = vim.api.nvim_buf_get_lines(buf, 0, 1, false)[1] or ""
  local start = M.slash_start(line:sub(1, col))
  if not start then
    return
  end
  local items = M.items(commands_of(buf), line:sub(start + 1, col))
  if #items > 0 then
    vim.fn.complete(start + 1, items)
  end
end

-- While in the prompt, the menu inserts nothing until a choice is made
-- ('completeopt' is global before Neovim 0.9: set on entering, restored
-- on leaving).
local saved_cot = nil

local function enter()
  if saved_cot == nil then
    saved_cot = vim.o.completeopt
    vim.o.completeopt = "menuone,noinsert"
  end
end

local function leave()
  if saved_cot ~= nil then
    vim.o.completeopt = saved_cot
    saved_cot = nil
  end
end

-- M.attach gives the chat's prompt buffer its completion and hints.
function M.attach(chat)
  local buf = chat.input
  by_input[buf] = chat
  vim.bo[buf].omnifunc = "v:lua.dsh_omnifunc"
  local group = vim.api.nvim_create_augroup("dsh_prompt_" .. buf, { clear = true })
  vim.api.nvim_create_autocmd({ "TextChanged", "TextChangedI" }, {
    group = group,
    buffer = buf,
    callback = function(ev)
      M.show_hint(buf)
      if ev.event == "TextChangedI" and chat.opts.complete_auto ~= false then
        auto(buf)
      end
    end,
  })
  vim.api.nvim_create_autocmd("InsertEnter", { group = group, buffer = buf, callback = enter })
  vim.api.nvim_create_autocmd({ "InsertLeave", "BufLeave" }, { group = group, buffer = buf, callback = leave })
  vim.api.nvim_create_autocmd("BufWipeout", {
    group = group,
    buffer = buf,
    callback = function()
      by_input[buf] = nil
    end,
  })
end

return M
