-- dsh.agent: the client side of ACP over one agent process: initialize
-- with the capabilities this plugin serves (fs and terminal), sessions
-- (new, load, list, prompt, cancel, modes, config options), permission
-- requests routed to a decider, and the fs/terminal methods installed.
-- Headless: the UI subscribes to sessions and supplies the decider.
local acp = require("dsh.acp")
local fs = require("dsh.fs")
local terminal = require("dsh.terminal")
local session = require("dsh.session")

local M = {}

local Agent = {}
Agent.__index = Agent

M.PROTOCOL_VERSION = 1

local function notify_err(self, msg)
  if self.opts.on_error then
    self.opts.on_error(msg)
  end
end

-- M.start spawns the agent and installs the client methods. opts:
--   cmd (list), env (table), cwd;
--   decide(session, request): asked for every permission request that
--     auto_approve did not settle; request = {call, options, respond},
--     respond(optionId or nil) answers it (nil: cancelled), at most once;
--   auto_approve: list of ACP tool kinds ("read", "search", …) allowed once
--     without asking (empty by default);
--   on_stderr(text), on_exit(code, signal), on_error(message).
function M.start(opts)
  local self = setmetatable({ opts = opts, sessions = {}, caps = nil, version = nil }, Agent)
  local conn, err = acp.spawn({
    cmd = opts.cmd,
    env = opts.env,
    cwd = opts.cwd,
    on_stderr = opts.on_stderr,
    on_exit = function(code, signal)
      terminal.kill_all()
      for _, s in pairs(self.sessions) do
        s:fail_permissions()
        s.running = false
        s:changed(nil)
      end
      if opts.on_exit then
        opts.on_exit(code, signal)
      end
    end,
  })
  if not conn then
    return nil, err
  end
  self.conn = conn
  conn.on_log = function(text)
    notify_err(self, text)
  end
  fs.install(conn)
  terminal.install(conn)
  conn:on("session/update", function(p)
    local s = self.sessions[p.sessionId]
    if s then
      s:apply(p.update)
    end
  end)
  conn:handle("session/request_permission", function(p, reply)
    self:_permission(p, reply)
  end)
  return self
end

-- Session methods that need the connection.
local Session = session.Session

function Session:fail_permissions()
  for id, req in pairs(self.permissions or {}) do
    self.permissions[id] = nil
    req.respond(nil)
  end
end

local function has(list, v)
  for _, x in ipairs(list or {}) do
    if x == v then
      return true
    end
  end
  return false
end

-- M.OPTION_NAMES: each permission option kind's usual name (the names
-- dsh-bridge gives a tool call's options).
M.OPTION_NAMES = { allow_once = "Allow once", allow_always = "Always allow", reject_once = "Reject",
  reject_always = "Always reject" }

