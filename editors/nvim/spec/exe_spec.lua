-- dsh.exe: the agent's program is not taken from a folder its sandboxed
-- commands may write.
local exe = require("dsh.exe")

local function mkexe(dir, name)
  vim.fn.mkdir(dir, "p")
  local p = dir .. "/" .. name
  vim.fn.writefile({ "#!/bin/sh" }, p)
  vim.loop.fs_chmod(p, 493) -- 0755
  return p
end

describe("finding the agent on $PATH", function()
  local base, saved_path, saved_tmp
  before_each(function()
    base = vim.loop.fs_realpath(vim.fn.tempname():match("^(.*)/") ) .. "/exe" .. vim.loop.hrtime()
    saved_path, saved_tmp = vim.env.PATH, vim.env.TMPDIR
    vim.fn.mkdir(base .. "/tmp", "p")
    vim.env.TMPDIR = base .. "/tmp" -- base itself is not in the temp folder
  end)
  after_each(function()
    vim.env.PATH, vim.env.TMPDIR = saved_path, saved_tmp
    vim.fn.delete(base, "rf")
  end)

  it("skips the workspace's .venv/bin, the temp folder and relative entries", function()
    local ws = base .. "/ws"
    mkexe(ws .. "/.venv/bin", "dsh-bridge")
    mkexe(base .. "/tmp", "dsh-bridge")
    local want = mkexe(base .. "/usr/bin", "dsh-bridge")
    vim.env.PATH = table.concat({ ws .. "/.venv/bin", base .. "/tmp", ".venv/bin", base .. "/usr/bin" }, ":")
    assert.are.equal(want, exe.find("dsh-bridge", ws))
  end)

  it("skips a symlink into the workspace", function()
    local ws = base .. "/ws"
    local planted = mkexe(ws .. "/bin", "dsh-bridge")
    vim.fn.mkdir(base .. "/links", "p")
    vim.loop.fs_symlink(planted, base .. "/links/dsh-bridge")
    local want = mkexe(base .. "/usr/bin", "dsh-bridge")
    vim.env.PATH = base .. "/links:" .. base .. "/usr/bin"
    assert.are.equal(want, exe.find("dsh-bridge", ws))
  end)

  it("finds nothing when only planted ones are on $PATH, and takes a path as it is", function()
    local ws = base .. "/ws"
    mkexe(ws .. "/.venv/bin", "dsh-bridge")
    vim.env.PATH = ws .. "/.venv/bin"
    assert.is_nil(exe.find("dsh-bridge", ws))
    assert.are.equal("./x/dsh-bridge", exe.find("./x/dsh-bridge", ws))
  end)

  it("is what the connection starts: a planted agent never runs", function()
    local ws = base .. "/ws"
    local marker = base .. "/marker"
    vim.fn.mkdir(ws .. "/.venv/bin", "p")
    vim.fn.writefile({ "#!/bin/sh", "touch " .. marker }, ws .. "/.venv/bin/dsh-bridge")
    vim.loop.fs_chmod(ws .. "/.venv/bin/dsh-bridge", 493)
    vim.env.PATH = ws .. "/.venv/bin"
    local conn, err = require("dsh.acp").spawn({ cmd = { "dsh-bridge" }, cwd = ws })
    assert.is_nil(conn)
    assert.truthy(err:find("not found on $PATH outside", 1, true))
    vim.wait(200)
    assert.are.equal(0, vim.fn.filereadable(marker))
  end)
end)
