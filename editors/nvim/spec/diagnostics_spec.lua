-- The language-server problems of a completed edit card (docs/meta-dsh.md,
-- "diagnostics"): drawn under the diff, highlighted by severity, and <CR>
-- on one opens the file at its line and character column.
local h = require("helpers")
local cards = require("dsh.ui.cards")
local diagnostics = require("dsh.ui.diagnostics")

local SRC = table.concat({ "package demo", "", "func Add(a, b int) int { return a + b }", "",
  'var s = "é😀" + Add(1, "two")', "" }, "\n")

local function edit_updates(path, meta)
  local diff = { path = path, oldText = "a\n", newText = "b\n" }
  return {
    { sessionUpdate = "tool_call", toolCallId = "e1", title = "Edit demo.go", kind = "edit", status = "pending" },
    { sessionUpdate = "tool_call_update", toolCallId = "e1", status = "completed",
      content = { { type = "diff", path = path, oldText = "a\n", newText = "b\n" },
        { type = "content", content = { type = "text",
          text = "Language server: 2 problems\n" .. path .. ":5:22: error: x" } } },
      _meta = { dsh = vim.tbl_extend("force", { version = 1, card = { card = "diff", diffs = { diff } } }, meta) } },
  }
end

local function find(lines, pat)
  for i, l in ipairs(lines) do
    if l:find(pat, 1, true) then
      return i
    end
  end
end

describe("edit card diagnostics", function()
  after_each(function()
    vim.cmd("silent! only")
    vim.cmd("silent! %bwipeout!")
  end)

  it("are drawn under the diff, by severity, once", function()
    local s = require("dsh.session").new("s", { cwd = "/w" })
    for _, u in ipairs(edit_updates("/w/demo.go", { diagnostics = {
      { path = "/w/demo.go", line = 5, column = 22, severity = "error", message = "cannot use \"two\" as int value",
        source = "compiler", code = "IncompatibleAssign" },
      { path = "/w/demo.go", line = 3, column = 6, severity = "warning", message = "unused" },
    } })) do
      s:apply(u)
    end
    local out = cards.render(s.calls.e1)
    local e = find(out.lines, "/w/demo.go:5:22: error:")
    local w = find(out.lines, "/w/demo.go:3:6: warning: unused")
    assert.truthy(e, table.concat(out.lines, "\n"))
    assert.truthy(w)
    assert.truthy(e > find(out.lines, "@@"), "under the diff")
    assert.are.equal("Language server: 1 error, 1 warning", out.lines[e - 1])
    assert.truthy(out.lines[e]:find('cannot use "two" as int value (compiler IncompatibleAssign)', 1, true))
    -- the plain text block is for other clients: not drawn as well
    assert.is_nil(find(out.lines, "Language server: 2 problems"))
    local groups = {}
    for _, hl in ipairs(out.hls) do
      groups[hl[1] + 1] = groups[hl[1] + 1] or {}
      groups[hl[1] + 1][hl[4]] = true
    end
    assert.truthy(groups[e].DiagnosticError)
    assert.falsy(groups[e].DiagnosticWarn)
    assert.truthy(groups[w].DiagnosticWarn)
    assert.are.same({ "/w/demo.go", 5, 22 }, { out.target_paths[e - 1], out.targets[e - 1], out.target_cols[e - 1] })
    assert.truthy(vim.fn.hlexists("DiagnosticError") == 1 and vim.fn.hlexists("DiagnosticWarn") == 1)
  end)

  it("come from card.diagnostics too, and are absent when there are none", function()
    local card = { card = "diff", diffs = {},
      diagnostics = { { path = "/a", line = 0, column = "x", severity = "fatal", message = "m" } } }
    assert.are.same({ { path = "/a", line = 1, column = 1, severity = "error", message = "m" } },
      diagnostics.list({ dsh = { card = card } }))
    assert.is_nil(diagnostics.list({ dsh = { card = { card = "diff" } } }))
    assert.is_nil(diagnostics.list({ dsh = { diagnostics = { { line = 1 }, "x" } } }))
    local s = require("dsh.session").new("s", { cwd = "/w" })
    for _, u in ipairs(edit_updates("/w/demo.go", {})) do
      s:apply(u)
    end
    assert.is_nil(find(cards.render(s.calls.e1).lines, "Language server"))
  end)

  it("turn a character column into a byte column", function()
    local cases = {
      { "ascii", "\tx := 1", 2, 1 },
      { "first", "abc", 1, 0 },
      { "after multibyte characters", 'var s = "é😀" + 1', 13, 16 },
      { "past the end", "ab", 9, 2 },
    }
    for _, c in ipairs(cases) do
      assert.are.equal(c[4], diagnostics.byte_col(c[2], c[3]), c[1])
    end
  end)

  it("<CR> on one opens the file at its line and column", function()
    local dir = h.workspace({ ["demo.go"] = SRC })
    local path = dir .. "/demo.go"
    local s = require("dsh.session").new("s", { cwd = dir })
    local chat = require("dsh.ui.chat").new(s, require("dsh.config").merge())
    for _, u in ipairs(edit_updates(path, { diagnostics = {
      { path = path, line = 5, column = 16, severity = "error", message = "cannot use" } } })) do
      s:apply(u)
    end
    chat:flush()
    vim.cmd("enew")
    vim.cmd("vsplit")
    vim.api.nvim_win_set_buf(0, chat.buf)
    local row = find(vim.api.nvim_buf_get_lines(chat.buf, 0, -1, false), path .. ":5:16: error: cannot use")
    assert.truthy(row)
    vim.api.nvim_win_set_cursor(0, { row, 0 })
    chat:open_target()
    assert.are.equal(path, vim.api.nvim_buf_get_name(0))
    -- column 16 is the A of Add, after é (2 bytes) and 😀 (4 bytes)
    local cur = vim.api.nvim_win_get_cursor(0)
    assert.are.equal(5, cur[1])
    assert.are.equal("Add", vim.api.nvim_get_current_line():sub(cur[2] + 1, cur[2] + 3))
    chat:destroy()
  end)
end)
