-- dsh.ui.chat: a session's chat: the transcript buffer (markdown, drawn
-- block by block), the prompt buffer below it, their windows (a split or
-- floats), the statusline, and the keymaps. Redraws are batched: updates
-- mark blocks dirty, and one flush per frame (16 ms) draws them.
local cards = require("dsh.ui.cards")
local render = require("dsh.ui.render")
local markdown = require("dsh.ui.markdown")
local terminal = require("dsh.terminal")

local M = {}

local NS = vim.api.nvim_create_namespace("dsh_chat")
local by_buf = {} -- transcript buffer -> chat

local Chat = {}
Chat.__index = Chat

local counter = 0

local function scratch(name, ft)
  local b = vim.api.nvim_create_buf(false, true)
  vim.api.nvim_buf_set_name(b, name)
  vim.bo[b].buftype = "nofile"
  vim.bo[b].bufhidden = "hide"
  vim.bo[b].swapfile = false
  vim.bo[b].filetype = ft
  return b
end

-- M.new makes the chat of session s (no windows yet). opts: the plugin
-- config; send(chat, text) is called when the person sends a prompt.
function M.new(s, opts)
  counter = counter + 1
  require("dsh.ui.highlight").ensure()
  local self = setmetatable({
    session = s,
    opts = opts,
    drawn = {}, -- block -> {n = lines incl. separator, len = text drawn, content = body lines}
    dirty = {},
    expanded = {},
    attachments = {},
  }, Chat)
  -- not "markdown": its regex syntax paints snake_case red and styles
  -- cards' code; dsh.ui.markdown draws the answers
  self.buf = scratch("dsh://chat/" .. counter, "dshchat")
  vim.bo[self.buf].modifiable = false
  self.input = scratch("dsh://prompt/" .. counter, "dshprompt")
  require("dsh.ui.complete").attach(self)
  by_buf[self.buf] = self
  require("dsh.ui.chatkeys").attach(self)
  s:on_change(function(block, what)
    if block then
      self.dirty[block] = true
    else
      self.header_dirty = true
      self.redraw = self.redraw or what == "cut"
    end
    self:schedule()
  end)
  self.term_listener = terminal.on_output(function(id)
    for _, call in pairs(s.calls) do
      if call.terminal_id == id then
        self.dirty[call] = true
        self:schedule()
      end
    end
  end)
  for _, b in ipairs(s.blocks) do
    self.dirty[b] = true
  end
  self:schedule()
  return self
end

function M.for_buf(buf)
  return by_buf[buf]
end

-- schedule asks for a flush within one frame.
function Chat:schedule()
  if self.flush_pending or self.closed then
    return
  end
  self.flush_pending = true
  vim.defer_fn(function()
    self.flush_pending = false
    self:flush()
  end, self.opts.frame_ms or 16)
end

local function draw_block(self, b)
  local o
  if b.kind == "tool" then
    local indent = b.parent and "    " or ""
    local st = self.expanded[b]
    o = cards.render(b, { expanded = st == true, collapsed = st == "collapsed", indent = indent })
  elseif b.kind == "plan" then
    o = render.plan(b)
  elseif b.kind == "notice" then
    o = render.notice(b, self.expanded[b])
  else
    o = render.text(b)
  end
  return o
end

local function apply_hls(buf, start, o)
  for _, h in ipairs(o.hls) do
    vim.api.nvim_buf_add_highlight(buf, NS, h[4], start + h[1], h[2], h[3])
  end
  for _, h in ipairs(o.line_hls) do
    vim.api.nvim_buf_set_extmark(buf, NS, start + h[1], 0, { line_hl_group = h[2], priority = 50 })
  end
end

