-- dsh.commands: what the :Dsh* commands do beyond chatting: review and
-- approvals, the quickfix list, sessions, modes and options, attachments,
-- the log.
local dsh = require("dsh")

local M = {}

local function notify(msg, level)
  vim.notify("dsh: " .. msg, level or vim.log.levels.INFO)
end

local chat = dsh.current

-- the call a command is about: the one under the cursor in the
-- transcript, else the oldest one waiting for approval.
local function target_call(c)
  if vim.api.nvim_get_current_buf() == c.buf then
    local b = c:block_at(vim.api.nvim_win_get_cursor(0)[1])
    if b and b.kind == "tool" then
      return b
    end
  end
  local open = require("dsh.ui.approve").open()
  if open[1] then
    return open[1].call
  end
  return nil
end

function M.diff()
  local c = chat()
  if not c then
    return
  end
  local call = target_call(c)
  if not call or require("dsh.ui.diffview").open(call, c.session.cwd, c.session) == 0 then
    notify("no proposed change here", vim.log.levels.WARN)
  end
end

function M.approve()
  if #require("dsh.ui.approve").open() == 0 then
    return notify("nothing is waiting for approval")
  end
  require("dsh.ui.approve").ask()
end

-- M.quickfix sends the last search card's matches to the quickfix list;
-- returns the entry count.
function M.quickfix()
  local c = chat()
  if not c then
    return 0
  end
  local blocks = c.session.blocks
  for i = #blocks, 1, -1 do
    local b = blocks[i]
    local card = b.kind == "tool" and b.dsh and b.dsh.card
    if type(card) == "table" and card.card == "search" then
      local items = {}
      local function path(p)
        p = tostring(p)
        return p:sub(1, 1) == "/" and p or ((c.session.cwd or ".") .. "/" .. p)
      end
      if card.shape == "paths" then
        for _, p in ipairs(card.paths or {}) do
          items[#items + 1] = { filename = path(p), lnum = 1, text = tostring(p) }
        end
      else
        for _, f in ipairs(card.files or {}) do
          for _, m in ipairs(f.matches or {}) do
            items[#items + 1] = { filename = path(f.path), lnum = tonumber(m.lineNumber) or 1, text = tostring(m.line) }
          end
        end
      end
      vim.fn.setqflist({}, " ", { title = "dsh: " .. tostring(b.title or "search"), items = items })
      vim.cmd("copen")
      return #items
    end
  end
  notify("no search card in this chat", vim.log.levels.WARN)
  return 0
end

-- load_chat loads stored session info (a session/list entry) into a new
-- chat (its cards replayed) and opens it; cb(chat) when loaded, cb(nil)
-- when not (said unless quiet).
local function load_chat(agent, info, cwd, cb, quiet)
  local old = dsh.state.chats[info.sessionId]
  if old and not old.closed and agent.sessions[info.sessionId] then
    -- open in this agent already: that chat, not a second load
    if old.session.title == nil and type(info.title) == "string" and info.title ~= "" then
      old.session.title = info.title
      old.session:changed(nil)
    end
    if dsh.state.current and dsh.state.current ~= old then
      dsh.state.current:close()
    end
    dsh.state.current = old
    old:open()
    return cb and cb(old)
  end
  if old then
    old:destroy()
    dsh.state.chats[info.sessionId] = nil
  end
  local new
  agent:load_session(info.sessionId, info.cwd or cwd, function(s)
    if type(info.title) == "string" and info.title ~= "" then
      s.title = info.title -- until a session_info_update says otherwise
    end
    new = require("dsh.ui.chat").new(s, dsh.config)
    dsh.state.chats[s.id] = new
  end, function(s, serr)
    if not s then
      new:destroy()
      dsh.state.chats[info.sessionId] = nil
      if not quiet then
        notify("session/load: " .. tostring(serr and serr.message), vim.log.levels.ERROR)
      end
      return cb and cb(nil)
    end
    if dsh.state.current and dsh.state.current ~= new then
      dsh.state.current:close()
    end
    dsh.state.current = new
    new:open()
    if cb then
      cb(new)
    end
  end)
end

-- stored lists this folder's stored sessions, newest first; cb(agent,
-- list) (list nil when the agent cannot load them, or failed).
local function stored(cb, quiet)
  dsh.agent(function(agent, err)
    if not agent then
      notify(tostring(err), vim.log.levels.ERROR)
      return cb(nil, nil)
    end
    if not agent.caps.loadSession then
      if not quiet then
        notify("this agent cannot load sessions", vim.log.levels.WARN)
      end
      return cb(agent, nil)
    end
    agent:list_sessions(vim.fn.getcwd(), function(list, lerr)
      if not list then
        notify("session/list: " .. tostring(lerr and lerr.message), vim.log.levels.ERROR)
        return cb(agent, nil)
      end
      local when = require("dsh.timefmt").epoch
      local pos = {}
      for i, s in ipairs(list) do
        pos[s] = i
      end
      table.sort(list, function(a, b) -- newest first; ties keep the agent's order
        local ta, tb = when(a.updatedAt) or 0, when(b.updatedAt) or 0
        if ta ~= tb then
          return ta > tb
        end
        return pos[a] < pos[b]
      end)
      cb(agent, list)
    end)
  end)
end

-- M.session_label is a session's line in the picker: when (relative,
-- local time) and its title.
function M.session_label(s, now)
  local title = type(s.title) == "string" and s.title ~= "" and s.title or ("untitled " .. tostring(s.sessionId))
  title = require("dsh.session").one_line(title)
  return ("%-16s  %s"):format(require("dsh.timefmt").ago(s.updatedAt, now), title)
