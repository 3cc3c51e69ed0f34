-- dsh.ui.approvefloat: a permission request in a floating window that
-- does not block the editor: what is asked (the whole command and its
-- description, or the diff), scrollable like any buffer, answered with
-- single keys (`a` allow once, `A` always allow, `r` reject, `R` always
-- reject; the footer names an option in its own words when it has them,
-- as a rewind's "r Keep mine"), `d` for the change side by side (the
-- keys work there too), `q` or <Esc> to decide later (:DshApprove comes
-- back). The person may leave the window and return; nothing waits on it.
local cards = require("dsh.ui.cards")

local M = {}

-- KEYS in the order of the footer: key, option kind, label.
M.KEYS = {
  { "a", "allow_once", "allow" },
  { "A", "allow_always", "always" },
  { "r", "reject_once", "reject" },
  { "R", "reject_always", "always reject" },
}

-- LABEL: each kind's usual wording; own_words: a request whose options
-- say what they do in their own words (dsh.agent).
M.LABEL = require("dsh.agent").OPTION_NAMES
M.own_words = require("dsh.agent").own_words

local current = nil -- {req, buf, win, extra_bufs}

local function option_of(req, kind)
  for _, o in ipairs(type(req.options) == "table" and req.options or {}) do
    if type(o) == "table" and o.kind == kind then
      return o
    end
  end
  return nil
end

