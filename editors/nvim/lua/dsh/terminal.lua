-- dsh.terminal: the client's terminal/* methods. Each command runs in a
-- process group of its own (vim.loop.spawn, detached), so that kill and
-- release end everything it started. vim.loop is used rather than
-- jobstart because it reports the exit code and the terminating signal
-- apart (jobstart folds a signal into 128+n).
--
-- Output is kept within outputByteLimit, cut from the beginning at a UTF-8
-- character boundary. Listeners (the UI) hear every chunk as it arrives.
local M = {}

local uv = vim.loop

local SIGNALS = { [1] = "SIGHUP", [2] = "SIGINT", [3] = "SIGQUIT", [6] = "SIGABRT", [9] = "SIGKILL",
  [13] = "SIGPIPE", [14] = "SIGALRM", [15] = "SIGTERM" }

M.terminals = {} -- id -> terminal
-- Released terminals, kept for display (clients keep showing a released
-- terminal's output): the last KEEP of them.
local released, released_order, KEEP = {}, {}, 100
local seq = 0
local listeners = {}

-- M.on_output(fn): fn(id, chunk) for every output chunk; fn(id, nil, exit)
-- when the command ends.
function M.on_output(fn)
  listeners[#listeners + 1] = fn
  return fn
end

function M.off_output(fn)
  for i, l in ipairs(listeners) do
    if l == fn then
      table.remove(listeners, i)
      return
    end
  end
end

local function emit(id, chunk, exit)
  for _, fn in ipairs(listeners) do
    pcall(fn, id, chunk, exit)
  end
end

-- M.get returns a terminal by id, released ones included (for display).
function M.get(id)
  return M.terminals[id] or released[id]
end

-- M.cut keeps the last `limit` bytes of s, starting at a character boundary.
function M.cut(s, limit)
  if not limit or #s <= limit then
    return s, false
  end
  local start = #s - limit + 1
  while start <= #s do
    local b = s:byte(start)
    if b < 0x80 or b >= 0xC0 then
      break
    end
    start = start + 1
  end
  return s:sub(start), true
end

local function bad(msg)
  return { code = -32602, message = msg }
end

local function lookup(params)
  local t = M.terminals[params.terminalId]
  if not t then
    return nil, bad("unknown terminal " .. vim.inspect(params.terminalId))
  end
  return t
end

local function exit_status(t)
  if not t.finished then
    return nil
  end
  return { exitCode = t.signal and vim.NIL or t.code, signal = t.signal or vim.NIL }
end

local function append(t, data)
  t.output = t.output .. data
  local cut, was = M.cut(t.output, t.limit)
  t.output = cut
  t.truncated = t.truncated or was
end

local function kill_group(t, sig)
  -- The negative pid is the process group (the command and its children).
  pcall(uv.kill, -t.pid, sig)
end

-- M.create serves terminal/create.
function M.create(params)
  if type(params.command) ~= "string" or params.command == "" then
    return nil, bad("command must be a non-empty string")
  end
  local args = {}
  for _, a in ipairs(params.args or {}) do
    args[#args + 1] = tostring(a)
  end
  local env = vim.fn.environ()
  for _, kv in ipairs(params.env or {}) do
    if type(kv) == "table" and type(kv.name) == "string" then
      env[kv.name] = tostring(kv.value or "")
    end
  end
  local envlist = {}
  for k, v in pairs(env) do
    envlist[#envlist + 1] = k .. "=" .. v
  end
  if params.cwd ~= nil and (type(params.cwd) ~= "string" or params.cwd:sub(1, 1) ~= "/") then
    return nil, bad("cwd must be an absolute path")
  end
  seq = seq + 1
  local id = "term_" .. seq
  local t = { id = id, session = params.sessionId, command = params.command, args = args, cwd = params.cwd,
    output = "", truncated = false, limit = tonumber(params.outputByteLimit), waiters = {} }
  local stdout, stderr = uv.new_pipe(false), uv.new_pipe(false)
  local eofs = 0
  -- finish runs once the command has exited and its output is read (both
  -- pipes at EOF, or 200 ms after the exit when a background child keeps
  -- them open).
  local function finish()
    if t.finished or not t.exited then
      return
    end
    t.finished = true
    if t.grace then
      t.grace:stop()
      t.grace:close()
      t.grace = nil
    end
    for _, p in ipairs({ stdout, stderr }) do
      if not p:is_closing() then
        p:close()
      end
    end
    local st = exit_status(t)
    for _, w in ipairs(t.waiters) do
      w({ exitCode = st.exitCode, signal = st.signal })
    end
    t.waiters = {}
    emit(id, nil, st)
  end
  local handle, pid = uv.spawn(params.command, {
    args = args, cwd = params.cwd, env = envlist, stdio = { nil, stdout, stderr }, detached = true,
  }, function(code, signal)
    vim.schedule(function()
      t.code, t.signal = code, (signal ~= 0) and (SIGNALS[signal] or ("SIG" .. signal)) or nil
      if t.kill_timer then
        t.kill_timer:stop()
        t.kill_timer:close()
        t.kill_timer = nil
      end
      if t.killed then
        -- Children that outlived their group leader go too.
        pcall(uv.kill, -t.pid, "sigkill")
      end
      t.handle:close()
      t.exited = true
      if eofs >= 2 then
        return finish()
      end
      t.grace = uv.new_timer()
      t.grace:start(200, 0, vim.schedule_wrap(finish))
    end)
  end)
  if not handle then
    stdout:close()
    stderr:close()
    return nil, { code = -32603, message = "cannot start " .. params.command .. ": " .. tostring(pid) }
  end
  t.handle, t.pid = handle, pid
  local function reader(_, data)
    vim.schedule(function()
      if data then
        append(t, data)
        emit(id, data)
      else
        eofs = eofs + 1
        if eofs >= 2 then
          finish()
        end
      end
    end)
  end
  stdout:read_start(reader)
  stderr:read_start(reader)
  M.terminals[id] = t
  return { terminalId = id }
end

function M.output(params)
  local t, err = lookup(params)
  if not t then
    return nil, err
  end
  return { output = t.output, truncated = t.truncated, exitStatus = exit_status(t) }
end

-- wait_for_exit answers when the command has ended.
function M.wait_for_exit(params, reply)
  local t, err = lookup(params)
  if not t then
    return reply(nil, err)
  end
  if t.finished then
    local st = exit_status(t)
    return reply({ exitCode = st.exitCode, signal = st.signal })
  end
  t.waiters[#t.waiters + 1] = reply
end

-- M.kill ends the command's whole group: SIGTERM, then SIGKILL after 2 s.
function M.kill_terminal(t)
  if t.exited then
    return
  end
  t.killed = true
  kill_group(t, "sigterm")
  if not t.kill_timer then
    t.kill_timer = uv.new_timer()
    t.kill_timer:start(2000, 0, vim.schedule_wrap(function()
      kill_group(t, "sigkill")
    end))
  end
end

function M.kill(params)
  local t, err = lookup(params)
  if not t then
    return nil, err
  end
  M.kill_terminal(t)
  return vim.empty_dict()
end

-- release kills a running command and forgets the id; the UI keeps what
-- it has shown.
function M.release(params)
  local t, err = lookup(params)
  if not t then
    return nil, err
  end
  M.kill_terminal(t)
  M.terminals[t.id] = nil
  released[t.id] = t
  released_order[#released_order + 1] = t.id
  if #released_order > KEEP then
    released[table.remove(released_order, 1)] = nil
  end
  return vim.empty_dict()
end

-- M.kill_all ends every command (the agent went away, or Neovim exits).
function M.kill_all()
  for _, t in pairs(M.terminals) do
    M.kill_terminal(t)
  end
end

function M.install(conn)
  conn:handle("terminal/create", function(p, reply)
    reply(M.create(p))
  end)
  conn:handle("terminal/output", function(p, reply)
    reply(M.output(p))
  end)
  conn:handle("terminal/wait_for_exit", M.wait_for_exit)
  conn:handle("terminal/kill", function(p, reply)
    reply(M.kill(p))
  end)
  conn:handle("terminal/release", function(p, reply)
    reply(M.release(p))
  end)
end

return M