-- M.own_words: some option is not named as its kind usually is (a
-- rewind's "Keep mine", "Take the checkpoint"): the names, not the kinds,
-- say what an answer does, so such a request is never auto-approved.
function M.own_words(options)
  for _, o in ipairs(type(options) == "table" and options or {}) do
    if type(o) == "table" and type(o.name) == "string" and o.name ~= "" and M.OPTION_NAMES[o.kind] ~= o.name then
      return true
    end
  end
  return false
end

function Agent:_permission(p, reply)
  local s = self.sessions[p.sessionId]
  local options = type(p.options) == "table" and p.options or {}
  if not s or #options == 0 or type(p.toolCall) ~= "table" then
    return reply({ outcome = { outcome = "cancelled" } })
  end
  s:tool_call(p.toolCall, false)
  local call = s.calls[p.toolCall.toolCallId]
  local req = { call = call, options = options, session = s }
  s.permissions = s.permissions or {}
  local key = p.toolCall.toolCallId
  local done = false
  req.respond = function(option_id)
    if done then
      return
    end
    done = true
    if s.permissions[key] == req then
      s.permissions[key] = nil
    end
    call.awaiting = nil
    call.decision = option_id
    s:changed(call)
    if option_id == nil then
      reply({ outcome = { outcome = "cancelled" } })
    else
      reply({ outcome = { outcome = "selected", optionId = option_id } })
    end
  end
  s.permissions[key] = req
  call.awaiting = req
  s:changed(call)
  if has(self.opts.auto_approve, call.tool_kind) and not M.own_words(options) then
    for _, o in ipairs(options) do
      if o.kind == "allow_once" then
        return req.respond(o.optionId)
      end
    end
  end
  if self.opts.decide then
    self.opts.decide(s, req)
  end
end

-- capabilities are the client capabilities initialize sends.
local function capabilities()
  return {
    fs = { readTextFile = true, writeTextFile = true },
    terminal = true,
    -- plan_update / plan_removed with a planId (dsh.session.set_plan);
    -- the opt-in shape from the ACP site's "Plan operations are
    -- stabilized" (agentclientprotocol.com/announcements/
    -- plan-operations-stabilized, November 20, 2026; read 2026-12-07)
    plan = vim.empty_dict(),
    -- cards are drawn from _meta.dsh (docs/meta-dsh.md): the bridge then
    -- sends a read's or a search's text once, in the card, and syntax
    -- tokens packed (a sixth of the bytes; session.unpack_tokens)
    _meta = { dsh = { version = 1, packedTokens = true } },
  }
end

M.capabilities = capabilities

-- initialize sends initialize; cb(result, err).
function Agent:initialize(cb)
  local started = vim.loop.hrtime()
  self.conn:request("initialize", {
    protocolVersion = M.PROTOCOL_VERSION,
    clientCapabilities = capabilities(),
    clientInfo = { name = "dsh.nvim", title = "dsh-bridge for Neovim", version = require("dsh.version") },
  }, function(r, err)
    if r then
      self.caps = r.agentCapabilities or {}
      self.info = r.agentInfo
      self.init_ms = (vim.loop.hrtime() - started) / 1e6
    end
    cb(r, err)
  end)
end

function Agent:_session(id, cwd, r)
  local s = self.sessions[id] or session.new(id, { cwd = cwd })
  if r then
    s.modes = r.modes or s.modes
    s.config_options = r.configOptions and session.objects(r.configOptions) or s.config_options
  end
  self.sessions[id] = s
  return s
end

-- new_session opens a session in cwd; cb(session, err).
function Agent:new_session(cwd, cb)
  self.conn:request("session/new", { cwd = cwd, mcpServers = {} }, function(r, err)
    if not r then
      return cb(nil, err)
    end
    cb(self:_session(r.sessionId, cwd, r), nil)
  end)
end

