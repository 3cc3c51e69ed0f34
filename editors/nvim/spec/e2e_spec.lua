-- The plugin against the real dsh-bridge binary playing model scripts,
-- through the same path a person takes: the chat's prompt buffer, <CR>,
-- the permission picker (vim.ui.select, stubbed: the default one blocks a
-- headless run), the commands.
local h = require("helpers")


local function find(list, pat)
  for i, l in ipairs(list) do
    if l:find(pat, 1, true) then
      return i
    end
  end
  return nil
end

describe("a chat with dsh-bridge", function()
  after_each(function()
    h.restore_select()
    require("dsh").reset()
    vim.cmd("silent! %bwipeout!")
  end)

  it("approves an edit through the picker and shows its diff card", function()
    local dir, chat, asked = h.hello("allow_once", "edit.jsonl")
    assert.are.equal("end_turn", h.turn(chat, "greet ACP"))
    assert.are.equal(1, #asked)
    assert.are.equal("dsh.permission", asked[1].opts.kind)
    local kinds = {}
    for _, it in ipairs(asked[1].items) do
      kinds[#kinds + 1] = it.kind or "review"
    end
    assert.are.same({ "allow_once", "allow_always", "reject_once", "reject_always", "review" }, kinds)
    assert.are.equal("hello ACP\n", h.read(dir .. "/hello.txt"))
    local lines = h.lines(chat)
    assert.truthy(find(lines, "✓ Edit hello.txt"), table.concat(lines, "\n"))
    local minus, plus = find(lines, "-hello world"), find(lines, "+hello ACP")
    assert.truthy(minus and plus and plus == minus + 1, table.concat(lines, "\n"))
    assert.truthy(find(lines, "Done: hello.txt now greets ACP."))
    assert.falsy(find(lines, "[model error"))
    -- the diff lines are highlighted as added and deleted
    local call = chat.session.calls.edit_1
    local drawn = require("dsh.ui.cards").render(call)
    local groups = {}
    for _, lh in ipairs(drawn.line_hls) do
      groups[drawn.lines[lh[1] + 1]:match("[-+]hello %a+$") or "?"] = lh[2]
    end
    assert.are.same({ ["-hello world"] = "DshDiffDelete", ["+hello ACP"] = "DshDiffAdd" }, groups)
  end)

  it("rejects an edit and the agent reads the refusal", function()
    local dir, chat = h.hello("reject_once", "reject.jsonl")
    assert.are.equal("end_turn", h.turn(chat, "try an edit"))
    assert.are.equal("hello world\n", h.read(dir .. "/hello.txt"))
    local text = h.text(chat)
    assert.truthy(text:find("✗ Edit hello.txt", 1, true), text)
    assert.truthy(text:find("Understood, I left it alone.", 1, true), text)
    assert.falsy(text:find("[model error", 1, true), text)
  end)

  it("reads a buffer's unsaved edits and writes into the buffer in one undo step", function()
    local dir = h.workspace({ ["hello.txt"] = "hello world\n" })
    vim.cmd("edit " .. dir .. "/hello.txt")
    local file_buf = vim.api.nvim_get_current_buf()
    vim.api.nvim_buf_set_lines(file_buf, 1, 1, false, { "unsaved line" })
    assert.is_true(vim.bo[file_buf].modified)
    h.select_with(h.by_kind("allow_once"))
    local chat = h.start("read-buffer.jsonl")
    assert.are.equal("end_turn", h.turn(chat, "read then edit"))
    local text = h.text(chat)
    -- the script checks that the read saw the unsaved line
    assert.falsy(text:find("[model error", 1, true), text)
    assert.truthy(text:find("2 │ unsaved line", 1, true), text)
    -- dsh.nvim draws cards and says so in initialize: the read's text came
    -- once, in the card, and its standard content is a summary
    local read
    for _, b in pairs(chat.session.calls) do
      if b.dsh.card and b.dsh.card.card == "read" then
        read = b
      end
    end
    assert.truthy(read, text)
    local content = vim.json.encode(read.content or {})
    assert.falsy(content:find("unsaved line", 1, true), content)
    assert.truthy(content:find("lines 1-2 of 2", 1, true), content)
    assert.are.same({ "hello world", "saved by the agent" }, vim.api.nvim_buf_get_lines(file_buf, 0, -1, false))
    assert.is_false(vim.bo[file_buf].modified)
    assert.are.equal("hello world\nsaved by the agent\n", h.read(dir .. "/hello.txt"))
    vim.api.nvim_buf_call(file_buf, function()
      vim.cmd("silent undo")
    end)
    assert.are.same({ "hello world", "unsaved line" }, vim.api.nvim_buf_get_lines(file_buf, 0, -1, false))
  end)

  it("runs a command in a terminal and shows its output", function()
    h.workspace({})
    h.select_with(h.by_kind("allow_once"))
    local chat = h.start("command.jsonl")
    assert.are.equal("end_turn", h.turn(chat, "print something"))
    local lines = h.lines(chat)
    local text = table.concat(lines, "\n")
    assert.falsy(text:find("[model error", 1, true), text)
    local first = find(lines, "│ first")
    assert.truthy(first, text)
    assert.truthy(lines[first + 1] == "│ second", text)
    assert.truthy(find(lines, "ünïcode"), text)
    assert.truthy(find(lines, "exit 0"), text)
    -- the live terminal buffer holds the same output
    local call
    for _, b in ipairs(chat.session.blocks) do
      if b.terminal_id then
        call = b
      end
    end
    assert.truthy(call, "the card names its terminal")
    local buf = require("dsh.ui.termview").ensure(call.terminal_id)
    h.wait(function()
      return table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), "\n"):find("second", 1, true) ~= nil
    end, 3000, "the terminal buffer")
  end)

  it("cancels a running command and leaves no process behind", function()
    h.workspace({})
    h.select_with(h.by_kind("allow_once"))
    local chat = h.start("slow-command.jsonl")
    local dsh = require("dsh")
    local done
    dsh.on_turn_end = function(stop)
      done = stop
    end
    vim.api.nvim_buf_set_lines(chat.input, 0, -1, false, { "wait" })
    vim.cmd("DshSend")
    h.wait(function()
      return #h.pids("sleep 31.4159") > 0
    end, 10000, "the command to start")
    -- the card shows the output while the command still runs
    h.wait(function()
      return h.text(chat):find("│ started", 1, true) ~= nil
    end, 5000, "the live output")
    assert.are.equal("in_progress", chat.session.calls.bash_1.status)
    vim.api.nvim_set_current_win(chat.win)
    vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes("<C-c>", true, false, true), "x", false)
    h.wait(function()
      return done ~= nil
    end, 15000, "the cancelled turn")
    assert.are.equal("cancelled", done)
    h.wait(function()
      return #h.pids("sleep 31.4159") == 0
    end, 5000, "no sleep left")
    local text = h.text(chat)
    assert.truthy(text:find("│ started", 1, true), text)
    assert.falsy(text:find("◐", 1, true), "no card is left running:\n" .. text)
  end)

  it("answers an open permission request as cancelled when the turn is cancelled", function()
    local dir = h.workspace({ ["hello.txt"] = "hello world\n" })
    local pending_cb
    vim.ui.select = function(_, _, cb)
      pending_cb = cb -- the person never answers
    end
    local chat = h.start("edit.jsonl")
    local done
    require("dsh").on_turn_end = function(stop)
      done = stop
    end
    vim.api.nvim_buf_set_lines(chat.input, 0, -1, false, { "edit" })
    require("dsh").send()
    h.wait(function()
      return pending_cb ~= nil
    end, 10000, "the picker")
    local call = chat.session.calls.edit_1
    assert.truthy(call.awaiting)
    vim.cmd("DshCancel")
    h.wait(function()
      return done ~= nil
    end, 10000, "the cancelled turn")
    assert.are.equal("cancelled", done)
    assert.is_nil(call.awaiting, "the request was answered")
    assert.are.equal("hello world\n", h.read(dir .. "/hello.txt"))
    local text = h.text(chat)
    assert.falsy(text:find("waiting for your approval", 1, true), text)
    pending_cb(nil) -- a late answer from the picker changes nothing
  end)

  it("auto-approves only the kinds listed in auto_approve", function()
    local dir, chat, asked = h.hello("reject_once", "edit.jsonl", { auto_approve = { "edit" } })
    assert.are.equal("end_turn", h.turn(chat, "greet ACP"))
    assert.are.equal(0, #asked)
    assert.are.equal("hello ACP\n", h.read(dir .. "/hello.txt"))
  end)

  it("reports an agent that dies, and starts a new one on :DshChat", function()
    h.workspace({})
    local errors, restore = h.errors()
    local chat = h.start("answer.jsonl")
    local agent = require("dsh").state.agent
    vim.loop.kill(agent.conn.pid, "sigkill")
    h.wait(function()
      return #errors > 0
    end, 5000, "the report")
    restore()
    assert.truthy(errors[1]:find("dsh-bridge exited (signal 9)", 1, true), errors[1])
    assert.truthy(errors[1]:find(":DshChat starts it again", 1, true), errors[1])
    assert.is_nil(require("dsh").state.agent)
    assert.are.equal("", chat:status_text():match("working") or "")
    local again
    require("dsh").chat(function(c)
      again = c
    end)
    h.wait(function()
      return again ~= nil
    end, 10000, "the new chat")
    assert.are_not.equal(chat.session.id, again.session.id)
    assert.are.equal("end_turn", h.turn(again, "hello"))
  end)

  it("loads a stored session with :DshSessions and replays its cards", function()
    local dir, chat = h.hello("allow_once", "edit.jsonl")
    assert.are.equal("end_turn", h.turn(chat, "greet ACP"))
    local live = h.lines(chat)
    local id = chat.session.id
    require("dsh").reset()
    h.start("edit.jsonl")
    local picked = h.select_with(function(items)
      for _, s in ipairs(items) do
        if s.sessionId == id then
          return s
        end
      end
    end)
    local loaded
    require("dsh.commands").sessions(function(c)
      loaded = c
    end)
    h.wait(function()
      return loaded ~= nil
    end, 10000, "the loaded session")
    assert.are.equal("dsh.session", picked[1].opts.kind)
    assert.are.equal(id, loaded.session.id)
    local replay = h.lines(loaded)
    local text = table.concat(replay, "\n")
    assert.truthy(find(replay, "✓ Edit hello.txt"), text)
    assert.truthy(find(replay, "+hello ACP"), text)
    assert.truthy(find(replay, "## You"), text)
    assert.truthy(find(replay, "greet ACP"), text)
    -- the same cards as live (the session's notice is sent once per
    -- connection, wherever the replay is when it is: it is not the turn's)
    local function turn_only(lines)
      local keep = {}
      local skip = false
      for _, l in ipairs(lines) do
        if l:sub(1, 2) == "! " then
          skip = true -- the notice and its separator
        elseif skip and l == "" then
          skip = false
        else
          keep[#keep + 1] = l
        end
      end
      return vim.list_slice(keep, find(keep, "## You"))
    end
    assert.are.same(turn_only(live), turn_only(replay))
    assert.truthy(dir)
  end)

  it("sends a search card's matches to the quickfix list", function()
    h.workspace({ ["a.txt"] = "greet one\nnothing\n", ["b.txt"] = "x\ngreet two\n" })
    h.select_with(h.by_kind("allow_once"))
    local chat = h.start("search.jsonl")
    assert.are.equal("end_turn", h.turn(chat, "search"))
    assert.are.equal(2, require("dsh.commands").quickfix())
    local qf = vim.fn.getqflist()
    table.sort(qf, function(a, b)
      return vim.fn.bufname(a.bufnr) < vim.fn.bufname(b.bufnr)
    end)
    assert.are.equal(1, qf[1].lnum)
    assert.are.equal(2, qf[2].lnum)
    assert.truthy(vim.fn.bufname(qf[2].bufnr):find("b.txt$"))
    vim.cmd("cclose")
  end)

  it("ignores bad input from the agent's side", function()
    local _, chat = h.hello("allow_once", "edit.jsonl")
    local conn = require("dsh").state.agent.conn
    local sid = chat.session.id
    local errors, restore = h.errors()
    local bad = {
      '{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"' .. sid
        .. '","update":{"sessionUpdate":"hologram","data":[1,2]}}}',
      '{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"' .. sid .. '","update":42}}',
      '{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"' .. sid
        .. '","update":{"sessionUpdate":"tool_call_update"}}}',
      '{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"nobody","update":{}}}',
      "this is not json",
      '{"jsonrpc":"2.0","id":999,"result":{}}',
      '{"jsonrpc":"2.0","method":"some/new_notification","params":{}}',
    }
    conn:_feed(table.concat(bad, "\n") .. "\n")
    -- a request for a method the plugin does not serve is answered -32601,
    -- and the session still works afterwards
    conn:_feed('{"jsonrpc":"2.0","id":"x1","method":"elicitation/create","params":{}}\n')
    assert.are.equal("end_turn", h.turn(chat, "greet ACP"))
    restore()
    assert.are.same({}, errors)
    assert.truthy(h.text(chat):find("Done: hello.txt now greets ACP.", 1, true))
  end)
end)
