-- dsh.ui.diffcard: the diff card's body (hunks with both line numbers),
-- the hunks of two texts computed with vim.diff, and the proposed file
-- changes of a call. Pure: writes into the output of dsh.ui.cards.
local M = {}

local textutil = require("dsh.text")
local split, str = textutil.lines, textutil.str

local function hunk_lines(out, path, hunk)
  local r = out:add(("@@ -%d,%d +%d,%d @@"):format(hunk.oldStart or 0, hunk.oldLines or 0, hunk.newStart or 0,
    hunk.newLines or 0), "DshDiffHunk")
  out:target(r, path, hunk.newStart)
  local o, n = hunk.oldStart or 0, hunk.newStart or 0
  if (hunk.oldLines or 0) > 0 and o == 0 then
    o = 1
  end
  if (hunk.newLines or 0) > 0 and n == 0 then
    n = 1
  end
  local blank = "     "
  local lines, hls, line_hls, targets, paths = out.lines, out.hls, out.line_hls, out.targets, out.target_paths
  local indent, col = out.indent, #out.indent
  for _, l in ipairs(hunk.lines or {}) do
    local text = type(l.text) == "string" and l.text or ""
    if text:byte(-1) == 10 then -- the line's own terminator
      text = text:sub(1, (text:byte(-2) == 13) and -3 or -2)
    end
    local op = l.op or " "
    local gutter
    if op == "-" then
      gutter = ("%5d %s -"):format(o, blank)
      o = o + 1
    elseif op == "+" then
      gutter = ("%s %5d +"):format(blank, n)
      n = n + 1
    else
      gutter = ("%5d %5d %s"):format(o, n, op)
      o, n = o + 1, n + 1
    end
    -- the hot loop of a big diff: out:add, out:hl and out:target inlined
    if text:find("\n", 1, true) then
      text = text:gsub("\n", "␤")
    end
    local row = #lines
    lines[row + 1] = indent .. gutter .. text
    hls[#hls + 1] = { row, col, col + 11, "DshLineNr" }
    if op == "+" then
      line_hls[#line_hls + 1] = { row, "DshDiffAdd" }
    elseif op == "-" then
      line_hls[#line_hls + 1] = { row, "DshDiffDelete" }
    end
    if op ~= "-" then
      targets[row], paths[row] = n - 1, path
    end
  end
end

-- M.hunks computes unified hunks (3 lines of context) of old -> new with
-- vim.diff, in the shape of `_meta.dsh.changes[].hunks`.
function M.hunks(old, new)
  old, new = old or "", new or ""
  local a, b = split(old), split(new)
  if old == "" then
    a = {}
  end
  if new == "" then
    b = {}
  end
  local function joined(lines)
    return #lines == 0 and "" or (table.concat(lines, "\n") .. "\n")
  end
  local idx = vim.diff(joined(a), joined(b), { result_type = "indices", ctxlen = 0 })
  local hunks = {}
  local ctx = 3
  local cur
  for _, d in ipairs(idx) do
    local as, ac, bs, bc = d[1], d[2], d[3], d[4]
    local a0 = ac == 0 and as + 1 or as -- first changed old line
    local b0 = bc == 0 and bs + 1 or bs
    local lo = math.max(1, a0 - ctx)
    if cur and a0 - cur.a_end - 1 <= 2 * ctx then
      -- close enough to share context (as diff -u): one hunk
      for i = cur.a_end + 1, a0 - 1 do
        cur.lines[#cur.lines + 1] = { op = " ", text = a[i] }
      end
    else
      if cur then
        hunks[#hunks + 1] = cur
      end
      cur = { a_start = lo, b_start = b0 - (a0 - lo), lines = {} }
      for i = lo, a0 - 1 do
        cur.lines[#cur.lines + 1] = { op = " ", text = a[i] }
      end
    end
    for i = a0, a0 + ac - 1 do
      cur.lines[#cur.lines + 1] = { op = "-", text = a[i] }
    end
    for i = b0, b0 + bc - 1 do
      cur.lines[#cur.lines + 1] = { op = "+", text = b[i] }
    end
    cur.a_end = a0 + ac - 1
    cur.trail = math.min(#a, cur.a_end + ctx)
  end
  if cur then
    hunks[#hunks + 1] = cur
  end
  for _, h in ipairs(hunks) do
    for i = h.a_end + 1, h.trail do
      h.lines[#h.lines + 1] = { op = " ", text = a[i] }
    end
    local ol, nl = 0, 0
    for _, l in ipairs(h.lines) do
      if l.op ~= "+" then
        ol = ol + 1
      end
      if l.op ~= "-" then
        nl = nl + 1
      end
    end
    h.oldStart, h.oldLines = ol == 0 and h.a_start - 1 or h.a_start, ol
    h.newStart, h.newLines = nl == 0 and h.b_start - 1 or h.b_start, nl
  end
  return hunks
end

-- M.diffs returns the proposed file changes of a call: [{path, oldText,
-- newText}] from the dsh card, else from ACP diff content.
function M.diffs(call)
  local card = call.dsh and call.dsh.card
  if type(card) == "table" and card.card == "diff" and type(card.diffs) == "table" then
    return card.diffs
  end
  local list = {}
  for _, c in ipairs(type(call.content) == "table" and call.content or {}) do
    if type(c) == "table" and c.type == "diff" then
      list[#list + 1] = { path = c.path, oldText = c.oldText, newText = c.newText }
    end
  end
  return list
end

-- M.draw writes the card of a call that changes files into out.
function M.draw(out, call)
  local changes = call.dsh and call.dsh.changes
  if type(changes) ~= "table" then
    changes = {}
    for _, d in ipairs(M.diffs(call)) do
      changes[#changes + 1] = { path = d.path, hunks = M.hunks(str(d.oldText), str(d.newText)),
        new = d.oldText == nil or d.oldText == vim.NIL }
    end
  end
  local last_path
  for _, ch in ipairs(changes) do
    local hs = ch.hunks or {}
    local created = ch.new or (#hs == 1 and hs[1].oldStart == 0 and hs[1].oldLines == 0)
    if ch.path ~= last_path then -- a completed edit lists its hunks one by one
      local row = out:add(str(ch.path) .. (created and "  (new file)" or ""), "DshPath")
      out:target(row, ch.path, 1)
      last_path = ch.path
    end
    for _, h in ipairs(ch.hunks or {}) do
      hunk_lines(out, ch.path, h)
    end
    if ch.truncated then
      out:add("  … the diff is longer than shown", "DshCardMeta")
    end
  end
end

return M