-- list_sessions asks session/list (all pages); cb(sessions, err).
function Agent:list_sessions(cwd, cb)
  local all = {}
  local function page(cursor)
    self.conn:request("session/list", { cwd = cwd, cursor = cursor }, function(r, err)
      if not r then
        return cb(nil, err)
      end
      -- an entry that is not a session is left out, and said once
      local bad = type(r.sessions) ~= "table" and r.sessions ~= nil
      for _, s in ipairs(type(r.sessions) == "table" and r.sessions or {}) do
        if type(s) == "table" and type(s.sessionId) == "string" then
          all[#all + 1] = s
        else
          bad = true
        end
      end
      if bad and not self.warned_sessions then
        self.warned_sessions = true
        vim.schedule(function()
          vim.notify("dsh: session/list sent entries that are not sessions; they are left out",
            vim.log.levels.WARN)
        end)
      end
      if type(r.nextCursor) == "string" and r.nextCursor ~= "" then
        return page(r.nextCursor)
      end
      cb(all, nil)
    end)
  end
  page(nil)
end

-- load_session replays a stored session into a fresh Session; the
-- replayed updates reach subscribers added in on_session before the
-- request is sent. cb(session, err).
function Agent:load_session(id, cwd, on_session, cb)
  local s = session.new(id, { cwd = cwd })
  self.sessions[id] = s
  if on_session then
    on_session(s)
  end
  self.conn:request("session/load", { sessionId = id, cwd = cwd, mcpServers = {} }, function(r, err)
    if err then
      return cb(nil, err)
    end
    self:_session(id, cwd, r)
    s:changed(nil)
    cb(s, nil)
  end)
end

-- M.user_message_id is the id of the user message a prompt's answer names
-- (_meta.dsh.userMessageId, docs/meta-dsh.md), nil when it names none (a
-- slash command's turn, another agent).
function M.user_message_id(r)
  local meta = type(r) == "table" and type(r._meta) == "table" and r._meta.dsh
  local id = type(meta) == "table" and meta.userMessageId
  if type(id) == "string" and id ~= "" then
    return id
  end
  return nil
end

-- prompt sends blocks (ContentBlocks); cb(stopReason, err, userMessageId).
function Agent:prompt(s, blocks, cb)
  s.running = true
  s:changed(nil)
  self.conn:request("session/prompt", { sessionId = s.id, prompt = blocks }, function(r, err)
    s.running = false
    if r and r.stopReason == "cancelled" then
      s:settle_cancelled()
    end
    s:changed(nil)
    cb(r and r.stopReason, err, M.user_message_id(r))
  end)
end

-- rewind_method is the method the agent advertised for rewinding a
-- session (agentCapabilities._meta.dsh.sessionRewind.method,
-- docs/meta-dsh.md), nil when it has none.
function Agent:rewind_method()
  local meta = type(self.caps) == "table" and type(self.caps._meta) == "table" and self.caps._meta.dsh
  local rw = type(meta) == "table" and meta.sessionRewind
  local m = type(rw) == "table" and rw.method
  if type(m) == "string" and m ~= "" then
    return m
  end
  return nil
end

-- rewind asks the agent to rewind s to before the turn of message id
-- (_dsh/session/rewind {sessionId, toMessageId}); the session counts as
-- running meanwhile (a conflict is asked as a permission request).
-- cb(result, err): result {restored, kept?, notRestorable?, failed?,
-- cancelled?}.
function Agent:rewind(s, id, cb)
  local method = self:rewind_method()
  if not method then
    return cb(nil, { message = "this agent cannot rewind a session" })
  end
  s.running = true
  s:changed(nil)
  self.conn:request(method, { sessionId = s.id, toMessageId = id }, function(r, err)
    s.running = false
    s:changed(nil)
    if not err and type(r) ~= "table" then
      err = { message = "the agent's answer is not an object" }
    end
    cb(not err and r or nil, err)
  end)
end

-- cancel sends session/cancel and answers the session's open permission
-- requests as cancelled (ACP asks that of the client).
function Agent:cancel(s)
  self.conn:notify("session/cancel", { sessionId = s.id })
  s:fail_permissions()
end

-- settle sends a request whose success changes the session (apply(r)),
-- then tells cb.
function Agent:_settle(s, method, params, apply, cb)
  self.conn:request(method, params, function(r, err)
    if r then
      apply(r)
      s:changed(nil)
    end
    if cb then
      cb(r, err)
    end
  end)
end

function Agent:set_mode(s, mode_id, cb)
  self:_settle(s, "session/set_mode", { sessionId = s.id, modeId = mode_id }, function()
    if type(s.modes) == "table" then
      s.modes.currentModeId = mode_id
    end
  end, cb)
end

function Agent:set_config(s, config_id, value, cb)
  self:_settle(s, "session/set_config_option", { sessionId = s.id, configId = config_id, value = value }, function(r)
    if type(r.configOptions) == "table" then
      s.config_options = session.objects(r.configOptions)
    end
  end, cb)
end

function Agent:alive()
  return self.conn:alive()
end

function Agent:stop()
  terminal.kill_all()
  self.conn:stop()
end

return M
