-- dsh: dsh-bridge in Neovim. setup() and the commands; the protocol lives
-- in dsh.acp / dsh.agent, the views in dsh.ui.*.
local config = require("dsh.config")

local M = {}

M.config = config.merge()
M.state = { agent = nil, chats = {}, current = nil, log = {} }

local function notify(msg, level)
  vim.notify("dsh: " .. msg, level or vim.log.levels.INFO)
end

local function log_stderr(text)
  local log = M.state.log
  for line in text:gmatch("[^\n]+") do
    log[#log + 1] = line
  end
  while #log > 2000 do
    table.remove(log, 1)
  end
end

-- M.setup applies the user's options (see :help dsh-config).
function M.setup(opts)
  M.config = config.merge(opts)
  require("dsh.ui.highlight").setup()
end

local function on_exit(agent, code, signal)
  if M.state.agent ~= agent then
    return
  end
  M.state.agent = nil
  if agent.stopping then
    return
  end
  local tail = M.state.log[#M.state.log] or ""
  notify(("dsh-bridge exited (%s)%s. :DshChat starts it again; :DshLog shows its log."):format(
    signal ~= 0 and ("signal " .. signal) or ("code " .. code), tail ~= "" and (": " .. tail) or ""),
    vim.log.levels.ERROR)
end

-- M.agent returns the running agent, starting and initializing it when
-- needed; cb(agent, err).
function M.agent(cb)
  local st = M.state
  if st.agent and st.agent:alive() and st.agent.caps then
    return cb(st.agent)
  end
  if st.starting then
    st.starting[#st.starting + 1] = cb
    return
  end
  st.starting = { cb }
  local agent
  local function done(a, err)
    local waiters = st.starting
    st.starting = nil
    for _, w in ipairs(waiters) do
      w(a, err)
    end
  end
  local err
  agent, err = require("dsh.agent").start({
    cmd = M.config.cmd,
    env = M.config.env,
    cwd = vim.fn.getcwd(),
    auto_approve = M.config.auto_approve,
    decide = require("dsh.ui.approve").decide,
    on_stderr = log_stderr,
    on_error = function(msg)
      log_stderr(msg)
    end,
    on_exit = function(code, signal)
      on_exit(agent, code, signal)
    end,
  })
  if not agent then
    return done(nil, err)
  end
  st.agent = agent
  agent:initialize(function(r, ierr)
    if not r then
      return done(nil, "initialize: " .. (ierr and ierr.message or "no answer"))
    end
    done(agent)
  end)
end

local function chat_for(s)
  local chat = M.state.chats[s.id]
  if not chat then
    chat = require("dsh.ui.chat").new(s, M.config)
    M.state.chats[s.id] = chat
  end
  M.state.current = chat
  return chat
end

-- M.chat opens the current chat, starting the agent and a session in the
-- working directory when there is none; cb(chat, err) when it is ready.
function M.chat(cb)
  cb = cb or function() end
  local cur = M.state.current
  if cur and not cur.closed and M.state.agent and M.state.agent.sessions[cur.session.id] then
    cur:open()
    return cb(cur)
  end
  if M.config.resume_last and not cur and not M.state.resumed then
    -- the first chat of this Neovim: the folder's last session, if any
    M.state.resumed = true
    return require("dsh.commands").resume(function(chat)
      if chat then
        return cb(chat)
      elseif not M.state.agent then
        return cb(nil, "the agent did not start") -- already said
      end
      M.new_chat(cb)
    end, true)
  end
  M.new_chat(cb)
end

function M.new_chat(cb)
  cb = cb or function() end
  local started = vim.loop.hrtime()
  M.agent(function(agent, err)
    if not agent then
      notify(tostring(err), vim.log.levels.ERROR)
      return cb(nil, err)
    end
    agent:new_session(vim.fn.getcwd(), function(s, serr)
      if not s then
        local msg = "session/new: " .. (serr and serr.message or "failed")
        if serr and serr.code == -32000 then -- auth_required: no key set or stored
          msg = "not signed in: :DshLogin stores an API key (or set DSH_API_KEY), then :DshChat"
        end
        notify(msg, vim.log.levels.ERROR)
        return cb(nil, msg)
      end
      local chat = chat_for(s)
      chat:open()
      M.state.ready_ms = (vim.loop.hrtime() - started) / 1e6
      cb(chat)
    end)
  end)
end

-- M.current returns the current chat, or nil after telling the person.
function M.current()
  local c = M.state.current
  if not c or c.closed then
    notify("no chat: :DshChat opens one", vim.log.levels.WARN)
    return nil
  end
  return c
end

-- M.send sends the prompt buffer's text (and the attachments) as a turn.
function M.send(text)
  local chat = M.current()
  if not chat then
    return
  end
  local agent = M.state.agent
  if not agent then
    return notify("the agent is not running: :DshChat starts it", vim.log.levels.ERROR)
  end
  local s = chat.session
  if s.running then
    return notify("a turn is running: wait, or :DshCancel", vim.log.levels.WARN)
  end
  text = text or chat:take_prompt()
  if text == "" and #chat.attachments == 0 then
    return
  end
  local blocks = { { type = "text", text = text } }
  local shown = text
  for _, a in ipairs(chat.attachments) do
    blocks[#blocks + 1] = a.block
    shown = shown .. "\n[" .. a.label .. "]"
  end
  chat.attachments = {}
  -- prompt: the text alone, given back to edit when a rewind cuts here
  local user = s:add({ kind = "user", text = shown, prompt = text })
  agent:prompt(s, blocks, function(stop, err, message_id)
    if message_id and not user.message_id then
      user.message_id = message_id -- what a rewind names (dsh.rewind)
    end
    if err then
      s:add({ kind = "notice", severity = "error", text = "session/prompt: " .. tostring(err.message) })
    elseif stop and stop ~= "end_turn" then
      s:add({ kind = "notice", severity = "info", text = "turn ended: " .. stop })
    end
    if M.on_turn_end then
      M.on_turn_end(stop, err)
    end
  end)
end

-- M.reset stops the agent and forgets every chat (:DshStop, and tests);
-- returns once the agent has exited (at most timeout_ms, default 5000).
function M.reset(timeout_ms)
  local a = M.state.agent
  for _, c in pairs(M.state.chats) do
    c:destroy()
  end
  if a then
    a.stopping = true
    a:stop()
    vim.wait(timeout_ms or 5000, function()
      return not a:alive()
    end, 10)
  end
  if package.loaded["dsh.ui.approve"] then
    require("dsh.ui.approve").reset()
  end
  M.state = { agent = nil, chats = {}, current = nil, log = {} }
end

function M.cancel()
  local chat = M.current()
  if chat and M.state.agent then
    M.state.agent:cancel(chat.session)
  end
end

return M