-- append_text draws the text a streaming block gained since the last flush.
function Chat:_append_text(b, d, start)
  local prefix = render.PREFIX[b.kind] or ""
  local add = b.text:sub(d.len + 1)
  local parts = vim.split(add, "\n", { plain = true })
  local last_row = start + d.n - 2 -- the block's last body line (before the separator)
  local last = vim.api.nvim_buf_get_lines(self.buf, last_row, last_row + 1, false)[1] or ""
  local repl = { last .. parts[1] }
  for i = 2, #parts do
    repl[i] = prefix .. parts[i]
  end
  vim.api.nvim_buf_set_lines(self.buf, last_row, last_row + 1, false, repl)
  if b.kind == "agent" then
    vim.api.nvim_buf_clear_namespace(self.buf, NS, last_row, last_row + #repl)
    d.md_last = markdown.draw(self.buf, NS, last_row, repl, d.md_last)
  end
  if b.kind == "thought" then
    for i = 0, #repl - 1 do
      vim.api.nvim_buf_add_highlight(self.buf, NS, "DshThought", last_row + i, 0, -1)
    end
  end
  d.n = d.n + #parts - 1
  d.len = #b.text
end

-- flush draws the dirty blocks, in one pass over the transcript.
function Chat:flush()
  if self.closed or not vim.api.nvim_buf_is_valid(self.buf) then
    return
  end
  local started = vim.loop.hrtime()
  local buf = self.buf
  local follow = self:_following()
  vim.bo[buf].modifiable = true
  local start = 0
  local folds = {}
  local blocks = self.session.blocks
  if self.redraw then
    -- blocks were cut (a rewind): the transcript is drawn again whole
    self.redraw = nil
    vim.api.nvim_buf_clear_namespace(buf, NS, 0, -1)
    vim.api.nvim_buf_set_lines(buf, 0, -1, false, {})
    self.drawn, self.dirty, self.folded = {}, {}, {}
    for _, b in ipairs(blocks) do
      self.dirty[b] = true
    end
  end
  for i, b in ipairs(blocks) do
    local d = self.drawn[b]
    if self.dirty[b] then
      self.dirty[b] = nil
      local text_block = b.kind == "agent" or b.kind == "thought" or b.kind == "user"
      if d and text_block and d.len and #b.text > d.len then
        -- text blocks only grow (dsh.session appends chunks)
        self:_append_text(b, d, start)
      else
        local o = draw_block(self, b)
        local lines = o.lines
        for j, l in ipairs(lines) do -- a buffer line holds no newline
          if l:find("\n", 1, true) then
            lines[j] = l:gsub("\n", " ")
          end
        end
        if #lines > 0 then
          lines[#lines + 1] = "" -- the separator
        end
        local old_n = d and d.n or 0
        if old_n > 0 then
          vim.api.nvim_buf_clear_namespace(buf, NS, start, start + old_n)
        end
        if start == 0 and old_n == 0 and vim.api.nvim_buf_line_count(buf) == 1 and
          vim.api.nvim_buf_get_lines(buf, 0, 1, false)[1] == "" then
          vim.api.nvim_buf_set_lines(buf, 0, 1, false, lines) -- the empty buffer's one line
        else
          vim.api.nvim_buf_set_lines(buf, start, start + old_n, false, lines)
        end
        apply_hls(buf, start, o)
        d = { n = #lines, header = o.header, targets = o.targets, target_paths = o.target_paths,
          target_cols = o.target_cols, cut = o.cut }
        if b.kind == "agent" and #lines > 1 then
          d.md_last = markdown.draw(buf, NS, start, vim.list_slice(lines, 1, #lines - 1), nil)
        end
        if text_block then
          d.len = #b.text
        end
        self.drawn[b] = d
      end
    end
    if d then
      if b.kind == "thought" and d.n > 2 and i < #blocks then
        -- a finished thought (something follows it): its body folds
        folds[#folds + 1] = { b, start + 2, start + d.n - 1 } -- 1-based body lines
      end
      d.start = start
      start = start + d.n
    end
  end
  vim.bo[buf].modifiable = false
  self:_fold(folds)
  self:_welcome()
  if self.header_dirty then
    self.header_dirty = false
    self:_statusline()
  end
  if follow then
    self:_scroll_end()
  end
  self.last_flush_ms = (vim.loop.hrtime() - started) / 1e6
  if self.on_flush then
    self.on_flush(self)
  end
end

-- _welcome shows render.WELCOME as virtual lines while the chat has no
-- message (nothing to copy, nothing in the transcript's text).
local NS_WELCOME = vim.api.nvim_create_namespace("dsh_welcome")

function Chat:_welcome()
  local empty = true
  for _, b in ipairs(self.session.blocks) do
    if b.kind ~= "notice" then
      empty = false
      break
    end
  end
  if not empty and not self.welcome_shown then
    return
  end
  -- placed again at each flush while empty: below the last notice
  self.welcome_shown = empty
  vim.api.nvim_buf_clear_namespace(self.buf, NS_WELCOME, 0, -1)
  if empty then
    local lines = {}
    for i, l in ipairs(render.WELCOME) do
      lines[i] = { { l, "DshCardMeta" } }
    end
    local last = vim.api.nvim_buf_line_count(self.buf) - 1
    vim.api.nvim_buf_set_extmark(self.buf, NS_WELCOME, last, 0, { virt_lines = lines })
  end
end

function Chat:_following()
  local w = self.win
  if not (w and vim.api.nvim_win_is_valid(w)) then
    return false
  end
  local row = vim.api.nvim_win_get_cursor(w)[1]
  return row >= vim.api.nvim_buf_line_count(self.buf) - 1
end

function Chat:_scroll_end()
  local w = self.win
  if w and vim.api.nvim_win_is_valid(w) then
    vim.api.nvim_win_set_cursor(w, { vim.api.nvim_buf_line_count(self.buf), 0 })
  end
end

-- _fold closes the body of each finished thought, once per window: a
-- thought streams in open, and folds when the answer starts. Manual folds
-- move with the lines above them, so a fold is made only once (again
-- when the chat is opened in a new window).
function Chat:_fold(folds)
  local w = self.win
  if not (w and vim.api.nvim_win_is_valid(w)) then
    return
  end
  self.folded = self.folded or {}
  for _, f in ipairs(folds) do
    local b, first, last = f[1], f[2], f[3]
    if self.folded[b] ~= w then
      self.folded[b] = w
      vim.api.nvim_win_call(w, function()
        vim.cmd(("silent! %d,%dfold"):format(first, last))
      end)
    end
  end
end

-- block_at returns the block drawn at 1-based line lnum, and the row within it.
function Chat:block_at(lnum)
  for _, b in ipairs(self.session.blocks) do
    local d = self.drawn[b]
    if d and d.start and lnum - 1 >= d.start and lnum - 1 < d.start + d.n then
      return b, lnum - 1 - d.start
    end
  end
  return nil
end

-- status_text is the chat window's statusline (dsh.ui.status).
function Chat:status_text()
  return require("dsh.ui.status").text(self.session)
end

function Chat:_statusline()
  local w = self.win
  if w and vim.api.nvim_win_is_valid(w) then
    -- a narrow window cuts the middle (model, mode), not the title
    local text = self:status_text():gsub("%%", "%%%%")
    local title = self.session.title
    if type(title) == "string" and title ~= "" then
      local head = "dsh · " .. require("dsh.session").one_line(title):gsub("%%", "%%%%")
      if text:sub(1, #head) == head then
        text = head .. "%<" .. text:sub(#head + 1)
      end
    end
    vim.wo[w].statusline = " " .. text
  end
end

-- open shows the chat (or focuses it). Layout from opts.layout: "split"
-- (default, on the right) or "float".
function Chat:open()
  if self.win and vim.api.nvim_win_is_valid(self.win) then
    vim.api.nvim_set_current_win(self.input_win or self.win)
    return
  end
  local o = self.opts
  if o.layout == "float" then
    local cols, rows = vim.o.columns, vim.o.lines
    local w = math.floor(cols * (o.float_width or 0.8))
    local h = math.floor(rows * (o.float_height or 0.8))
    local col, row = math.floor((cols - w) / 2), math.floor((rows - h) / 2)
    self.win = vim.api.nvim_open_win(self.buf, true, { relative = "editor", width = w, height = h - 7,
      col = col, row = row, border = "rounded", style = "minimal" })
    self.input_win = vim.api.nvim_open_win(self.input, true, { relative = "editor", width = w, height = 4,
      col = col, row = row + h - 5, border = "rounded", style = "minimal" })
  else
    vim.cmd(("botright vertical %dsplit"):format(o.width or 80))
    self.win = vim.api.nvim_get_current_win()
    vim.api.nvim_win_set_buf(self.win, self.buf)
    vim.cmd(("belowright %dsplit"):format(o.input_height or 5))
    self.input_win = vim.api.nvim_get_current_win()
    vim.api.nvim_win_set_buf(self.input_win, self.input)
  end
  local wo = vim.wo[self.win]
  wo.wrap = true
  wo.linebreak = true
  wo.number = false
  wo.relativenumber = false
  wo.signcolumn = "no"
  wo.foldmethod = "manual"
  -- the answers' Markdown markers hide (dsh.ui.markdown), on every line:
  -- the transcript is read, not edited
  wo.conceallevel = 2
  wo.concealcursor = "nc"
  wo.foldenable = true
  self.folded = {}
  for b in pairs(self.dirty) do
    self.dirty[b] = true
  end
  self:flush() -- draws what is pending, and folds the thoughts in this window
  wo.winfixwidth = true
  local iwo = vim.wo[self.input_win]
  iwo.winfixheight = true
  -- the prompt is not a file: no line numbers, whatever the split inherited
  iwo.number = false
  iwo.relativenumber = false
  iwo.signcolumn = "no"
  vim.wo[self.input_win].statusline = " prompt · <CR> send (normal mode) · <C-c> cancel · :DshAdd attach"
  self:_statusline()
  self:_scroll_end()
  vim.api.nvim_set_current_win(self.input_win)
end

function Chat:close()
  for _, w in ipairs({ self.input_win, self.win }) do
    if w and vim.api.nvim_win_is_valid(w) then
      vim.api.nvim_win_close(w, true)
    end
  end
end

-- destroy ends the chat: windows, buffers and listeners.
function Chat:destroy()
  self:close()
  self.closed = true
  terminal.off_output(self.term_listener)
  by_buf[self.buf] = nil
  for _, b in ipairs({ self.buf, self.input }) do
    if vim.api.nvim_buf_is_valid(b) then
      vim.api.nvim_buf_delete(b, { force = true })
    end
  end
end

-- take_prompt empties the prompt buffer and returns its text.
function Chat:take_prompt()
  local lines = vim.api.nvim_buf_get_lines(self.input, 0, -1, false)
  vim.api.nvim_buf_set_lines(self.input, 0, -1, false, {})
  return vim.trim(table.concat(lines, "\n"))
end

-- toggle cycles the card under the cursor: a card cut short expands,
-- then collapses to its title, then is drawn as at first; any other card
-- collapses, then comes back.
function Chat:toggle()
  local b = self:block_at(vim.api.nvim_win_get_cursor(0)[1])
  if b and b.kind == "notice" then
    self.expanded[b] = not self.expanded[b] or nil
    self.dirty[b] = true
    return self:flush()
  end
  if b and b.kind == "tool" then
    local st, d = self.expanded[b], self.drawn[b]
    if st == nil then
      st = (d and d.cut) and true or "collapsed"
    elseif st == true then
      st = "collapsed"
    else
      st = nil
    end
    self.expanded[b] = st
    self.dirty[b] = true
    self:flush()
  end
end

-- open_target opens what the line under the cursor points at
-- (dsh.ui.targets).
function Chat:open_target()
  require("dsh.ui.targets").open(self)
end

return M
