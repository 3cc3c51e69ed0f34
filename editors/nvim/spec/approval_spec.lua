-- The approval against hostile requests: a multi-line command, options
-- that are not objects, a float that cannot be drawn; and what each key
-- answers, and what "always" remembers. On requests built here (the
-- queue's contract: session.permissions[call.id] == req while open).
local approve = require("dsh.ui.approve")
local float = require("dsh.ui.approvefloat")

local function feed(k)
  vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes(k, true, false, true), "x", false)
end

local OPTIONS = {
  { optionId = "o1", kind = "allow_once", name = "Allow once" },
  { optionId = "o2", kind = "allow_always", name = "Always allow",
    _meta = { dsh = { remembers = { "git status, with any arguments" } } } },
  { optionId = "o3", kind = "reject_once", name = "Reject" },
  { optionId = "o4", kind = "reject_always", name = "Always reject",
    _meta = { dsh = { remembers = {} } } },
}

local n = 0
local function request(command, options)
  n = n + 1
  local session = { id = "s-approval", cwd = vim.fn.getcwd(), permissions = {} }
  local call = { id = "c" .. n, title = command, tool_kind = "execute",
    dsh = { card = { card = "terminal", title = command } }, rawInput = { command = command } }
  local req = { session = session, call = call, options = options or OPTIONS }
  req.respond = function(id)
    req.answer = id
    session.permissions[call.id] = nil
  end
  session.permissions[call.id] = req
  return req
end

local function float_lines()
  local c = float.current()
  assert.truthy(c, "no float")
  for _, w in ipairs(vim.api.nvim_list_wins()) do
    if vim.api.nvim_win_get_config(w).relative ~= "" then
      return vim.api.nvim_buf_get_lines(vim.api.nvim_win_get_buf(w), 0, -1, false), w
    end
  end
  error("no floating window")
end

describe("the approval against hostile requests", function()
  local cfg
  before_each(function()
    cfg = require("dsh").config.approval
    require("dsh").config.approval = "float"
  end)
  after_each(function()
    require("dsh").config.approval = cfg
    approve.reset()
  end)

  it("shows a heredoc command line by line and the next request still comes", function()
    local heredoc = request("cat <<'EOF2' > notes.txt\nhello\nEOF2")
    approve.decide(nil, heredoc)
    local lines, win = float_lines()
    local text = table.concat(lines, "\n")
    assert.truthy(text:find("$ cat <<'EOF2' > notes.txt", 1, true), text)
    assert.truthy(text:find("\n  hello\n", 1, true), text)
    vim.api.nvim_set_current_win(win)
    feed("a")
    assert.are.equal("o1", heredoc.answer)
    local ls = request("ls")
    approve.decide(nil, ls)
    lines, win = float_lines()
    assert.truthy(table.concat(lines, "\n"):find("$ ls", 1, true))
    vim.api.nvim_set_current_win(win)
    feed("r")
    assert.are.equal("o3", ls.answer)
  end)

  it("skips options that are not objects", function()
    local req = request("ls", { 1, "x", OPTIONS[1] })
    approve.decide(nil, req)
    local lines, win = float_lines()
    assert.truthy(table.concat(lines, "\n"):find("a allow · q later", 1, true))
    vim.api.nvim_set_current_win(win)
    feed("a")
    assert.are.equal("o1", req.answer)
  end)

  it("asks in a list when the float fails, and does not wedge the queue", function()
    local show = float.show
    float.show = function()
      error("boom")
    end
    local asked = {}
    local select = vim.ui.select
    vim.ui.select = function(items, opts, on_choice)
      asked[#asked + 1] = opts.prompt
      on_choice(items[1])
    end
    local notify = vim.notify
    vim.notify = function() end
    local a, b = request("one"), request("two")
    local ok, err = pcall(function()
      approve.decide(nil, a)
      vim.wait(50)
      approve.decide(nil, b)
      vim.wait(50)
    end)
    float.show, vim.ui.select, vim.notify = show, select, notify
    assert.truthy(ok, err)
    assert.are.same({ "o1", "o1" }, { a.answer, b.answer })
    assert.are.same({ "dsh-bridge asks to run: one", "dsh-bridge asks to run: two" }, asked)
  end)

  it("gives the list a one-line prompt for a multi-line command", function()
    require("dsh").config.approval = "select"
    local prompt, labels
    local select = vim.ui.select
    vim.ui.select = function(items, opts, on_choice)
      prompt, labels = opts.prompt, {}
      for _, it in ipairs(items) do
        labels[#labels + 1] = opts.format_item(it)
      end
      on_choice(items[2])
    end
    local req = request("cat <<EOF\nx\nEOF")
    approve.decide(nil, req)
    vim.ui.select = select
    assert.are.equal("dsh-bridge asks to run: cat <<EOF x EOF", prompt)
    assert.are.same({ "Allow once", "Always allow — remembers: git status, with any arguments",
      "Reject", "Always reject — this call only" }, labels)
    assert.are.equal("o2", req.answer)
  end)
end)

describe("the float's keys", function()
  local cfg
  before_each(function()
    cfg = require("dsh").config.approval
    require("dsh").config.approval = "float"
  end)
  after_each(function()
    require("dsh").config.approval = cfg
    approve.reset()
  end)

  for key, id in pairs({ a = "o1", A = "o2", r = "o3", R = "o4" }) do
    it("`" .. key .. "` answers " .. OPTIONS[tonumber(id:sub(2))].kind, function()
      local req = request("git status")
      approve.decide(nil, req)
      local _, win = float_lines()
      vim.api.nvim_set_current_win(win)
      feed(key)
      assert.are.equal(id, req.answer)
    end)
  end

  it("says what each always remembers next to its key", function()
    local req = request("git status")
    approve.decide(nil, req)
    local lines = float_lines()
    local text = table.concat(lines, "\n")
    assert.truthy(text:find("A always — remembers: git status, with any arguments", 1, true), text)
    assert.truthy(text:find("R always reject — this call only", 1, true), text)
  end)

  it("says nothing of remembering when the agent does not", function()
    assert.is_nil(float.remembers({ kind = "allow_always" }))
    assert.is_nil(float.remembers({ kind = "allow_always", _meta = { dsh = { remembers = "x" } } }))
    assert.are.equal("remembers: a; b", float.remembers({ _meta = { dsh = { remembers = { "a", 5, "b" } } } }))
  end)
end)
