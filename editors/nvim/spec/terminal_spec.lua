-- dsh.terminal: terminal/* over vim.loop, one process group per command.
local h = require("helpers")
local terminal = require("dsh.terminal")

local function wait_exit(id)
  local got
  terminal.wait_for_exit({ terminalId = id }, function(r, err)
    got = r or err
  end)
  h.wait(function()
    return got ~= nil
  end, 10000, "the exit")
  return got
end

-- unique marks a command line, so that leftovers of other runs never count.
local function unique(base)
  return ("%d.%d%d"):format(base, vim.loop.os_getpid(), math.random(1000, 9999))
end

describe("terminal/*", function()
  after_each(function()
    terminal.kill_all()
  end)

  it("cuts output from the start at a UTF-8 boundary", function()
    for _, tc in ipairs({
      { name = "fits", s = "abc", limit = 5, want = "abc", cut = false },
      { name = "ascii", s = "abcdef", limit = 3, want = "def", cut = true },
      { name = "inside a 2-byte char", s = "aé" .. "bc", limit = 3, want = "bc", cut = true },
      { name = "at a char start", s = "aébc", limit = 4, want = "ébc", cut = true },
      { name = "inside a 4-byte char", s = "x😀y", limit = 3, want = "y", cut = true },
      { name = "no limit", s = "abc", limit = nil, want = "abc", cut = false },
    }) do
      local got, cut = terminal.cut(tc.s, tc.limit)
      assert.are.equal(tc.want, got, tc.name)
      assert.are.equal(tc.cut, cut, tc.name)
    end
  end)

  it("runs a command in its cwd and env, within the byte limit", function()
    local dir = h.workspace({})
    local r = assert(terminal.create({ command = "sh", args = { "-c", "pwd; echo \"$DSH_T\"; printf 'ééééé'" },
      cwd = dir, env = { { name = "DSH_T", value = "from-env" } }, outputByteLimit = 1000 }))
    local exit = wait_exit(r.terminalId)
    assert.are.equal(0, exit.exitCode)
    assert.are.equal(vim.NIL, exit.signal)
    local out = terminal.output({ terminalId = r.terminalId })
    assert.are.equal(dir .. "\nfrom-env\nééééé", out.output)
    assert.is_false(out.truncated)
    assert.are.same({ exitCode = 0, signal = vim.NIL }, out.exitStatus)
    -- a small limit keeps the tail, whole characters only
    local r2 = assert(terminal.create({ command = "sh", args = { "-c", "printf 'aaaaéé'" }, outputByteLimit = 3 }))
    wait_exit(r2.terminalId)
    local o2 = terminal.output({ terminalId = r2.terminalId })
    assert.are.equal("é", o2.output)
    assert.is_true(o2.truncated)
    assert.is_nil(terminal.output({ terminalId = r2.terminalId .. "x" }))
  end)

  it("reports exit codes and signals apart", function()
    local r = assert(terminal.create({ command = "sh", args = { "-c", "exit 3" } }))
    assert.are.same({ exitCode = 3, signal = vim.NIL }, wait_exit(r.terminalId))
    local r2 = assert(terminal.create({ command = "sh", args = { "-c", "kill -TERM $$" } }))
    assert.are.same({ exitCode = vim.NIL, signal = "SIGTERM" }, wait_exit(r2.terminalId))
  end)

  it("kills the whole process group, children included", function()
    local a, b = unique(41), unique(41)
    local r = assert(terminal.create({ command = "sh", args = { "-c", ("sleep %s & sleep %s; wait"):format(a, b) } }))
    h.wait(function()
      return #h.pids("^sleep " .. a) + #h.pids("^sleep " .. b) == 2
    end, 5000, "both sleeps")
    assert.is_nil(terminal.output({ terminalId = r.terminalId }).exitStatus)
    assert.are.same(vim.empty_dict(), terminal.kill({ terminalId = r.terminalId }))
    local exit = wait_exit(r.terminalId)
    assert.are.equal("SIGTERM", exit.signal)
    h.wait(function()
      return #h.pids("^sleep " .. a) + #h.pids("^sleep " .. b) == 0
    end, 5000, "no sleep left")
    -- the id stays valid after kill, and release forgets it
    assert.truthy(terminal.output({ terminalId = r.terminalId }).exitStatus)
    assert.are.same(vim.empty_dict(), terminal.release({ terminalId = r.terminalId }))
    local _, err = terminal.output({ terminalId = r.terminalId })
    assert.are.equal(-32602, err.code)
    assert.truthy(terminal.get(r.terminalId), "a released terminal is kept for display")
  end)

  it("release kills a running command", function()
    local a = unique(42)
    local r = assert(terminal.create({ command = "sh", args = { "-c", "sleep " .. a .. "; echo never" } }))
    h.wait(function()
      return #h.pids("^sleep " .. a) == 1
    end, 5000, "the sleep")
    terminal.release({ terminalId = r.terminalId })
    h.wait(function()
      return #h.pids("^sleep " .. a) == 0
    end, 5000, "no sleep left")
  end)

  it("refuses bad requests", function()
    assert.are.equal(-32602, select(2, terminal.create({})).code)
    assert.are.equal(-32602, select(2, terminal.create({ command = "sh", cwd = "relative" })).code)
    assert.are.equal(-32603, select(2, terminal.create({ command = "/nonexistent/program" })).code)
  end)
end)