end

-- M.sessions lists the agent's sessions of this directory, newest first,
-- and loads the chosen one into a new chat. cb(chat) when loaded.
function M.sessions(cb)
  local cwd = vim.fn.getcwd()
  stored(function(agent, list)
    if not list then
      return
    end
    if #list == 0 then
      return notify("no stored sessions for " .. cwd)
    end
    local now = os.time()
    vim.ui.select(list, {
      prompt = "dsh-bridge sessions",
      kind = "dsh.session",
      format_item = function(s)
        return M.session_label(s, now)
      end,
    }, function(choice)
      if choice then
        load_chat(agent, choice, cwd, cb)
      end
    end)
  end)
end

-- M.resume loads this folder's most recent session; cb(chat), nil when
-- there is none or the agent cannot load sessions (quiet: no notice).
function M.resume(cb, quiet)
  cb = cb or function() end
  local cwd = vim.fn.getcwd()
  stored(function(agent, list)
    if not list or #list == 0 then
      if not quiet and list then
        notify("no stored sessions for " .. cwd)
      end
      return cb(nil)
    end
    load_chat(agent, list[1], cwd, cb, quiet) -- quiet: a new chat follows
  end, quiet)
end

function M.mode()
  local c = chat()
  if not c then
    return
  end
  local modes = c.session.modes
  if type(modes) ~= "table" or type(modes.availableModes) ~= "table" then
    return notify("this session has no modes", vim.log.levels.WARN)
  end
  vim.ui.select(modes.availableModes, {
    prompt = "dsh-bridge mode",
    kind = "dsh.mode",
    format_item = function(m)
      return (m.id == modes.currentModeId and "● " or "  ") .. tostring(m.name or m.id)
        .. (m.description and ("  " .. m.description) or "")
    end,
  }, function(m)
    if m then
      dsh.state.agent:set_mode(c.session, m.id)
    end
  end)
end

