-- dsh.ui.cards: a tool call drawn as lines with highlights. Rendered by
-- card type from `_meta.dsh` (docs/meta-dsh.md), and from the plain ACP
-- fields when there is none. Pure: returns data, touches no buffer.
local hl = require("dsh.ui.highlight")
local terminal = require("dsh.terminal")
local diffcard = require("dsh.ui.diffcard")
local diagnostics = require("dsh.ui.diagnostics")

local M = {}

-- M.limits of a card's body (lines); the user can expand a card.
M.limits = { read = 30, terminal = 20, search = 40, generic = 30 }

local ICON = { pending = "○", in_progress = "◐", completed = "✓", failed = "✗", cancelled = "⊘" }
local STATUS_HL = { pending = "DshPending", in_progress = "DshRunning", completed = "DshDone", failed = "DshFailed",
  cancelled = "DshFailed" }

local Out = {}
Out.__index = Out

local function new_out(indent)
  return setmetatable({ lines = {}, hls = {}, line_hls = {}, targets = {}, target_paths = {}, indent = indent or "" },
    Out)
end

-- add appends a line (indented); group highlights all of it. Returns its
-- 0-based row within the card and the byte column where the text starts.
function Out:add(text, group)
  if text:find("\n", 1, true) then
    text = text:gsub("\n", "␤")
  end
  local row = #self.lines
  self.lines[row + 1] = self.indent .. text
  if group then
    self.hls[#self.hls + 1] = { row, #self.indent, -1, group }
  end
  return row, #self.indent
end

function Out:hl(row, s, e, group)
  self.hls[#self.hls + 1] = { row, s, e, group }
end

function Out:line_hl(row, group)
  self.line_hls[#self.line_hls + 1] = { row, group }
end

-- target makes <CR> on the row open path at lnum (and col, 1-based in
-- characters, when given). (Flat maps: a 5,000-line card makes no table
-- per line.)
function Out:target(row, path, lnum, col)
  self.targets[row] = lnum or 1
  self.target_paths[row] = path
  if col then
    self.target_cols = self.target_cols or {}
    self.target_cols[row] = col
  end
end

local textutil = require("dsh.text")
local split, str = textutil.lines, textutil.str

-- byte offset of a UTF-16 index in line (ASCII lines are the common case).
local function byteidx(line, u16)
  if not line:find("[\128-\255]") then
    return math.min(u16, #line)
  end
  local ok, b = pcall(vim.str_byteindex, line, u16, true)
  return ok and b or #line
end

local function tokens_on(out, row, col, text, spans)
  if type(spans) ~= "table" then
    return
  end
  for _, sp in ipairs(spans) do
    local g = type(sp) == "table" and type(sp.type) == "string" and hl.token_group(sp.type)
    if g and type(sp.start) == "number" and type(sp["end"]) == "number" then
      out:hl(row, col + byteidx(text, sp.start), col + byteidx(text, sp["end"]), g)
    end
  end
end

local function more(out, n, expanded)
  if n > 0 and not expanded then
    out.cut = true
    out:add(("  … %d more line%s (<Tab> to expand)"):format(n, n == 1 and "" or "s"), "DshCardMeta")
  end
end

-- M.hunks and M.diffs: see dsh.ui.diffcard.
M.hunks = diffcard.hunks
M.diffs = diffcard.diffs

-- read ---------------------------------------------------------------------

local function draw_read(out, call, card, expanded)
  local lines = type(card.lines) == "table" and card.lines or {}
  local tokens = call.dsh.tokens
  local row0 = out:add(str(card.path) .. ("  lines %d–%d of %s"):format(card.offset or 1,
    (card.offset or 1) + math.max(#lines - 1, 0), str(card.totalLines)), "DshPath")
  out:target(row0, card.path, card.offset or 1)
  local n = expanded and #lines or math.min(#lines, M.limits.read)
  for i = 1, n do
    local l = lines[i]
    local text = str(l.text)
    local gutter = ("%5d │ "):format(l.number or i)
    local row, col = out:add(gutter .. text)
    out:hl(row, col, col + #gutter, "DshLineNr")
    out:target(row, card.path, l.number)
    tokens_on(out, row, col + #gutter, text, type(tokens) == "table" and tokens[i])
  end
  more(out, #lines - n, expanded)
end

-- terminal -----------------------------------------------------------------

local function strip_ansi(s)
  return (s:gsub("\27%[[%d;?]*[%a@]", ""):gsub("\27%][^\7]*\7", ""):gsub("\r", ""))
end

local function draw_terminal(out, call, card, expanded)
  local t = call.dsh.terminal
  local live = call.terminal_id and terminal.get(call.terminal_id)
  local text
  if type(t) == "table" and t.output ~= nil then
    text = str(t.output)
  elseif type(card) == "table" and card.output ~= nil then
    text = str(card.output)
  elseif live then
    text = live.output
  elseif call.live_output then
    text = call.live_output
  end
  if type(card) == "table" and card.cwd then
    out:add("in " .. str(card.cwd), "DshCardMeta")
  end
  if text and text ~= "" then
    local lines = split(strip_ansi(text))
    local n = expanded and #lines or math.min(#lines, M.limits.terminal)
    local first = #lines - n + 1 -- the tail is what matters
    if first > 1 then
      out.cut = true
      out:add(("  … %d earlier line%s (<Tab> to expand)"):format(first - 1, first == 2 and "" or "s"), "DshCardMeta")
    end
    for i = first, #lines do
      out:add("│ " .. lines[i])
    end
  end
  local code = type(t) == "table" and t.exitCode or (type(card) == "table" and card.exitCode)
  local signal = type(t) == "table" and t.signal or (type(card) == "table" and card.signal)
  if signal and signal ~= vim.NIL then
    out:add("killed by " .. str(signal), "DshFailed")
  elseif code and code ~= vim.NIL then
    out:add("exit " .. str(code), code == 0 and "DshDone" or "DshFailed")
  end
end

-- search -------------------------------------------------------------------

local function draw_search(out, card, expanded)
  local budget = expanded and math.huge or M.limits.search
  local shown, total = 0, 0
  if card.shape == "paths" then
    for _, p in ipairs(card.paths or {}) do
      total = total + 1
      if shown < budget then
        local row = out:add(str(p), "DshPath")
        out:target(row, p, 1)
        shown = shown + 1
      end
    end
  else
    for _, f in ipairs(card.files or {}) do
      if shown < budget then
        local row = out:add(str(f.path), "DshPath")
        out:target(row, f.path, 1)
      end
      for _, m in ipairs(f.matches or {}) do
        total = total + 1
        if shown < budget then
          local row, col = out:add(("%5d: %s"):format(m.lineNumber or 0, str(m.line)))
          out:hl(row, col, col + 6, "DshLineNr")
          out:target(row, f.path, m.lineNumber)
          shown = shown + 1
        end
      end
    end
  end
  more(out, total - shown, expanded)
  if card.truncated then
    out:add(("  (results truncated: %s in all)"):format(str(card.total)), "DshCardMeta")
  end
end

-- generic and web ----------------------------------------------------------

local function draw_text(out, text, expanded, limit)
  if text == nil or text == "" then
    return
  end
  local lines = split(text)
  local n = expanded and #lines or math.min(#lines, limit or M.limits.generic)
  for i = 1, n do
    out:add(lines[i])
  end
  more(out, #lines - n, expanded)
end

local function content_text(content)
  local parts = {}
  for _, c in ipairs(type(content) == "table" and content or {}) do
    if type(c) == "table" and c.type == "content" and type(c.content) == "table" then
      local t = require("dsh.session").content_text(c.content)
      if t ~= "" then
        parts[#parts + 1] = t
      end
    end
  end
  return table.concat(parts, "\n")
end

local function draw_program(out, call, card, expanded)
  local code = type(card.rawInput) == "table" and card.rawInput.code or nil
  if type(code) ~= "string" then
    return false
  end
  local lines = split(code)
  local n = expanded and #lines or math.min(#lines, M.limits.generic)
  for i = 1, n do
    local row, col = out:add("│ " .. lines[i])
    tokens_on(out, row, col + #"│ ", lines[i], type(call.dsh.tokens) == "table" and call.dsh.tokens[i])
  end
  more(out, #lines - n, expanded)
  return true
end

local function draw_web(out, card)
  if card.kind == "fetch" then
    out:add(("%s  %s%s"):format(str(card.url), str(card.statusCode), card.truncated and "  (truncated)" or ""),
      "DshPath")
    return
  end
  if type(card.answer) == "string" and card.answer ~= "" then
    draw_text(out, card.answer)
  end
  for _, s in ipairs(card.sources or {}) do
    out:add("• " .. str(s.title ~= nil and s.title or s.url) .. "  " .. str(s.url))
  end
end

-- unfence takes the text out of a single ``` fence around all of it.
function M.unfence(text)
  local inner = text:match("^%s*```[%w_-]*\n(.-)\n?```%s*$")
  return inner or text
end

-- ended_text is the text of a command that ended without its terminal
-- card, and whether it was stopped (the tool's "command aborted").
local function ended_text(call, card)
  local text = content_text(call.content)
  if text == "" and type(card) == "table" and type(card.content) == "table" then
    text = content_text(card.content)
  end
  text = M.unfence(text)
  local bare = text:gsub("^%s*Error: ", ""):gsub("%s+$", "")
  local stopped = bare == "command aborted" or bare == "command aborted."
  return stopped and "" or text, stopped
end

-- collapse keeps a card's title row and says how many lines it hides.
local function collapse(out)
  local n = #out.lines - 1
  if n <= 0 then
    return
  end
  local keep = function(list)
    local kept = {}
    for _, h in ipairs(list) do
      if h[1] == 0 then
        kept[#kept + 1] = h
      end
    end
    return kept
  end
  out.lines = { out.lines[1] }
  out.hls, out.line_hls = keep(out.hls), keep(out.line_hls)
  out.targets, out.target_paths = { [0] = out.targets[0] }, { [0] = out.target_paths[0] }
  out.target_cols = nil
  out.cut = nil
  out:add(("  ▸ %d line%s (<Tab> to open)"):format(n, n == 1 and "" or "s"), "DshCardMeta")
end

-- M.render draws a call. opts: {expanded, indent, bare (no line asking
-- for the approval), collapsed (the title alone)}. Returns
-- {lines, hls = {{row, s, e, group}}, line_hls = {{row, group}},
-- targets = {row = lnum}, target_paths = {row = path}, cut (a body was
-- cut short: expanding shows more)}.
function M.render(call, opts)
  opts = opts or {}
  local out = new_out(opts.indent)
  local status = call.status or "pending"
  local card = call.dsh and call.dsh.card
  local kind = type(card) == "table" and card.card or nil
  local ended, stopped
  local drawn = { diff = true, read = true, terminal = true, search = true, web = true }
  if call.terminal_id and kind ~= nil and not drawn[kind] then
    ended, stopped = ended_text(call, card)
    if stopped then
      status = "cancelled"
    end
  end
  local icon = ICON[status] or "•"
  local title = str(call.title)
  if title == "" then
    title = str(call.tool_kind)
  end
  local row = out:add(icon .. " " .. title)
  out:hl(row, #out.indent, #out.indent + #icon, STATUS_HL[status] or "DshPending")
  out:hl(row, #out.indent + #icon + 1, -1, "DshCardTitle")
  local expanded = opts.expanded
  if kind == "diff" or (kind == nil and #M.diffs(call) > 0) then
    diffcard.draw(out, call)
    diagnostics.draw(out, call)
  elseif kind == "read" then
    draw_read(out, call, card, expanded)
  elseif kind == "terminal" or (kind == nil and call.terminal_id) then
    draw_terminal(out, call, card, expanded)
  elseif kind == "search" then
    draw_search(out, card, expanded)
  elseif kind == "web" then
    draw_web(out, card)
  else
    if call.terminal_id then
      -- a command that ended without a terminal card (cancelled, failed):
      -- what it printed, then why it ended
      draw_terminal(out, call, nil, expanded)
      if stopped then
        out:add("⊘ stopped", "DshAwaiting")
      else
        draw_text(out, ended, expanded)
      end
    elseif not (kind == "generic" and status == "pending" and draw_program(out, call, card, expanded)) then
      local text = content_text(call.content)
      if text == "" and type(card) == "table" and type(card.content) == "table" then
        text = content_text(card.content)
      end
      draw_text(out, text, expanded)
    end
  end
  if kind ~= "read" and kind ~= "terminal" and kind ~= "diff" and status == "failed" then
    -- the failure text is already the content
    out.failed = true
  end
  if opts.collapsed then
    collapse(out)
  end
  if call.awaiting and not opts.bare then
    out:add("? waiting for your approval (:DshApprove to answer, :DshDiff to review)", "DshAwaiting")
  end
  return out
end

return M
