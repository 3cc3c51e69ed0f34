-- dsh.exe: finds the agent's program on $PATH outside the folders its
-- sandboxed commands may write: the working directory (the workspace; an
-- activated virtualenv puts its .venv/bin first on $PATH, and commands may
-- write it), the temp folder, and relative entries. A program planted
-- there would otherwise be the agent at its next start, outside any
-- sandbox.
local M = {}

local uv = vim.loop

local function real(path)
  return uv.fs_realpath(path) or path
end

-- under: path is dir or inside it ("/" holds nothing here: a workspace of
-- the whole disk would leave no program to run).
local function under(path, dir)
  return dir ~= "/" and (path == dir or path:sub(1, #dir + 1) == dir .. "/")
end

-- find returns name's absolute path on $PATH outside those folders, or
-- nil; a name with a slash is returned as it is (the person chose it).
function M.find(name, cwd)
  if name:find("/", 1, true) then
    return name
  end
  local bad = { real(cwd or vim.fn.getcwd()), real(uv.os_tmpdir() or "/tmp") }
  for dir in (vim.env.PATH or ""):gmatch("[^:]+") do
    local p = dir .. "/" .. name
    if dir:sub(1, 1) == "/" and vim.fn.executable(p) == 1 and vim.fn.isdirectory(p) == 0 then
      local ok = true
      for _, b in ipairs(bad) do
        if under(real(p), b) or under(real(dir), b) then
          ok = false
        end
      end
      if ok then
        return p
      end
    end
  end
  return nil
end

return M
