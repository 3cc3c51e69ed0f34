-- :DshRewind and :DshUndo against the real dsh-bridge binary playing a
-- script whose two turns edit hello.txt: the picker (vim.ui.select,
-- stubbed by its kind), the confirmation, _dsh/session/rewind, the chat
-- cut and the prompt given back, and a conflict asked in the float.
local h = require("helpers")

local TURN1 = "greet ACP"
local TURN2 = "now greet Neovim\nand say so"

-- answers vim.ui.select by its opts.kind: answer[kind](items, opts) ->
-- item; every call is recorded.
local function select_by_kind(answer)
  return h.select_with(function(items, opts)
    local pick = answer[opts.kind]
    return pick and pick(items, opts) or nil
  end)
end

local function allow(items)
  return h.by_kind("allow_once")(items)
end

local function yes(items)
  for _, it in ipairs(items) do
    if it.yes then
      return it
    end
  end
end

-- two_turns: hello.txt edited to "hello ACP" in turn 1 and "hello Neovim"
-- in turn 2; returns the workspace and the chat.
local function two_turns(answer, extra)
  local dir = h.workspace({ ["hello.txt"] = "hello world\n" })
  local asked = select_by_kind(answer)
  local chat = h.start("rewind.jsonl", extra)
  assert.are.equal("end_turn", h.turn(chat, TURN1))
  assert.are.equal("hello ACP\n", h.read(dir .. "/hello.txt"))
  assert.are.equal("end_turn", h.turn(chat, TURN2))
  assert.are.equal("hello Neovim\n", h.read(dir .. "/hello.txt"))
  return dir, chat, asked
end

-- rewound runs fn(cb) (a dsh.rewind entry) and waits for its callback.
local function rewound(fn)
  local done, result = false, nil
  fn(function(r)
    done, result = true, r
  end)
  h.wait(function()
    return done
  end, 10000, "the rewind")
  return result
end

