-- dsh.acp: the ACP connection to an agent process. Newline-delimited
-- JSON-RPC 2.0 over the agent's stdio, spawned with vim.loop. No windows,
-- no buffers: the UI and the client methods plug in through handlers, so
-- this layer runs headless.
--
-- Contracts:
-- * every request gets exactly one callback: its result, or an error table
--   {code, message, data?} (also when the agent exits first);
-- * handlers of agent requests answer through `reply(result, err)`, called
--   at most once; a handler that errors is answered -32603, an unknown
--   method -32601; unknown notifications are ignored;
-- * callbacks run on the main loop (vim.schedule), never in a fast event.
local M = {}

local uv = vim.loop

local Conn = {}
Conn.__index = Conn

-- M.EMPTY is the JSON object {} (vim.json.encode({}) gives []).
M.EMPTY = vim.empty_dict()

-- M.object makes params an object on the wire: ACP params are never
-- arrays, and an empty Lua table would be encoded as [].
function M.object(params)
  if params == nil or (type(params) == "table" and next(params) == nil) then
    return M.EMPTY
  end
  return params
end

local function decode(line)
  local ok, msg = pcall(vim.json.decode, line, { luanil = { object = true } })
  if not ok or type(msg) ~= "table" then
    return nil
  end
  return msg
end

