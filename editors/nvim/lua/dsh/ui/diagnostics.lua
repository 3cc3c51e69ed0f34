-- dsh.ui.diagnostics: the language-server problems a completed edit/write
-- card carries in `_meta.dsh.diagnostics` (docs/meta-dsh.md), drawn under
-- the diff: one row each, highlighted DiagnosticError/DiagnosticWarn, and
-- <CR> on a row opens the file at its line and column. Pure: writes into
-- the output of dsh.ui.cards.
local M = {}

local function positive(n)
  n = tonumber(n)
  if not n or n ~= n or n < 1 then
    return 1
  end
  return math.floor(n)
end

-- M.list returns the call's well-formed diagnostics ({path, line, column,
-- severity = "error"|"warning", message, source?, code?}), from the meta or
-- else the card; nil when there are none.
function M.list(call)
  local dsh = call.dsh or {}
  local raw = dsh.diagnostics
  if type(raw) ~= "table" and type(dsh.card) == "table" then
    raw = dsh.card.diagnostics
  end
  if type(raw) ~= "table" then
    return nil
  end
  local out = {}
  for _, d in ipairs(raw) do
    if type(d) == "table" and type(d.path) == "string" and type(d.message) == "string" then
      out[#out + 1] = {
        path = d.path,
        line = positive(d.line),
        column = positive(d.column),
        severity = d.severity == "warning" and "warning" or "error",
        message = d.message,
        source = type(d.source) == "string" and d.source or nil,
        code = (type(d.code) == "string" or type(d.code) == "number") and tostring(d.code) or nil,
      }
    end
  end
  return #out > 0 and out or nil
end

local GROUP = { error = "DiagnosticError", warning = "DiagnosticWarn" }

-- M.draw writes the call's diagnostics into out (nothing when none).
function M.draw(out, call)
  local list = M.list(call)
  if not list then
    return
  end
  local errors = 0
  for _, d in ipairs(list) do
    if d.severity == "error" then
      errors = errors + 1
    end
  end
  local counts = {}
  if errors > 0 then
    counts[#counts + 1] = ("%d error%s"):format(errors, errors == 1 and "" or "s")
  end
  if #list - errors > 0 then
    counts[#counts + 1] = ("%d warning%s"):format(#list - errors, #list - errors == 1 and "" or "s")
  end
  out:add("Language server: " .. table.concat(counts, ", "), "DshCardMeta")
  for _, d in ipairs(list) do
    local at = ("%s:%d:%d"):format(d.path, d.line, d.column)
    local extra = table.concat(vim.tbl_filter(function(x)
      return x ~= nil
    end, { d.source, d.code }), " ")
    local tail = extra ~= "" and (" (" .. extra .. ")") or ""
    local row, col = out:add(("%s: %s: %s%s"):format(at, d.severity, d.message, tail))
    out:hl(row, col, col + #at, "DshPath")
    out:hl(row, col + #at + 2, -1, GROUP[d.severity])
    out:target(row, d.path, d.line, d.column)
  end
end

-- M.byte_col turns a 1-based column in characters (as `read` counts them)
-- on line into the 0-based byte column nvim_win_set_cursor takes, clamped
-- to the line.
function M.byte_col(line, column)
  local n = vim.fn.strchars(line)
  local c = math.min(math.max((tonumber(column) or 1) - 1, 0), n)
  if c >= n then
    return #line
  end
  -- byteidxcomp counts composing characters apart, as code points do
  return vim.fn.byteidxcomp(line, c)
end

return M
