-- dsh.ui.status: what the chat's statusline says. Pure.
local M = {}

-- M.text is the statusline of session s's chat: its title, mode, model,
-- the plan's progress, the tokens in context and the cost, and whether a
-- turn is running.
function M.text(s)
  local parts = { "dsh" }
  if type(s.title) == "string" and s.title ~= "" then
    parts[#parts + 1] = require("dsh.session").one_line(s.title)
  end
  if type(s.modes) == "table" and s.modes.currentModeId then
    parts[#parts + 1] = require("dsh.session").one_line(s.modes.currentModeId)
  end
  local model = s:config_option("model")
  if model and model.currentValue then
    parts[#parts + 1] = require("dsh.session").one_line(model.currentValue)
  end
  local u = s.usage
  if u and u.used then
    local t = ("%s/%s tokens"):format(tostring(u.used), tostring(u.size or "?"))
    if type(u.cost) == "table" and type(u.cost.amount) == "number" then
      t = t .. (" · $%.4f"):format(u.cost.amount)
    end
    parts[#parts + 1] = t
  end
  local done, total = s:plan_progress()
  if done then
    parts[#parts + 1] = ("plan %d/%d"):format(done, total)
  end
  if s.running then
    parts[#parts + 1] = "working…"
  end
  return table.concat(parts, " · ")
end

return M