-- env_list merges extra into the current environment, as "K=V" strings.
local function env_list(extra)
  local env = vim.fn.environ()
  for k, v in pairs(extra or {}) do
    if v == false then
      env[k] = nil
    else
      env[k] = tostring(v)
    end
  end
  local list = {}
  for k, v in pairs(env) do
    list[#list + 1] = k .. "=" .. v
  end
  return list
end

-- M.spawn starts the agent. opts:
--   cmd: list (program and arguments); env: table merged into the
--   environment (false unsets); cwd;
--   on_stderr(text), on_exit(code, signal): optional.
-- Returns the connection, or nil and an error message.
function M.spawn(opts)
  local self = setmetatable({
    next_id = 0,
    pending = {}, -- id -> callback
    handlers = {}, -- method -> function(params, reply)
    listeners = {}, -- method -> list of function(params)
    partial = {},
    queue = {},
    closed = false,
    stderr_tail = "",
  }, Conn)
  local cmd = opts.cmd
  local prog = require("dsh.exe").find(cmd[1], opts.cwd)
  if not prog then
    return nil,
      ("cannot start %s: not found on $PATH outside the working directory and the temp folder, "
        .. "where the agent's commands may write (set cmd to its full path)"):format(cmd[1])
  end
  local stdin, stdout, stderr = uv.new_pipe(false), uv.new_pipe(false), uv.new_pipe(false)
  local args = {}
  for i = 2, #cmd do
    args[#args + 1] = cmd[i]
  end
  local handle, pid_or_err = uv.spawn(prog, {
    args = args,
    stdio = { stdin, stdout, stderr },
    env = env_list(opts.env),
    cwd = opts.cwd,
  }, function(code, signal)
    vim.schedule(function()
      self:_closed(code, signal, opts.on_exit)
    end)
  end)
  if not handle then
    stdin:close()
    stdout:close()
    stderr:close()
    return nil, ("cannot start %s: %s"):format(cmd[1], tostring(pid_or_err))
  end
  self.proc, self.pid = handle, pid_or_err
  self.stdin, self.stdout, self.stderr = stdin, stdout, stderr
  stdout:read_start(function(err, data)
    if err or not data then
      return
    end
    self:_feed(data)
  end)
  stderr:read_start(function(_, data)
    if data then
      vim.schedule(function()
        self.stderr_tail = (self.stderr_tail .. data):sub(-4096)
        if opts.on_stderr then
          opts.on_stderr(data)
        end
      end)
    end
  end)
  return self
end

-- _feed frames stdout into lines (a line may span reads) and hands the
-- complete ones to the main loop in one batch.
function Conn:_feed(data)
  local start = 1
  while true do
    local nl = data:find("\n", start, true)
    if not nl then
      break
    end
    self.partial[#self.partial + 1] = data:sub(start, nl - 1)
    self.queue[#self.queue + 1] = table.concat(self.partial)
    self.partial = {}
    start = nl + 1
  end
  if start <= #data then
    self.partial[#self.partial + 1] = data:sub(start)
  end
  if #self.queue > 0 and not self.scheduled then
    self.scheduled = true
    vim.schedule(function()
      self:_drain()
    end)
  end
end

function Conn:_drain()
  self.scheduled = false
  local q = self.queue
  self.queue = {}
  for _, line in ipairs(q) do
    if line ~= "" and line ~= "\r" then
      local msg = decode(line)
      if msg then
        local ok, err = pcall(self._dispatch, self, msg)
        if not ok then
          self:_log("dsh: handling " .. tostring(msg.method or msg.id) .. ": " .. tostring(err))
        end
      else
        self:_log("dsh: ignoring a line that is not a JSON object: " .. line:sub(1, 200))
      end
    end
  end
  if self.on_batch then
    self.on_batch()
  end
end

function Conn:_log(text)
  if self.on_log then
    self.on_log(text)
  end
end

function Conn:_dispatch(msg)
  if msg.method == nil then
    local cb = self.pending[msg.id]
    if cb then
      self.pending[msg.id] = nil
      if msg.error ~= nil then
        cb(nil, msg.error)
      else
        cb(msg.result, nil)
      end
    end
    return
  end
  local params = msg.params or {}
  if msg.id == nil then
    for _, fn in ipairs(self.listeners[msg.method] or {}) do
      fn(params)
    end
    return
  end
  local handler = self.handlers[msg.method]
  if not handler then
    local e = { code = -32601, message = "method not found: " .. msg.method }
    self:_send({ jsonrpc = "2.0", id = msg.id, error = e })
    return
  end
  local answered = false
  local function reply(result, err)
    if answered or self.closed then
      return
    end
    answered = true
    if err then
      self:_send({ jsonrpc = "2.0", id = msg.id, error = err })
    else
      if result == nil then
        result = M.EMPTY
      end
      self:_send({ jsonrpc = "2.0", id = msg.id, result = result })
    end
  end
  local ok, err = pcall(handler, params, reply)
  if not ok then
    reply(nil, { code = -32603, message = tostring(err) })
  end
end

function Conn:_send(msg)
  if self.closed then
    return false
  end
  local ok, line = pcall(vim.json.encode, msg)
  if not ok then
    self:_log("dsh: cannot encode " .. tostring(msg.method or msg.id) .. ": " .. tostring(line))
    return false
  end
  self.stdin:write(line .. "\n")
  return true
end

-- request sends method(params); cb(result, err) is called exactly once.
function Conn:request(method, params, cb)
  cb = cb or function() end
  if self.closed then
    vim.schedule(function()
      cb(nil, { code = -32000, message = "the agent is not running" })
    end)
    return nil
  end
  self.next_id = self.next_id + 1
  local id = self.next_id
  self.pending[id] = cb
  if not self:_send({ jsonrpc = "2.0", id = id, method = method, params = M.object(params) }) then
    self.pending[id] = nil
    vim.schedule(function()
      cb(nil, { code = -32603, message = "cannot encode the request" })
    end)
  end
  return id
end

-- request_sync waits (running the event loop) for the answer.
function Conn:request_sync(method, params, timeout_ms)
  local done, result, err = false, nil, nil
  self:request(method, params, function(r, e)
    done, result, err = true, r, e
  end)
  if not vim.wait(timeout_ms or 10000, function()
    return done
  end, 5) then
    return nil, { code = -32000, message = method .. ": no answer in time" }
  end
  return result, err
end

function Conn:notify(method, params)
  return self:_send({ jsonrpc = "2.0", method = method, params = M.object(params) })
end

-- handle registers the handler of an agent-to-client request.
function Conn:handle(method, fn)
  self.handlers[method] = fn
end

-- on adds a listener of an agent notification.
function Conn:on(method, fn)
  local l = self.listeners[method] or {}
  l[#l + 1] = fn
  self.listeners[method] = l
end

function Conn:_closed(code, signal, on_exit)
  if self.closed then
    return
  end
  self.closed = true
  self.exit_code, self.exit_signal = code, signal
  for _, p in ipairs({ self.stdin, self.stdout, self.stderr }) do
    if not p:is_closing() then
      p:close()
    end
  end
  if not self.proc:is_closing() then
    self.proc:close()
  end
  local pending = self.pending
  self.pending = {}
  for _, cb in pairs(pending) do
    cb(nil, { code = -32000, message = "the agent exited" })
  end
  if on_exit then
    on_exit(code, signal)
  end
end

-- stop ends the agent: stdin is closed (it exits on EOF), and it is killed
-- if it is still running after grace_ms (default 2000).
function Conn:stop(grace_ms)
  if self.closed then
    return
  end
  if not self.stdin:is_closing() then
    self.stdin:shutdown()
  end
  local timer = uv.new_timer()
  timer:start(grace_ms or 2000, 0, function()
    timer:close()
    if not self.proc:is_closing() then
      self.proc:kill("sigkill")
    end
  end)
end

function Conn:alive()
  return not self.closed
end

return M
