-- dsh.rewind: :DshRewind and :DshUndo. A chat's turns are its user
-- messages the agent named (a prompt's answer's userMessageId, a replayed
-- chunk's messageId). Rewinding to before one asks the agent's rewind
-- method (_dsh/session/rewind {sessionId, toMessageId}, docs/meta-dsh.md)
-- to undo that turn's and every later turn's file changes and to cut the
-- conversation there; the chat then drops those blocks and the prompt
-- gets the message back to edit and send again. A file changed since by
-- someone else comes back as a permission request (keep mine, take the
-- checkpoint, cancel), asked like any other (dsh.ui.approve). An agent
-- that does not advertise the method is sent the slash commands
-- (/rewind N, /undo). Buffers of restored files without unsaved changes
-- are read again.
local dsh = require("dsh")
local one_line = require("dsh.session").one_line

local M = {}

local function notify(msg, level)
  vim.notify("dsh: " .. msg, level or vim.log.levels.INFO)
end

-- rel is p relative to cwd when inside it.
local function rel(p, cwd)
  p = tostring(p)
  if type(cwd) == "string" and cwd ~= "" then
    local pre = cwd:gsub("/+$", "") .. "/"
    if p:sub(1, #pre) == pre then
      return p:sub(#pre + 1)
    end
  end
  return p
end

-- the ACP tool kinds whose completed calls changed the files they name
local CHANGES = { edit = true, delete = true, move = true }

-- changed_files are the files the completed changing calls of
-- blocks[first..last] name (locations, diffs), each once, in order.
local function changed_files(blocks, first, last, cwd)
  local seen, out = {}, {}
  local function add(p)
    if type(p) == "string" and p ~= "" then
      p = rel(p, cwd)
      if not seen[p] then
        seen[p] = true
        out[#out + 1] = p
      end
    end
  end
  for i = first, last do
    local b = blocks[i]
    if b.kind == "tool" and CHANGES[b.tool_kind] and b.status == "completed" then
      for _, l in ipairs(type(b.locations) == "table" and b.locations or {}) do
        if type(l) == "table" then
          add(l.path)
        end
      end
      for _, c in ipairs(type(b.content) == "table" and b.content or {}) do
        if type(c) == "table" and c.type == "diff" then
          add(c.path)
        end
      end
    end
  end
  return out
end

-- M.turns lists session s's turns, oldest first: {n, block, id, text,
-- files}. by_id: only the user messages with an id (what the rewind
-- method takes); else every one that is not a slash command (what
-- /rewind N counts).
function M.turns(s, by_id)
  local blocks, users = s.blocks, {}
  for i, b in ipairs(blocks) do
    if b.kind == "user" then
      users[#users + 1] = i
    end
  end
  local list = {}
  for j, i in ipairs(users) do
    local b = blocks[i]
    local text = type(b.prompt) == "string" and b.prompt or tostring(b.text or "")
    local id = type(b.message_id) == "string" and b.message_id ~= "" and b.message_id or nil
    if (by_id and id) or (not by_id and text:sub(1, 1) ~= "/") then
      list[#list + 1] = { n = #list + 1, block = b, id = id, text = text,
        files = changed_files(blocks, i + 1, (users[j + 1] or #blocks + 1) - 1, s.cwd) }
    end
  end
  return list
end

-- M.label is a turn's line in the picker: its number, its first line,
-- the files it changed (when known).
function M.label(t)
  local first = one_line(vim.split(t.text, "\n", { plain = true })[1] or "")
  if vim.fn.strchars(first) > 60 then
    first = vim.fn.strcharpart(first, 0, 59) .. "…"
  end
  local files = #t.files > 0 and ("  · " .. one_line(table.concat(t.files, ", "))) or ""
  return ("%d. %s%s"):format(t.n, first, files)
end

-- M.summary says what a rewind did; the level is WARN when a file was
-- not restored.
function M.summary(t, r, cwd)
  local parts = { ("rewound to before turn %d"):format(t.n) }
  local warn = false
  local function list(head, paths, bad)
    local names = {}
    for _, p in ipairs(type(paths) == "table" and paths or {}) do
      names[#names + 1] = rel(p, cwd)
    end
    if #names > 0 then
      parts[#parts + 1] = head .. " " .. table.concat(names, ", ")
      warn = warn or bad
    end
  end
  list("restored", r.restored, false)
  list("kept as you changed them:", r.kept, true)
  list("not restorable:", r.notRestorable, true)
  list("could not restore", r.failed, true)
  if #parts == 1 then
    parts[#parts + 1] = "no file needed restoring"
  end
  return one_line(table.concat(parts, "; ")), warn and vim.log.levels.WARN or vim.log.levels.INFO
end

-- ready returns the current chat and the agent when a rewind can start.
local function ready()
  local chat = dsh.current()
  if not chat then
    return nil
  end
  local agent = dsh.state.agent
  if not agent then
    notify("the agent is not running: :DshChat starts it", vim.log.levels.ERROR)
    return nil
  end
  if chat.session.running then
    notify("a turn is running: wait, or :DshCancel", vim.log.levels.WARN)
    return nil
  end
  return chat, agent
end

local function set_prompt(chat, text)
  local lines = vim.split(text, "\n", { plain = true })
  vim.api.nvim_buf_set_lines(chat.input, 0, -1, false, lines)
  local w = chat.input_win
  if w and vim.api.nvim_win_is_valid(w) then
    vim.api.nvim_win_set_cursor(w, { #lines, #lines[#lines] })
  end
end

-- reload reads the restored files again into their buffers that have no
-- unsaved change (the rewind wrote the disk); a buffer with changes, or
-- of a file the rewind deleted, is left as it is.
local function reload(paths)
  for _, p in ipairs(type(paths) == "table" and paths or {}) do
    local b = type(p) == "string" and vim.fn.bufnr(p) or -1
    if b > 0 and vim.api.nvim_buf_is_loaded(b) and not vim.bo[b].modified and vim.fn.filereadable(p) == 1 then
      pcall(vim.api.nvim_buf_call, b, function()
        vim.cmd("silent keepalt edit")
      end)
    end
  end
end

-- run rewinds chat to before turn t; cb(result) once the chat shows the
-- cut (nil when it failed or was cancelled).
local function run(chat, agent, t, cb)
  cb = cb or function() end
  local s = chat.session
  if not t.id or not agent:rewind_method() then
    dsh.send("/rewind " .. t.n)
    return cb(nil)
  end
  agent:rewind(s, t.id, function(r, err)
    if not r then
      notify("rewind: " .. tostring(err and err.message), vim.log.levels.ERROR)
      return cb(nil)
    end
    if r.cancelled == true then
      notify("rewind cancelled: nothing was changed")
      return cb(nil)
    end
    for i, b in ipairs(s.blocks) do
      if b == t.block then
        s:cut(i)
        break
      end
    end
    reload(r.restored)
    if not chat.closed and vim.api.nvim_buf_is_valid(chat.input) then
      set_prompt(chat, t.text)
    end
    notify(M.summary(t, r, s.cwd))
    cb(r)
  end)
end

local CONFIRM = { { yes = true }, { yes = false } }

-- confirm asks before a rewind (vim.ui.select, kind "dsh.confirm").
local function confirm(t, yes)
  vim.ui.select(CONFIRM, {
    prompt = ("Rewind to before turn %d? Its file changes and those after it are undone."):format(t.n),
    kind = "dsh.confirm",
    format_item = function(it)
      return it.yes and "Rewind, and put the message back in the prompt" or "Cancel"
    end,
  }, function(choice)
    if choice and choice.yes then
      yes()
    end
  end)
end

-- M.pick is :DshRewind: a picker of the chat's turns, newest first;
-- the chosen one is rewound to after a confirmation. cb(result) as run.
function M.pick(cb)
  local chat, agent = ready()
  if not chat then
    return
  end
  local list = M.turns(chat.session, agent:rewind_method() ~= nil)
  if #list == 0 then
    return notify("no turn to rewind to yet")
  end
  local items = {}
  for i = #list, 1, -1 do
    items[#items + 1] = list[i]
  end
  vim.ui.select(items, {
    prompt = "dsh-bridge: rewind to before which message?",
    kind = "dsh.rewind",
    format_item = M.label,
  }, function(t)
    if t then
      confirm(t, function()
        run(chat, agent, t, cb)
      end)
    end
  end)
end

-- M.to is :DshRewind N: to before turn N of the picker's list, without
-- asking (the command names it); anything else goes to /rewind as typed.
function M.to(arg, cb)
  local chat, agent = ready()
  if not chat then
    return
  end
  local list = M.turns(chat.session, agent:rewind_method() ~= nil)
  local t = list[tonumber(arg) or 0]
  if not t then
    return dsh.send("/rewind " .. arg)
  end
  run(chat, agent, t, cb)
end

-- M.undo is :DshUndo: the last turn, after a confirmation.
function M.undo(cb)
  local chat, agent = ready()
  if not chat then
    return
  end
  if not agent:rewind_method() then
    return dsh.send("/undo")
  end
  local list = M.turns(chat.session, true)
  local t = list[#list]
  if not t then
    return notify("nothing to undo yet")
  end
  confirm(t, function()
    run(chat, agent, t, cb)
  end)
end

return M
