-- dsh.ui.targets: <CR> in the transcript.
local markdown = require("dsh.ui.markdown")

local M = {}

-- M.open opens what the line under the cursor in chat's transcript
-- points at: a file at a line (a card's row, or a path:line an answer
-- names), or the live terminal of a command card.
function M.open(chat)
  local cursor = vim.api.nvim_win_get_cursor(0)
  local b, row = chat:block_at(cursor[1])
  if b and b.kind == "agent" then
    -- a path:line the answer names
    local line = vim.api.nvim_buf_get_lines(chat.buf, cursor[1] - 1, cursor[1], false)[1] or ""
    local path, lnum, cnum = markdown.path_at(line, cursor[2])
    if path then
      path = markdown.absolute(path, chat.session.cwd or vim.fn.getcwd())
    end
    if path and vim.fn.filereadable(path) == 1 then
      vim.cmd("wincmd p")
      vim.cmd("edit " .. vim.fn.fnameescape(path))
      pcall(vim.api.nvim_win_set_cursor, 0, { math.max(lnum, 1), math.max((cnum or 1) - 1, 0) })
    end
    return
  end
  if not b or b.kind ~= "tool" then
    return
  end
  local d = chat.drawn[b]
  local path = d.target_paths and d.target_paths[row]
  if type(path) == "string" then
    local cwd = chat.session.cwd
    if path:sub(1, 1) ~= "/" then
      path = (cwd or ".") .. "/" .. path
    end
    vim.cmd("wincmd p")
    vim.cmd("edit " .. vim.fn.fnameescape(path))
    local lnum = math.max(tonumber(d.targets[row]) or 1, 1)
    local col = d.target_cols and d.target_cols[row]
    if col then
      local text = vim.api.nvim_buf_get_lines(0, lnum - 1, lnum, false)[1] or ""
      col = require("dsh.ui.diagnostics").byte_col(text, col)
    end
    pcall(vim.api.nvim_win_set_cursor, 0, { lnum, col or 0 })
    return
  end
  if b.terminal_id then
    require("dsh.ui.termview").open(b.terminal_id, b.title)
  end
end

return M
