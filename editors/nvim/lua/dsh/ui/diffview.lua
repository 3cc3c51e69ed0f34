-- dsh.ui.diffview: a proposed change side by side in diff mode, in a tab
-- of its own: the text the agent saw against the text it proposes (an
-- empty left side for a new file). `q` closes it; so does the call's
-- end (completed, failed or cancelled), when the proposal is no longer one.
local cards = require("dsh.ui.cards")

local M = {}

-- tabs[call id] = the tabpages opened for that call's proposal.
local tabs = {}
local watched = setmetatable({}, { __mode = "k" })

local SETTLED = { completed = true, failed = true, cancelled = true }

-- M.close closes the diff tabs of a call (the ones still open).
function M.close(id)
  local list = tabs[id]
  tabs[id] = nil
  for _, tab in ipairs(list or {}) do
    if vim.api.nvim_tabpage_is_valid(tab) and #vim.api.nvim_list_tabpages() > 1 then
      pcall(vim.cmd, vim.api.nvim_tabpage_get_number(tab) .. "tabclose")
    end
  end
end

local function watch(session)
  if not session or watched[session] or type(session.on_change) ~= "function" then
    return
  end
  watched[session] = true
  session:on_change(function(block)
    if block and block.kind == "tool" and tabs[block.id] and SETTLED[block.status] then
      vim.schedule(function()
        M.close(block.id)
      end)
    end
  end)
end

local function scratch(name, text, path)
  local b = vim.api.nvim_create_buf(false, true)
  pcall(vim.api.nvim_buf_set_name, b, name)
  local lines = vim.split(text or "", "\n", { plain = true })
  if #lines > 1 and lines[#lines] == "" then
    lines[#lines] = nil
  end
  vim.api.nvim_buf_set_lines(b, 0, -1, false, lines)
  vim.bo[b].buftype = "nofile"
  vim.bo[b].bufhidden = "wipe"
  vim.bo[b].modifiable = false
  -- Neovim 0.7's vim.filetype.match(name, bufnr) sets the filetype itself.
  local ok, ft = pcall(vim.filetype.match, path, b)
  if ok and type(ft) == "string" then
    vim.bo[b].filetype = ft
  end
  vim.keymap.set("n", "q", "<Cmd>tabclose<CR>", { buffer = b, silent = true })
  return b
end

-- M.open opens one tab per file that call would change (relative paths
-- are the session's, under cwd); returns the tab count. Given the call's
-- session, the tabs close when the call settles.
function M.open(call, cwd, session)
  local diffs = cards.diffs(call)
  watch(session)
  for _, d in ipairs(diffs) do
    local path = tostring(d.path)
    if path:sub(1, 1) ~= "/" and cwd then
      path = cwd .. "/" .. path
    end
    local old = d.oldText
    if type(old) ~= "string" then
      old = ""
    end
    vim.cmd("tabnew")
    local left = scratch("dsh://current/" .. path, old, path)
    vim.api.nvim_win_set_buf(0, left)
    vim.cmd("diffthis")
    vim.cmd("rightbelow vsplit")
    local right = scratch("dsh://proposed/" .. path, type(d.newText) == "string" and d.newText or "", path)
    vim.api.nvim_win_set_buf(0, right)
    vim.cmd("diffthis")
    if call.id then
      tabs[call.id] = tabs[call.id] or {}
      table.insert(tabs[call.id], vim.api.nvim_get_current_tabpage())
    end
  end
  return #diffs
end

return M
