-- dsh.ui.approve: permission requests, one at a time, oldest first. By
-- default in a floating window that does not block the editor
-- (dsh.ui.approvefloat); with `approval = "select"` through vim.ui.select
-- (so telescope, fzf-lua or dressing users get their own picker), the
-- agent's options ordered by kind. Either can show the proposed change
-- side by side first (dsh.ui.diffview). Dismissing leaves the request
-- open: :DshApprove asks again.
local cards = require("dsh.ui.cards")
local float = require("dsh.ui.approvefloat")

local M = {}

local queue = {}
local asking = nil

local ORDER = { allow_once = 1, allow_always = 2, reject_once = 3, reject_always = 4 }
local LABEL = float.LABEL
local REVIEW = { review = true }

local function pending(req)
  return req.session.permissions and req.session.permissions[req.call.id] == req
end

local function next_request()
  while #queue > 0 and not pending(queue[1]) do
    table.remove(queue, 1)
  end
  return queue[1]
end

-- M.prompt says what a request asks for: an edit as an edit, a command
-- as a command; one whose options are in their own words (a rewind's
-- conflict) as a question.
function M.prompt(call, title, options)
  local card = call.dsh and call.dsh.card
  local kind = type(card) == "table" and card.card or nil
  if kind == "diff" or (kind == nil and #cards.diffs(call) > 0) then
    return "dsh-bridge asks to change a file: " .. title
  elseif kind == "terminal" or call.tool_kind == "execute" then
    return "dsh-bridge asks to run: " .. title
  elseif float.own_words(options) then
    return "dsh-bridge asks: " .. title
  end
  return "dsh-bridge asks to use a tool: " .. title
end

local function mode()
  local cfg = package.loaded["dsh"] and require("dsh").config or {}
  return cfg.approval == "select" and "select" or "float"
end

local watched = setmetatable({}, { __mode = "k" })

-- watch closes the float when its request ends without an answer from it
-- (a cancelled turn, the agent gone), and asks the next one.
local function watch(session)
  if watched[session] or type(session.on_change) ~= "function" then
    return
  end
  watched[session] = true
  session:on_change(function(block)
    local req = float.current()
    if block and req and req.call == block and not pending(req) then
      vim.schedule(function()
        if float.current() == req and not pending(req) then
          float.close()
          asking = nil
          M.ask()
        end
      end)
    end
  end)
end

local ask_select

local function ask_float(req)
  watch(req.session)
  local title = tostring(req.call.title or req.call.tool_kind or "a tool call")
  local ok, err = pcall(float.show, req, M.prompt(req.call, title, req.options), function(choice)
    float.close()
    asking = nil
    if pending(req) then
      table.remove(queue, 1)
      req.respond(choice.optionId)
    end
    vim.schedule(M.ask)
  end, function()
    asking = nil
  end)
  if not ok then
    -- whatever the float could not draw, the request is still asked
    pcall(float.close)
    vim.notify("dsh: the approval window failed (" .. tostring(err) .. "); asking in a list",
      vim.log.levels.WARN)
    return ask_select(req)
  end
end

-- M.ask shows the first open request (if none is shown; the float is
-- focused again when it is).
function M.ask()
  if asking then
    if asking == float.current() then
      float.focus()
    end
    return
  end
  local req = next_request()
  if not req then
    return
  end
  asking = req
  local chat = package.loaded["dsh"] and require("dsh").state.chats[req.session.id]
  if mode() == "float" then
    if chat then
      chat:flush()
    end
    return ask_float(req)
  end
  return ask_select(req)
end

-- one line, for a picker's prompt and items: no NUL, no newline
local function one_line(s)
  return (tostring(s):gsub("[%z\r\n]+", " "))
end

ask_select = function(req)
  local chat = package.loaded["dsh"] and require("dsh").state.chats[req.session.id]
  local items = {}
  for _, o in ipairs(type(req.options) == "table" and req.options or {}) do
    if type(o) == "table" and o.optionId ~= nil then
      items[#items + 1] = o
    end
  end
  table.sort(items, function(a, b)
    return (ORDER[a.kind] or 9) < (ORDER[b.kind] or 9)
  end)
  if #cards.diffs(req.call) > 0 then
    items[#items + 1] = REVIEW
  end
  -- The card being decided is drawn before the picker opens (a picker
  -- such as inputlist() blocks the redraws).
  if chat then
    chat:flush()
    vim.cmd("redraw")
  end
  local title = tostring(req.call.title or req.call.tool_kind or "a tool call")
  local own = float.own_words(items)
  local ok, err = pcall(vim.ui.select, items, {
    prompt = one_line(M.prompt(req.call, title, req.options)),
    kind = "dsh.permission",
    format_item = function(item)
      if item == REVIEW then
        return "Review the change first"
      end
      local label = LABEL[item.kind] and (LABEL[item.kind] .. (type(item.name) == "string"
        and item.name ~= LABEL[item.kind] and (" (" .. item.name .. ")") or "")) or tostring(item.name)
      if own and type(item.name) == "string" and item.name ~= "" then
        label = item.name
      end
      local r = float.remembers(item)
      return one_line(r and (label .. " — " .. r) or label)
    end,
  }, function(choice)
    asking = nil
    if choice == REVIEW then
      require("dsh.ui.diffview").open(req.call, req.session.cwd, req.session)
      vim.schedule(M.ask)
      return
    end
    if choice and pending(req) then
      table.remove(queue, 1)
      req.respond(choice.optionId)
    end
    if choice then
      vim.schedule(M.ask)
    end
  end)
  if not ok then
    -- never leave the queue stuck on a request nobody sees
    asking = nil
    vim.notify("dsh: could not ask for approval: " .. tostring(err), vim.log.levels.ERROR)
  end
end

-- M.reset forgets every request and closes the float (the agent is gone).
function M.reset()
  queue = {}
  asking = nil
  float.close()
end

-- M.decide is the agent's decider: queue the request and ask.
function M.decide(_, req)
  queue[#queue + 1] = req
  M.ask()
end

-- M.open returns the open requests, oldest first.
function M.open()
  local list = {}
  for _, r in ipairs(queue) do
    if pending(r) then
      list[#list + 1] = r
    end
  end
  return list
end

return M