local function pick_value(c, opt)
  local values = {}
  for _, o in ipairs(opt.options or {}) do
    if type(o) == "table" and o.value ~= nil then
      values[#values + 1] = o
    elseif type(o) == "table" and type(o.options) == "table" then -- grouped
      for _, g in ipairs(o.options) do
        values[#values + 1] = g
      end
    end
  end
  vim.ui.select(values, {
    prompt = "dsh-bridge " .. tostring(opt.name or opt.id),
    kind = "dsh.config",
    format_item = function(v)
      return (v.value == opt.currentValue and "● " or "  ") .. tostring(v.name or v.value)
    end,
  }, function(v)
    if v then
      dsh.state.agent:set_config(c.session, opt.id, v.value, function(_, err)
        if err then
          notify("set_config_option: " .. tostring(err.message), vim.log.levels.ERROR)
        end
      end)
    end
  end)
end

-- M.config picks a config option (category, e.g. "model", or all when
-- nil) and a value for it.
function M.config(category)
  local c = chat()
  if not c then
    return
  end
  local opts = {}
  for _, o in ipairs(type(c.session.config_options) == "table" and c.session.config_options or {}) do
    if type(o) == "table" and (category == nil or o.category == category or o.id == category)
      and o.type == "select" then
      opts[#opts + 1] = o
    end
  end
  if #opts == 0 then
    return notify("this session has no such option", vim.log.levels.WARN)
  end
  if #opts == 1 then
    return pick_value(c, opts[1])
  end
  vim.ui.select(opts, {
    prompt = "dsh-bridge option",
    format_item = function(o)
      return tostring(o.name or o.id) .. ": " .. tostring(o.currentValue)
    end,
  }, function(o)
    if o then
      pick_value(c, o)
    end
  end)
end

-- M.add attaches the current buffer (or lines l1..l2 of it) to the next
-- prompt, as an embedded resource.
function M.add(l1, l2, ranged)
  local c = chat()
  if not c then
    return
  end
  local buf = vim.api.nvim_get_current_buf()
  if buf == c.buf or buf == c.input then
    return notify("run :DshAdd from the buffer to attach", vim.log.levels.WARN)
  end
  local path = vim.api.nvim_buf_get_name(buf)
  if path == "" then
    return notify("this buffer has no file name", vim.log.levels.WARN)
  end
  local first, last = 0, -1
  local uri = vim.uri_from_fname(path)
  local label = vim.fn.fnamemodify(path, ":~:.")
  if ranged then
    first, last = l1 - 1, l2
    uri = ("%s#L%d-%d"):format(uri, l1, l2)
    label = ("%s:%d-%d"):format(label, l1, l2)
  end
  local text = table.concat(vim.api.nvim_buf_get_lines(buf, first, last, false), "\n") .. "\n"
  local res = { uri = uri, text = text }
  local ft = vim.bo[buf].filetype
  if ft ~= "" then
    res.mimeType = "text/x-" .. ft
  end
  c.attachments[#c.attachments + 1] = { label = label, block = { type = "resource", resource = res } }
  notify(("attached %s to the next prompt (%d in all)"):format(label, #c.attachments))
end

function M.log()
  vim.cmd("botright new")
  local b = vim.api.nvim_get_current_buf()
  vim.bo[b].buftype = "nofile"
  vim.bo[b].bufhidden = "wipe"
  vim.api.nvim_buf_set_lines(b, 0, -1, false, dsh.state.log)
  vim.bo[b].modifiable = false
end

function M.stop()
  dsh.reset()
end

-- env_dict is the environment with extra merged in (false unsets), for
-- jobs started with clear_env.
function M.env_dict(extra)
  local env = vim.fn.environ()
  for k, v in pairs(extra or {}) do
    if v == false then
      env[k] = nil
    else
      env[k] = tostring(v)
    end
  end
  return env
end

-- login runs `dsh-bridge login` (ACP's terminal auth method) in a terminal
-- buffer: it asks for the key, checks it and stores it; the next chat
-- takes it. Returns the terminal's job id.
function M.login()
  local cfg = dsh.config
  local found = require("dsh.exe").find(cfg.cmd[1])
  if not found then
    notify(cfg.cmd[1] .. " is not on PATH outside the working directory and the temp folder", vim.log.levels.ERROR)
    return nil
  end
  vim.cmd("botright new")
  local job = vim.fn.termopen({ found, "login" }, {
    env = M.env_dict(cfg.env),
    clear_env = true,
    on_exit = function(_, code)
      if code == 0 then
        notify("signed in: :DshChat starts a chat with the stored key")
      else
        notify("sign-in failed (exit " .. code .. "); the terminal says why", vim.log.levels.WARN)
      end
    end,
  })
  vim.cmd("startinsert")
  return job
end

return M