-- M.remembers says what an "always" option remembers, from its
-- _meta.dsh.remembers (docs/meta-dsh.md): nil when it does not say.
function M.remembers(opt)
  local meta = type(opt) == "table" and type(opt._meta) == "table" and opt._meta.dsh
  local list = type(meta) == "table" and meta.remembers
  if type(list) ~= "table" then
    return nil
  end
  local items = {}
  for _, r in ipairs(list) do
    if type(r) == "string" and r ~= "" then
      items[#items + 1] = (r:gsub("[%z\n\r]", " "))
    end
  end
  if #items == 0 then
    return "this call only"
  end
  return "remembers: " .. table.concat(items, "; ")
end

local function wrap(text, width)
  local out = {}
  text = tostring(text):gsub("%z", " ")
  width = math.max(width, 1)
  for _, para in ipairs(vim.split(text, "\n", { plain = true })) do
    if para == "" then
      out[#out + 1] = ""
    end
    while #para > 0 do
      out[#out + 1] = para:sub(1, width)
      para = para:sub(width + 1)
    end
  end
  return out
end

-- M.lines returns what the float shows for req: lines, highlights
-- ({row, s, e, group}) and line highlights, pure. width bounds the
-- wrapped command.
function M.lines(req, prompt, width)
  local call = req.call
  local lines, hls, line_hls = {}, {}, {}
  local function add(text, group)
    lines[#lines + 1] = text
    if group then
      hls[#hls + 1] = { #lines - 1, 0, -1, group }
    end
  end
  for _, l in ipairs(wrap(prompt, width)) do
    add(l, "DshCardTitle")
  end
  -- a command: the pending terminal card's (title: the command), else
  -- the raw input's
  local card = call.dsh and call.dsh.card
  local raw = type(call.rawInput) == "table" and call.rawInput or {}
  local command, desc = raw.command, raw.description
  if type(card) == "table" and card.card == "terminal" then
    command, desc = card.title, card.description
  end
  if type(command) == "string" and command ~= "" then
    add("")
    for i, l in ipairs(wrap(command, width - 2)) do
      add((i == 1 and "$ " or "  ") .. l, "DshMdCode")
    end
    if type(desc) == "string" and desc ~= "" then
      add("")
      for _, l in ipairs(wrap(desc, width)) do
        add(l, "DshCardMeta")
      end
    end
    -- the rest of the request's text: what is not yet allowed (what
    -- "always" would remember), where the command runs
    for _, c in ipairs(type(call.content) == "table" and call.content or {}) do
      local t = type(c) == "table" and c.type == "content" and type(c.content) == "table"
        and c.content.type == "text" and c.content.text
      if type(t) == "string" and t ~= desc and not t:find("^%s*```") then
        add("")
        for _, l in ipairs(wrap(t, width)) do
          add(l)
        end
      end
    end
  end
  add("")
  local o = cards.render(call, { expanded = true, bare = true })
  local base = #lines
  for i, l in ipairs(o.lines) do
    lines[#lines + 1] = l
    if i == 1 then
      hls[#hls + 1] = { #lines - 1, 0, -1, "DshCardTitle" }
    end
  end
  for _, h in ipairs(o.hls) do
    if h[1] > 0 then
      hls[#hls + 1] = { base + h[1], h[2], h[3], h[4] }
    end
  end
  for _, h in ipairs(o.line_hls) do
    line_hls[#line_hls + 1] = { base + h[1], h[2] }
  end
  add("")
  local keys = {}
  local own = M.own_words(req.options)
  for _, k in ipairs(M.KEYS) do
    local opt = option_of(req, k[2])
    if opt then
      local name = own and type(opt.name) == "string" and opt.name ~= "" and opt.name:gsub("[%z\r\n]+", " ")
      keys[#keys + 1] = k[1] .. " " .. (name or k[3])
    end
  end
  -- what "always" remembers, next to its key (_meta.dsh.remembers)
  for _, k in ipairs(M.KEYS) do
    local opt = option_of(req, k[2])
    local r = opt and M.remembers(opt)
    if r then
      add(k[1] .. " " .. k[3] .. " — " .. r, "DshCardMeta")
    end
  end
  if #cards.diffs(call) > 0 then
    keys[#keys + 1] = "d diff"
  end
  keys[#keys + 1] = "q later"
  add(table.concat(keys, " · "), "DshApproveKey")
  return lines, hls, line_hls
end

local NS = vim.api.nvim_create_namespace("dsh_approve")

-- M.close closes the float (the request stays open unless answered).
function M.close()
  local c = current
  current = nil
  if not c then
    return
  end
  if c.win and vim.api.nvim_win_is_valid(c.win) then
    vim.api.nvim_win_close(c.win, true)
  end
  if vim.api.nvim_buf_is_valid(c.buf) then
    vim.api.nvim_buf_delete(c.buf, { force = true })
  end
  for _, b in ipairs(c.extra_bufs or {}) do
    if vim.api.nvim_buf_is_valid(b) then
      for _, k in ipairs(M.KEYS) do
        pcall(vim.keymap.del, "n", k[1], { buffer = b })
      end
    end
  end
end

-- M.current returns the request the float shows, or nil.
function M.current()
  if current and vim.api.nvim_buf_is_valid(current.buf) then
    return current.req
  end
  return nil
end

local function place(buf, lines, enter)
  local cols, rows = vim.o.columns, vim.o.lines
  local width = math.min(cols - 4, 100)
  local height = math.max(3, math.min(#lines, rows - 8))
  return vim.api.nvim_open_win(buf, enter, {
    relative = "editor",
    width = width,
    height = height,
    col = math.floor((cols - width) / 2),
    row = math.max(1, math.floor((rows - height) / 2) - 1),
    border = "rounded",
    style = "minimal",
  })
end

local function map_keys(buf, req, decide)
  for _, k in ipairs(M.KEYS) do
    local opt = option_of(req, k[2])
    if opt then
      vim.keymap.set("n", k[1], function()
        decide(opt)
      end, { buffer = buf, nowait = true, silent = true, desc = "dsh: " .. k[3] })
    end
  end
end

-- M.show opens the float for req; decide(option) answers it (the caller
-- closes), later() is called on q/<Esc>. Returns the window.
function M.show(req, prompt, decide, later)
  M.close()
  local width = math.min(vim.o.columns - 4, 100)
  local lines, hls, line_hls = M.lines(req, prompt, width)
  local buf = vim.api.nvim_create_buf(false, true)
  vim.bo[buf].bufhidden = "hide"
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  vim.bo[buf].modifiable = false
  vim.bo[buf].filetype = "dshapprove"
  for _, h in ipairs(hls) do
    vim.api.nvim_buf_add_highlight(buf, NS, h[4], h[1], h[2], h[3])
  end
  for _, h in ipairs(line_hls) do
    vim.api.nvim_buf_set_extmark(buf, NS, h[1], 0, { line_hl_group = h[2], priority = 50 })
  end
  current = { req = req, buf = buf, extra_bufs = {} }
  map_keys(buf, req, decide)
  local function later_fn()
    M.close()
    if later then
      later()
    end
  end
  for _, lhs in ipairs({ "q", "<Esc>" }) do
    vim.keymap.set("n", lhs, later_fn, { buffer = buf, nowait = true, silent = true, desc = "dsh: decide later" })
  end
  vim.keymap.set("n", "d", function()
    local c = current
    if require("dsh.ui.diffview").open(req.call, req.session.cwd, req.session) == 0 then
      return
    end
    -- the diff tab: the same keys answer from either side, and the
    -- float comes along (floats belong to a tab page), not focused
    for _, w in ipairs(vim.api.nvim_tabpage_list_wins(0)) do
      local b = vim.api.nvim_win_get_buf(w)
      map_keys(b, req, decide)
      c.extra_bufs[#c.extra_bufs + 1] = b
    end
    if c.win and vim.api.nvim_win_is_valid(c.win) then
      vim.api.nvim_win_close(c.win, true)
    end
    c.win = place(buf, lines, false)
  end, { buffer = buf, nowait = true, silent = true, desc = "dsh: the change side by side" })
  -- focused only when the person is in the chat, in Normal mode: keys
  -- typed elsewhere must not answer a request they have not seen
  local chat = package.loaded["dsh"] and require("dsh").state.chats[req.session.id]
  local here = vim.api.nvim_get_current_win()
  local enter = chat ~= nil and (here == chat.win or here == chat.input_win)
    and vim.api.nvim_get_mode().mode == "n"
  current.win = place(buf, lines, enter)
  if not enter then
    vim.notify("dsh: " .. prompt:gsub("[%z\r\n]+", " ") .. " (:DshApprove to answer)", vim.log.levels.WARN)
  end
  local wo = vim.wo[current.win]
  wo.wrap = true
  wo.cursorline = true
  return current.win
end

-- M.focus puts the cursor back in the float (in this tab page: opened
-- again here when it was left in another). False when there is none.
function M.focus()
  local c = current
  if not c or not vim.api.nvim_buf_is_valid(c.buf) then
    return false
  end
  if not (c.win and vim.api.nvim_win_is_valid(c.win))
    or vim.api.nvim_win_get_tabpage(c.win) ~= vim.api.nvim_get_current_tabpage() then
    if c.win and vim.api.nvim_win_is_valid(c.win) then
      vim.api.nvim_win_close(c.win, true)
    end
    c.win = place(c.buf, vim.api.nvim_buf_get_lines(c.buf, 0, -1, false), true)
  else
    vim.api.nvim_set_current_win(c.win)
  end
  return true
end

return M
