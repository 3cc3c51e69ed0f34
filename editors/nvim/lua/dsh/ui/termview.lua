-- dsh.ui.termview: a command's live output in a real terminal buffer
-- (nvim_open_term: colours and cursor movement rendered as a terminal
-- would), fed from dsh.terminal. One buffer per terminal id, kept after
-- the command ends (and after the agent releases it).
local terminal = require("dsh.terminal")

local M = {}

local views = {} -- terminal id -> {buf, chan}

local function crlf(s)
  return (s:gsub("\r?\n", "\r\n"))
end

-- M.ensure returns the terminal buffer of id, creating it (with the output
-- so far) on first use.
function M.ensure(id, title)
  local v = views[id]
  if v and vim.api.nvim_buf_is_valid(v.buf) then
    return v.buf
  end
  local t = terminal.get(id)
  local buf = vim.api.nvim_create_buf(false, true)
  pcall(vim.api.nvim_buf_set_name, buf, "dsh://terminal/" .. id .. (title and (" " .. title) or ""))
  local chan = vim.api.nvim_open_term(buf, {})
  v = { buf = buf, chan = chan }
  views[id] = v
  if t and t.output ~= "" then
    vim.api.nvim_chan_send(chan, crlf(t.output))
  end
  return buf
end

-- M.open shows the terminal of id in a split below the current window.
function M.open(id, title)
  local buf = M.ensure(id, title)
  vim.cmd("belowright 12split")
  vim.api.nvim_win_set_buf(0, buf)
end

terminal.on_output(function(id, chunk, exit)
  local v = views[id]
  if not v or not vim.api.nvim_buf_is_valid(v.buf) then
    return
  end
  if chunk then
    vim.api.nvim_chan_send(v.chan, crlf(chunk))
  elseif exit then
    local what = exit.signal ~= vim.NIL and exit.signal and ("killed by " .. exit.signal)
      or ("exit " .. tostring(exit.exitCode))
    vim.api.nvim_chan_send(v.chan, "\r\n[" .. what .. "]\r\n")
  end
end)

return M
