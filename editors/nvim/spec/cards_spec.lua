-- The cards: a transcript of real updates from the binary against a
-- golden file, the vim.diff hunks against the bridge's own, chroma tokens
-- on highlight groups, and the plain-ACP fallback.
local h = require("helpers")
local cards = require("dsh.ui.cards")

local update = os.getenv("DSH_UPDATE") == "1"

local function golden(name, text)
  local path = h.root .. "/testdata/" .. name
  if update then
    local f = assert(io.open(path, "wb"))
    f:write(text)
    f:close()
  end
  local want = h.read(path)
  assert.truthy(want, path .. " is missing: run with DSH_UPDATE=1")
  assert.are.equal(want, text)
end

local GO = table.concat({ "package main", "", "// main greets.", "func main() {", '\tprintln("hi")', "}", "" }, "\n")

describe("cards", function()
  after_each(function()
    h.restore_select()
    require("dsh").reset()
    vim.cmd("silent! %bwipeout!")
  end)

  it("draw a real session like the golden transcript", function()
    local list = {}
    for i = 1, 20 do
      list[i] = "item " .. i
    end
    local dir = h.workspace({ ["main.go"] = GO, ["list.txt"] = table.concat(list, "\n") .. "\n" })
    local pending = {}
    h.select_with(function(items)
      return items[1]
    end)
    local chat = h.start("cards.jsonl", { auto_approve = {} })
    chat.session:on_change(function(b)
      if b and b.awaiting and b.dsh.card then
        pending[b.id] = vim.deepcopy(b.dsh)
      end
      -- glob lists by modification time, and the two writes can land in one
      -- tick of the file system's clock: age the first file before the
      -- second write runs, so the golden's order does not depend on timing
      if b and b.awaiting and b.id == "write_2" then
        assert(vim.loop.fs_utime(dir .. "/notes/new.txt", 1e9, 1e9))
      end
    end)
    -- the session's notice (commands run sandboxed in the editor's terminal) comes
    -- right after session/new; wait for it so it stays first in the golden
    h.wait(function()
      return chat.session.blocks[1] ~= nil and chat.session.blocks[1].kind == "notice"
    end, 5000, "the session's notice")
    assert.are.equal("end_turn", h.turn(chat, "show me every card"))
    local text = h.text(chat):gsub(vim.pesc(dir), "/WORKSPACE")
    golden("transcript.golden.txt", text)

    -- the fallback's hunks (vim.diff) are the bridge's own
    local compared = 0
    for id, d in pairs(pending) do
      for i, diff in ipairs(d.card.diffs or {}) do
        local mine = cards.hunks(type(diff.oldText) == "string" and diff.oldText or "", diff.newText)
        local theirs = {}
        for _, hk in ipairs(d.changes[i].hunks) do
          local lines = {}
          for _, l in ipairs(hk.lines) do
            lines[#lines + 1] = { op = l.op, text = (l.text:gsub("\r?\n$", "")) }
          end
          theirs[#theirs + 1] = { oldStart = hk.oldStart, oldLines = hk.oldLines, newStart = hk.newStart,
            newLines = hk.newLines, lines = lines }
        end
        for _, hk in ipairs(mine) do
          hk.a_start, hk.b_start, hk.a_end, hk.trail = nil, nil, nil, nil
        end
        assert.are.same(theirs, mine, id)
        compared = compared + 1
      end
    end
    assert.are.equal(3, compared, "the edit, the new file and the rewrite")

    -- chroma's tokens land on highlight groups
    local read = chat.session.calls.read_1
    assert.truthy(read.dsh.tokens, "the read's tokens arrived")
    local drawn = cards.render(read)
    local on_package
    for _, hl in ipairs(drawn.hls) do
      local line = drawn.lines[hl[1] + 1]
      if line:find("package main", 1, true) and line:sub(hl[2] + 1, hl[3]) == "package" then
        on_package = hl[4]
      end
    end
    assert.are.equal("DshTokKeywordNamespace", on_package)
    assert.truthy(vim.fn.hlexists("DshTokKeywordNamespace") == 1)
  end)

  it("unpack packed tokens to the same spans, and leave bad ones out", function()
    local session = require("dsh.session")
    local objects = {
      { { start = 0, ["end"] = 7, type = "KeywordNamespace" }, { start = 8, ["end"] = 12, type = "NameOther" } },
      {}, false, { { start = 1, ["end"] = 5, type = "KeywordNamespace" } },
    }
    local packed = vim.json.decode('{"lines":[[0,7,0,1,4,1],[],null,[1,4,0]],"types":["KeywordNamespace","NameOther"]}')
    -- lines are unpacked as they are asked for
    local function lines_of(toks, n)
      if toks == nil then
        return nil
      end
      local out = {}
      for i = 1, n do
        out[i] = toks[i]
      end
      return out
    end
    assert.are.same(objects, lines_of(session.unpack_tokens(packed), 4))
    local card = { card = "read", path = "/w/a.go", offset = 1, totalLines = 2,
      lines = { { number = 1, text = "package main" }, { number = 2, text = "" } } }
    local drawn = {}
    local two = vim.json.decode('{"lines":[[0,7,0,1,4,1],[]],"types":["KeywordNamespace","NameOther"]}')
    for _, tc in ipairs({ { "tokens", { objects[1], {} } }, { "packedTokens", two } }) do
      local s = session.new("s", { cwd = "/w" })
      s:apply({ sessionUpdate = "tool_call", toolCallId = "r", title = "Read", kind = "read", status = "pending" })
      s:apply({ sessionUpdate = "tool_call_update", toolCallId = "r", status = "completed",
        _meta = { dsh = { version = 1, card = card } } })
      s:apply({ sessionUpdate = "tool_call_update", toolCallId = "r",
        _meta = { dsh = { version = 1, [tc[1]] = tc[2] } } })
      drawn[tc[1]] = cards.render(s.calls.r).hls
    end
    assert.are.same(drawn.tokens, drawn.packedTokens)
    assert.truthy(#drawn.packedTokens > 0)
    -- a card unpacks the lines it draws, when it draws them
    local many = { card = "read", path = "/w/a.go", offset = 1, totalLines = 40, lines = {} }
    local packed_lines = {}
    for i = 1, 40 do
      many.lines[i] = { number = i, text = "x" }
      packed_lines[i] = { 0, 1, 0 }
    end
    local s = session.new("s", { cwd = "/w" })
    s:apply({ sessionUpdate = "tool_call_update", toolCallId = "m", status = "completed",
      _meta = { dsh = { version = 1, card = many } } })
    s:apply({ sessionUpdate = "tool_call_update", toolCallId = "m",
      _meta = { dsh = { version = 1, packedTokens = { lines = packed_lines, types = { "Keyword" } } } } })
    local toks = s.calls.m.dsh.tokens
    assert.is_nil(rawget(toks, 1))
    cards.render(s.calls.m)
    assert.are.same({ { start = 0, ["end"] = 1, type = "Keyword" } }, rawget(toks, cards.limits.read))
    assert.is_nil(rawget(toks, cards.limits.read + 1))
    assert.are.same({ { start = 0, ["end"] = 1, type = "Keyword" } }, toks[40])
    assert.is_nil(toks[41])
    for _, tc in ipairs({
      { '{"lines":[[0,2,5]],"types":["Keyword"]}', { {} } }, -- no type 5
      { '{"lines":[[0,2,0,-1,2,0]],"types":["Keyword"]}', { { { start = 0, ["end"] = 2, type = "Keyword" } } } },
      { '{"lines":[[0,2,0,1,2]],"types":["Keyword"]}', { { { start = 0, ["end"] = 2, type = "Keyword" } } } },
      { '{"lines":["x",3,[0.5,1,0]],"types":["Keyword"]}', { false, false, {} } },
      { '{"lines":[[0,1,0]]}', nil },
      { '"junk"', nil },
    }) do
      assert.are.same(tc[2], lines_of(session.unpack_tokens(vim.json.decode(tc[1])), tc[2] and #tc[2] or 0), tc[1])
    end
  end)

  it("hunks cover the edges: a new file, a file emptied, far-apart changes", function()
    for _, tc in ipairs({
      { name = "new file", old = "", new = "a\nb\n", want = { { 0, 0, 1, 2 } } },
      { name = "emptied", old = "a\nb\n", new = "", want = { { 1, 2, 0, 0 } } },
      { name = "two hunks", old = "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n",
        new = "one\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\ntwelve\n", want = { { 1, 4, 1, 4 }, { 9, 4, 9, 4 } } },
      { name = "six lines apart share context", old = "1\n2\n3\n4\n5\n6\n7\n8\n9\n",
        new = "one\n2\n3\n4\n5\n6\n7\neight\n9\n", want = { { 1, 9, 1, 9 } } },
      { name = "seven lines apart do not", old = "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n",
        new = "one\n2\n3\n4\n5\n6\n7\n8\nnine\n10\n", want = { { 1, 4, 1, 4 }, { 6, 5, 6, 5 } } },
      { name = "insert at top", old = "b\n", new = "a\nb\n", want = { { 1, 1, 1, 2 } } },
      { name = "no change", old = "same\n", new = "same\n", want = {} },
    }) do
      local got = {}
      for _, hk in ipairs(cards.hunks(tc.old, tc.new)) do
        got[#got + 1] = { hk.oldStart, hk.oldLines, hk.newStart, hk.newLines }
      end
      assert.are.same(tc.want, got, tc.name)
    end
  end)

  it("draw a stopped command as stopped: its output, no fence, no raw error", function()
    -- the updates the bridge sends for a command cancelled mid-run
    local aborted = "```console\nError: command aborted\n```"
    local call = { id = "bash_1", title = "echo started; sleep 30", status = "failed", tool_kind = "execute",
      terminal_id = "term_gone", live_output = "started\n",
      content = { { type = "content", content = { type = "text", text = aborted } } },
      dsh = { card = { card = "generic", content = { { type = "text", text = aborted } } } } }
    local lines = cards.render(call).lines
    local text = table.concat(lines, "\n")
    assert.are.equal("⊘ echo started; sleep 30", lines[1])
    assert.truthy(text:find("│ started", 1, true), text)
    assert.truthy(text:find("⊘ stopped", 1, true), text)
    assert.falsy(text:find("```", 1, true), text)
    assert.falsy(text:find("command aborted", 1, true), text)
    -- a command that failed otherwise keeps its error, out of the fence
    call.content[1].content.text = "```console\nError: bash: nope: not found\n```"
    call.dsh.card.content[1].text = call.content[1].content.text
    text = table.concat(cards.render(call).lines, "\n")
    assert.truthy(text:find("Error: bash: nope: not found", 1, true), text)
    assert.falsy(text:find("```", 1, true), text)
  end)

  it("ask about an edit as an edit, a command as a command", function()
    local approve = require("dsh.ui.approve")
    local edit = { title = "Edit hello.txt", tool_kind = "edit",
      dsh = { card = { card = "diff", diffs = { { path = "/w/hello.txt", oldText = "a\n", newText = "b\n" } } } } }
    assert.are.equal("dsh-bridge asks to change a file: Edit hello.txt", approve.prompt(edit, edit.title))
    local cmd = { title = "ls", tool_kind = "execute", dsh = { card = { card = "terminal", title = "ls" } } }
    assert.are.equal("dsh-bridge asks to run: ls", approve.prompt(cmd, cmd.title))
  end)

  it("draw plain ACP tool calls (no _meta.dsh) and ignore what they do not know", function()
    local s = require("dsh.session").new("s1")
    for _, u in ipairs({
      { sessionUpdate = "tool_call", toolCallId = "t1", title = "Patch a.txt", kind = "edit", status = "pending",
        content = { { type = "diff", path = "/w/a.txt", oldText = "x\ny\n", newText = "x\nz\n" } } },
      { sessionUpdate = "tool_call", toolCallId = "t2", title = "Think", kind = "other", status = "completed",
        content = { { type = "content", content = { type = "text", text = "line one\nline two" } } },
        futureField = { 1, 2 } },
      { sessionUpdate = "tool_call_update", toolCallId = "t1", status = "completed" },
      { sessionUpdate = "plan", entries = { { content = "read", status = "completed", priority = "high" },
        { content = "edit", status = "in_progress", priority = "high" }, { content = "test", status = "pending" } } },
      { sessionUpdate = "mystery_update", whatever = true },
      { sessionUpdate = "usage_update", used = 1200, size = 128000, cost = { amount = 0.0123, currency = "USD" } },
    }) do
      s:apply(u)
    end
    local lines = {}
    for _, b in ipairs(s.blocks) do
      local o = b.kind == "tool" and cards.render(b) or require("dsh.ui.render")[b.kind](b)
      vim.list_extend(lines, o.lines)
    end
    assert.are.same({
      "✓ Patch a.txt", "/w/a.txt", "@@ -1,2 +1,2 @@", "    1     1  x", "    2       -y", "          2 +z",
      "✓ Think", "line one", "line two",
      "Plan  1/3 done", "- [x] ! read", "- [~] ! edit", "- [ ] test",
    }, lines)
    assert.are.same({ used = 1200, size = 128000, cost = { amount = 0.0123, currency = "USD" } }, s.usage)
  end)
end)
