-- dsh.ui.approve: permission requests answered through vim.ui.select (so
-- telescope, fzf-lua or dressing users get their own picker), one at a
-- time, with the agent's options ordered by kind. A request can show its
-- proposed change side by side first (dsh.ui.diffview). Dismissing the
-- picker leaves the request open: :DshApprove asks again.
local cards = require("dsh.ui.cards")

local M = {}

local queue = {}
local asking = nil

local ORDER = { allow_once = 1, allow_always = 2, reject_once = 3, reject_always = 4 }
local LABEL = { allow_once = "Allow once", allow_always = "Always allow", reject_once = "Reject",
  reject_always = "Always reject" }
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
-- as a command.
function M.prompt(call, title)
  local card = call.dsh and call.dsh.card
  local kind = type(card) == "table" and card.card or nil
  if kind == "diff" or (kind == nil and #cards.diffs(call) > 0) then
    return "dsh-bridge asks to change a file: " .. title
  elseif kind == "terminal" or call.tool_kind == "execute" then
    return "dsh-bridge asks to run: " .. title
  end
  return "dsh-bridge asks to use a tool: " .. title
end

-- M.ask shows the picker of the first open request (if none is shown).
function M.ask()
  if asking then
    return
  end
  local req = next_request()
  if not req then
    return
  end
  asking = req
  local items = {}
  for _, o in ipairs(req.options) do
    items[#items + 1] = o
  end
  table.sort(items, function(a, b)
    return (ORDER[a.kind] or 9) < (ORDER[b.kind] or 9)
  end)
  if #cards.diffs(req.call) > 0 then
    items[#items + 1] = REVIEW
  end
  -- The card being decided is drawn before the picker opens (a picker
  -- such as inputlist() blocks the redraws).
  local chat = package.loaded["dsh"] and require("dsh").state.chats[req.session.id]
  if chat then
    chat:flush()
    vim.cmd("redraw")
  end
  local title = tostring(req.call.title or req.call.tool_kind or "a tool call")
  vim.ui.select(items, {
    prompt = M.prompt(req.call, title),
    kind = "dsh.permission",
    format_item = function(item)
      if item == REVIEW then
        return "Review the change first"
      end
      return LABEL[item.kind] and (LABEL[item.kind] .. (item.name and item.name ~= LABEL[item.kind]
        and (" (" .. item.name .. ")") or "")) or tostring(item.name)
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
