-- Hostile updates and the planted bugs the red team found uncaught:
-- error notices drawn whole, "yesterday" one day, underscores inside
-- words, the welcome gone at the first prompt, and entries that are not
-- what the schema says.
local session = require("dsh.session")
local render = require("dsh.ui.render")

local function chat_of(s)
  return require("dsh.ui.chat").new(s, require("dsh.config").merge())
end

local function welcome(chat)
  chat:flush()
  local ns = vim.api.nvim_get_namespaces().dsh_welcome
  local out = {}
  for _, m in ipairs(vim.api.nvim_buf_get_extmarks(chat.buf, ns, 0, -1, { details = true })) do
    for _, vl in ipairs(m[4].virt_lines or {}) do
      out[#out + 1] = vl[1][1]
    end
  end
  return out
end

describe("the planted bugs", function()
  it("draws an error notice whole, never collapsed", function()
    local o = render.notice({ kind = "notice", severity = "error", title = "boom", detail = "why",
      text = "boom: why" }, false)
    assert.are.same({ "! boom: why" }, o.lines)
    local w = render.notice({ kind = "notice", severity = "warning", title = "slow", detail = "why",
      text = "slow: why" }, false)
    assert.are.same({ "! slow  ▸ <Tab> for details" }, w.lines)
  end)

  it("says yesterday for yesterday only", function()
    local t = require("dsh.timefmt")
    local now = os.time({ year = 2026, month = 12, day = 7, hour = 12, min = 0, sec = 0 })
    local yesterday = os.time({ year = 2026, month = 12, day = 6, hour = 9, min = 30, sec = 0 })
    local before = os.time({ year = 2026, month = 12, day = 5, hour = 9, min = 30, sec = 0 })
    assert.are.equal("yesterday 09:30", t.relative(yesterday, now))
    assert.are.equal(os.date("%a", before) .. " 09:30", t.relative(before, now))
  end)

  it("keeps underscores between letters and digits", function()
    local marks = require("dsh.ui.markdown").line("use ipv4_or_6 and _x_ here")
    -- marks are {start, end (0-based), …}: none inside ipv4_or_6 (4-12)
    for _, m in ipairs(marks) do
      assert.is_false(m[1] >= 4 and m[1] <= 12, vim.inspect(marks))
    end
    assert.truthy(#marks > 0, "the _x_ emphasis is drawn")
  end)

  it("takes the welcome away at the first prompt", function()
    local s = session.new("s-welcome")
    local chat = chat_of(s)
    assert.are.same(render.WELCOME, welcome(chat))
    s:add({ kind = "user", text = "hello" })
    assert.are.same({}, welcome(chat))
  end)
end)

describe("hostile updates", function()
  it("draws a plan whose type has a newline", function()
    local s = session.new("s-plan")
    local chat = chat_of(s)
    s:apply({ sessionUpdate = "plan_update", plan = { planId = "p1", type = "tree\nx", entries = {} } })
    chat:flush()
    local text = table.concat(vim.api.nvim_buf_get_lines(chat.buf, 0, -1, false), "\n")
    assert.truthy(text:find("Plan (tree x, not shown here)", 1, true), text)
  end)

  it("ignores config options that are not objects", function()
    local s = session.new("s-opts")
    s:apply({ sessionUpdate = "config_option_update", configOptions = { 5, "x",
      { id = "model", category = "model", type = "select", currentValue = "deepseek-chat" } } })
    assert.truthy(require("dsh.ui.status").text(s):find("deepseek-chat", 1, true))
  end)

  it("keeps titles, notices and links to one readable line", function()
    local s = session.new("s-title")
    s:apply({ sessionUpdate = "session_info_update", title = "a\nb\0c" })
    assert.are.equal("dsh · a b c", require("dsh.ui.status").text(s))
    assert.are.equal("[x]", session.content_text({ type = "resource_link", name = "x" }))
    s:apply({ sessionUpdate = "notice", severity = "info", title = { 1 } })
    local b = s.blocks[#s.blocks]
    assert.are.equal("", b.title)
    assert.falsy(render.plan({ entries = { { content = { 1 }, status = "pending" } } }).lines[2]:find("table:"))
    local label = require("dsh.commands").session_label({ sessionId = "x", title = "one\ntwo" }, os.time())
    assert.falsy(label:find("\n", 1, true), label)
  end)

  it("leaves a command with a NUL out of the completion", function()
    local items = require("dsh.ui.complete").items({ { name = "nul\0x" }, { name = "review" } }, "")
    assert.are.equal(1, #items)
    assert.are.equal("/review", items[1].word)
    assert.are.equal(1, vim.fn.len(items)) -- a NUL would throw E976 here
  end)
end)

describe("paths and dates in answers", function()
  local md = require("dsh.ui.markdown")
  for _, c in ipairs({
    { "see C:\\src\\main.go:12 now", "C:\\src\\main.go", 12 },
    { "see C:/src/main.go:12", "C:/src/main.go", 12 },
    { "at a.go:12:5 x", "a.go", 12, 5 },
    { "~/x/y.lua:4", "~/x/y.lua", 4 },
    { "x:a.go:4", "a.go", 4 },
  }) do
    it("reads " .. c[1], function()
      assert.are.same({ c[2], c[3], c[4] }, { md.path_at(c[1], 0) })
    end)
  end

  it("resolves ~/ and drive letters", function()
    assert.are.equal(vim.loop.os_homedir() .. "/x", md.absolute("~/x", "/cwd"))
    assert.are.equal("C:/a", md.absolute("C:/a", "/cwd"))
    assert.are.equal("C:\\a", md.absolute("C:\\a", "/cwd"))
    assert.are.equal("/cwd/a", md.absolute("a", "/cwd"))
  end)

  it("reads no time from fields out of range", function()
    local t = require("dsh.timefmt")
    assert.is_nil(t.epoch("2026-13-45T99:99:99Z"))
    assert.is_nil(t.epoch("0000-01-01T00:00:00Z"))
    assert.is_nil(t.epoch("2026-02-29T00:00:00Z"))
    assert.are.equal(1709164800, t.epoch("2024-02-29T00:00:00Z"))
  end)
end)