local function users(chat)
  local list = {}
  for _, b in ipairs(chat.session.blocks) do
    if b.kind == "user" then
      list[#list + 1] = b.text
    end
  end
  return list
end

local function prompt_text(chat)
  return table.concat(vim.api.nvim_buf_get_lines(chat.input, 0, -1, false), "\n")
end

-- by_command runs an Ex command and waits until the chat holds n user
-- messages.
local function by_command(chat, command, n)
  vim.cmd(command)
  h.wait(function()
    return #users(chat) == n
  end, 10000, command)
end

describe(":DshRewind", function()
  local notices, notify
  before_each(function()
    notices, notify = {}, vim.notify
    vim.notify = function(msg)
      notices[#notices + 1] = msg
    end
  end)
  after_each(function()
    vim.notify = notify
    h.restore_select()
    require("dsh").reset()
    vim.cmd("silent! %bwipeout!")
  end)

  it("picks turn 2, rewinds its file to turn 1's, cuts the chat and gives the message back", function()
    local dir, chat, asked = two_turns({ ["dsh.permission"] = allow, ["dsh.confirm"] = yes,
      ["dsh.rewind"] = function(items)
        return items[1] -- newest first: turn 2
      end })
    assert.truthy(require("dsh").state.agent:rewind_method(), "the bridge advertises the rewind method")
    -- the file is open: the restored text is read into its buffer
    local file_buf = vim.fn.bufadd(dir .. "/hello.txt")
    vim.fn.bufload(file_buf)
    assert.are.same({ "hello Neovim" }, vim.api.nvim_buf_get_lines(file_buf, 0, -1, false))
    local r = rewound(require("dsh.rewind").pick)
    assert.truthy(r, "the rewind answered")
    assert.are.same({ "hello ACP" }, vim.api.nvim_buf_get_lines(file_buf, 0, -1, false))
    local picker, confirm
    for _, a in ipairs(asked) do
      if a.opts.kind == "dsh.rewind" then
        picker = a
      elseif a.opts.kind == "dsh.confirm" then
        confirm = a
      end
    end
    assert.truthy(picker and confirm, "a picker, then a confirmation")
    local labels = {}
    for _, it in ipairs(picker.items) do
      labels[#labels + 1] = picker.opts.format_item(it)
    end
    assert.are.same({ "2. now greet Neovim  · hello.txt", "1. greet ACP  · hello.txt" }, labels)
    assert.are.equal("hello ACP\n", h.read(dir .. "/hello.txt"))
    assert.are.same({ dir .. "/hello.txt" }, r.restored)
    -- the chat holds turn 1 alone, and the prompt turn 2's text
    assert.are.same({ TURN1 }, users(chat))
    local text = h.text(chat)
    assert.truthy(text:find("Turn one is done.", 1, true), text)
    assert.falsy(text:find("Turn two is done.", 1, true), text)
    assert.falsy(text:find("Neovim", 1, true), text)
    assert.is_nil(chat.session.calls.edit_2)
    assert.truthy(chat.session.calls.edit_1)
    assert.are.equal(TURN2, prompt_text(chat))
    assert.are.same({ "dsh: rewound to before turn 2; restored hello.txt" }, notices)
    -- a load of the session shows the same cut
    local id = chat.session.id
    h.start("rewind.jsonl")
    select_by_kind({ ["dsh.session"] = function(items)
      for _, s in ipairs(items) do
        if s.sessionId == id then
          return s
        end
      end
    end })
    local loaded
    require("dsh.commands").sessions(function(c)
      loaded = c
    end)
    h.wait(function()
      return loaded ~= nil
    end, 10000, "the loaded session")
    assert.are.same({ TURN1 }, users(loaded))
    local replay = h.text(loaded)
    assert.truthy(replay:find("Turn one is done.", 1, true), replay)
    assert.falsy(replay:find("Turn two is done.", 1, true), replay)
  end)

  it("does nothing when the confirmation is declined", function()
    local dir, chat = two_turns({ ["dsh.permission"] = allow, ["dsh.rewind"] = function(items)
      return items[#items]
    end, ["dsh.confirm"] = function(items)
      for _, it in ipairs(items) do
        if not it.yes then
          return it
        end
      end
    end })
    local called = false
    require("dsh.rewind").pick(function()
      called = true
    end)
    -- the stubbed picker answers on the next loop turn; let both run
    vim.wait(200, function()
      return called
    end, 10)
    assert.is_false(called)
    assert.are.equal("hello Neovim\n", h.read(dir .. "/hello.txt"))
    assert.are.same({ TURN1, TURN2 }, users(chat))
    assert.are.equal("", prompt_text(chat))
  end)

  it(":DshRewind N rewinds to before turn N without a picker", function()
    local dir, chat, asked = two_turns({ ["dsh.permission"] = allow })
    local n = #asked
    by_command(chat, "DshRewind 1", 0)
    assert.are.equal(n, #asked, "no picker")
    assert.are.equal("hello world\n", h.read(dir .. "/hello.txt"))
    assert.are.same({}, users(chat))
    assert.are.equal(TURN1, prompt_text(chat))
  end)

  it(":DshUndo asks, then undoes the last turn", function()
    local dir, chat = two_turns({ ["dsh.permission"] = allow, ["dsh.confirm"] = yes })
    by_command(chat, "DshUndo", 1)
    assert.are.equal("hello ACP\n", h.read(dir .. "/hello.txt"))
    assert.are.same({ TURN1 }, users(chat))
    assert.are.equal(TURN2, prompt_text(chat))
    -- and again, to the turn before
    local r = rewound(require("dsh.rewind").undo)
    assert.truthy(r)
    assert.are.equal("hello world\n", h.read(dir .. "/hello.txt"))
    assert.are.same({}, users(chat))
    assert.are.equal(TURN1, prompt_text(chat))
  end)

  -- auto_approve lists edit (the turns' edits are not asked), and the
  -- conflict, of kind edit too, is still asked: its options are in their
  -- own words
  it("asks about a file changed since in the approval float; r keeps it", function()
    local dir, chat = two_turns({ ["dsh.permission"] = allow, ["dsh.confirm"] = yes,
      ["dsh.rewind"] = function(items)
        return items[1]
      end }, { approval = "float", auto_approve = { "edit" } })
    local f = assert(io.open(dir .. "/hello.txt", "wb"))
    f:write("hello mine\n")
    f:close()
    local float = require("dsh.ui.approvefloat")
    local done, result = false, nil
    require("dsh.rewind").pick(function(r)
      done, result = true, r
    end)
    h.wait(function()
      return float.current() ~= nil
    end, 10000, "the conflict in the float")
    require("dsh.commands").approve() -- focus it
    local lines = vim.api.nvim_buf_get_lines(0, 0, -1, false)
    local text = table.concat(lines, "\n")
    assert.truthy(text:find('dsh-bridge asks: Rewind to before "now greet Neovim', 1, true), text)
    assert.truthy(text:find("hello.txt", 1, true), text)
    assert.are.equal("a Take the checkpoint · r Keep mine · R Cancel the rewind · q later", lines[#lines])
    vim.api.nvim_feedkeys("r", "x", false)
    h.wait(function()
      return done
    end, 10000, "the rewind")
    assert.truthy(result)
    assert.are.same({ dir .. "/hello.txt" }, result.kept)
    assert.are.same({ "dsh: rewound to before turn 2; kept as you changed them: hello.txt" }, notices)
    assert.are.equal("hello mine\n", h.read(dir .. "/hello.txt"))
    assert.are.same({ TURN1 }, users(chat))
    assert.is_nil(float.current())
  end)

  it("cancels from the float: nothing changes", function()
    local dir, chat = two_turns({ ["dsh.permission"] = allow, ["dsh.confirm"] = yes,
      ["dsh.rewind"] = function(items)
        return items[1]
      end }, { approval = "float", auto_approve = { "edit" } })
    local f = assert(io.open(dir .. "/hello.txt", "wb"))
    f:write("hello mine\n")
    f:close()
    local float = require("dsh.ui.approvefloat")
    local done, result = false, "unset"
    require("dsh.rewind").pick(function(r)
      done, result = true, r
    end)
    h.wait(function()
      return float.current() ~= nil
    end, 10000, "the conflict in the float")
    require("dsh.commands").approve()
    vim.api.nvim_feedkeys("R", "x", false)
    h.wait(function()
      return done
    end, 10000, "the rewind")
    assert.is_nil(result)
    assert.are.same({ "dsh: rewind cancelled: nothing was changed" }, notices)
    assert.are.equal("hello mine\n", h.read(dir .. "/hello.txt"))
    assert.are.same({ TURN1, TURN2 }, users(chat))
    assert.are.equal("", prompt_text(chat))
  end)
end)

describe(":DshRewind without the agent's rewind method", function()
  after_each(function()
    h.restore_select()
    require("dsh").reset()
    vim.cmd("silent! %bwipeout!")
  end)

  it("sends /rewind N and /undo", function()
    local dir = h.workspace({ ["hello.txt"] = "hello world\n" })
    local asked = select_by_kind({ ["dsh.permission"] = allow, ["dsh.rewind"] = function(items)
      return items[1]
    end, ["dsh.confirm"] = yes })
    local chat = h.start("rewind.jsonl")
    assert.are.equal("end_turn", h.turn(chat, TURN1))
    assert.are.equal("end_turn", h.turn(chat, TURN2))
    local agent = require("dsh").state.agent
    agent.caps = vim.tbl_extend("force", agent.caps, { _meta = vim.NIL })
    assert.is_nil(agent:rewind_method())
    local function turn_of(fn)
      local done
      require("dsh").on_turn_end = function(stop)
        done = stop
      end
      fn()
      h.wait(function()
        return done ~= nil
      end, 10000, "the slash command's turn")
      require("dsh").on_turn_end = nil
    end
    turn_of(function()
      vim.cmd("DshRewind")
    end)
    -- the picker counted the turns as /rewind does, newest first
    local labels = {}
    for _, a in ipairs(asked) do
      if a.opts.kind == "dsh.rewind" then
        for _, it in ipairs(a.items) do
          labels[#labels + 1] = a.opts.format_item(it)
        end
      end
    end
    assert.are.same({ "2. now greet Neovim  · hello.txt", "1. greet ACP  · hello.txt" }, labels)
    assert.are.equal("hello ACP\n", h.read(dir .. "/hello.txt"))
    local text = h.text(chat)
    assert.truthy(text:find("/rewind 2", 1, true), text)
    assert.truthy(text:find('Rewound to before "now greet Neovim', 1, true), text)
    turn_of(function()
      vim.cmd("DshUndo")
    end)
    assert.are.equal("hello world\n", h.read(dir .. "/hello.txt"))
    assert.truthy(h.text(chat):find('Rewound to before "greet ACP"', 1, true), h.text(chat))
  end)
end)

describe("dsh.rewind's list", function()
  local rewind = require("dsh.rewind")
  local session = require("dsh.session")

  local function scene(blocks)
    local s = session.new("s1", { cwd = "/w" })
    for _, b in ipairs(blocks) do
      s:add(b)
    end
    return s
  end

  local cases = {
    {
      name = "names the files of completed changes, from locations and diffs, once each",
      blocks = {
        { kind = "user", text = "fix it", message_id = "m1" },
        { kind = "tool", id = "1", tool_kind = "edit", status = "completed", locations = { { path = "/w/a.txt" } },
          content = { { type = "diff", path = "/w/a.txt" }, { type = "diff", path = "/elsewhere/b.txt" } } },
        { kind = "tool", id = "2", tool_kind = "edit", status = "failed", locations = { { path = "/w/c.txt" } } },
        { kind = "tool", id = "3", tool_kind = "read", status = "completed", locations = { { path = "/w/d.txt" } } },
        { kind = "tool", id = "4", tool_kind = "delete", status = "completed", locations = { { path = "/w/e.txt" } } },
      },
      by_id = true,
      want = { "1. fix it  · a.txt, /elsewhere/b.txt, e.txt" },
    },
    {
      name = "skips the messages without an id when the method takes ids",
      blocks = {
        { kind = "user", text = "old", message_id = nil },
        { kind = "user", text = "/cost" },
        { kind = "user", text = "new", message_id = "m2" },
      },
      by_id = true,
      want = { "1. new" },
    },
    {
      name = "counts every message but slash commands for /rewind N",
      blocks = {
        { kind = "user", text = "old" },
        { kind = "user", text = "/cost" },
        { kind = "user", text = "new", message_id = "m2" },
      },
      by_id = false,
      want = { "1. old", "2. new" },
    },
    {
      name = "shows the first line of the prompt, cut at 60 characters",
      blocks = {
        { kind = "user", text = "shown [a.txt]", prompt = ("é"):rep(70) .. "\nsecond line", message_id = "m1" },
      },
      by_id = true,
      want = { "1. " .. ("é"):rep(59) .. "…" },
    },
    {
      name = "ignores what is not a location or a diff",
      blocks = {
        { kind = "user", text = "x", message_id = "m1" },
        { kind = "tool", id = "1", tool_kind = "edit", status = "completed", locations = { 7, { path = 3 } },
          content = "nope" },
      },
      by_id = true,
      want = { "1. x" },
    },
  }
  for _, c in ipairs(cases) do
    it(c.name, function()
      local got = {}
      for _, t in ipairs(rewind.turns(scene(c.blocks), c.by_id)) do
        got[#got + 1] = rewind.label(t)
      end
      assert.are.same(c.want, got)
    end)
  end

  it("says what a rewind did", function()
    local msg, level = rewind.summary({ n = 3 }, { restored = { "/w/a.txt" }, kept = { "/w/b.txt" },
      notRestorable = { "/w/c.txt" }, failed = { "/x/d.txt" } }, "/w")
    assert.are.equal("rewound to before turn 3; restored a.txt; kept as you changed them: b.txt; "
      .. "not restorable: c.txt; could not restore /x/d.txt", msg)
    assert.are.equal(vim.log.levels.WARN, level)
    msg, level = rewind.summary({ n = 1 }, { restored = {} }, "/w")
    assert.are.equal("rewound to before turn 1; no file needed restoring", msg)
    assert.are.equal(vim.log.levels.INFO, level)
  end)
end)
