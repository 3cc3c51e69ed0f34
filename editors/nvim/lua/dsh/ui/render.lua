-- dsh.ui.render: non-card blocks (messages, thoughts, the plan, notices)
-- as lines with highlights, in the shape of dsh.ui.cards' output. Pure.
local M = {}

local function split(text)
  local lines = vim.split(text or "", "\n", { plain = true })
  return lines
end

-- str is v as one line of text: strings and numbers as they are (NUL and
-- newlines as spaces), anything else (a table, null) as "".
local function str(v)
  if type(v) ~= "string" and type(v) ~= "number" then
    return ""
  end
  return (tostring(v):gsub("[%z\r\n]", " "))
end
M.str = str

local function out()
  return { lines = {}, hls = {}, line_hls = {}, targets = {}, target_paths = {} }
end

-- prefix of a text block's body lines, by kind.
M.PREFIX = { user = "", agent = "", thought = "  " }

-- M.text draws a user, agent or thought block: a header for user and
-- thought blocks, then the text.
function M.text(block)
  local o = out()
  local prefix = M.PREFIX[block.kind] or ""
  if block.kind == "user" then
    o.lines[1] = "## You"
    o.hls[1] = { 0, 0, -1, "DshUser" }
  elseif block.kind == "thought" then
    o.lines[1] = "▸ Thinking"
    o.hls[1] = { 0, 0, -1, "DshThought" }
  end
  o.header = #o.lines
  for _, l in ipairs(split(block.text)) do
    o.lines[#o.lines + 1] = prefix .. l
    if block.kind == "thought" then
      o.hls[#o.hls + 1] = { #o.lines - 1, 0, -1, "DshThought" }
    end
  end
  return o
end

local MARK = { completed = "[x]", in_progress = "[~]", pending = "[ ]" }

-- M.plan draws a plan block: a header with the progress, then one line
-- per entry, its state as a checkbox (high priority marked "!"). A
-- removed plan draws nothing.
function M.plan(block)
  local o = out()
  if block.removed then
    return o
  end
  local entries, done = {}, 0
  for _, e in ipairs(block.entries or {}) do
    if type(e) == "table" then
      entries[#entries + 1] = e
      if e.status == "completed" then
        done = done + 1
      end
    end
  end
  if block.type ~= nil and block.type ~= "items" and block.type ~= vim.NIL then
    o.lines[1] = "Plan (" .. str(block.type) .. ", not shown here)"
    o.hls[1] = { 0, 0, -1, "DshCardTitle" }
    return o
  end
  o.lines[1] = ("Plan  %d/%d done"):format(done, #entries)
  o.hls[1] = { 0, 0, 4, "DshCardTitle" }
  o.hls[2] = { 0, 4, -1, "DshCardMeta" }
  for _, e in ipairs(entries) do
    local mark = MARK[e.status] or "[ ]"
    local line = "- " .. mark .. " " .. (e.priority == "high" and "! " or "")
      .. str(e.content)
    o.lines[#o.lines + 1] = line
    local row = #o.lines - 1
    if e.status == "completed" then
      o.hls[#o.hls + 1] = { row, 0, -1, "DshPlanDone" }
    elseif e.status == "in_progress" then
      o.hls[#o.hls + 1] = { row, 0, -1, "DshPlanActive" }
    else
      o.hls[#o.hls + 1] = { row, 2, 5, "DshCardMeta" }
    end
  end
  return o
end

-- M.WELCOME is what an empty chat shows below its notices: what the
-- agent does, and prompts to try.
M.WELCOME = {
  "dsh-bridge reads, searches, edits and runs commands in this folder; each",
  "edit and command asks first. Try:",
  "  • Explain what this project does and how it is laid out",
  "  • Find where errors are handled and suggest one improvement",
  "  • Run the tests and fix the first failure",
  "Type / for the agent's commands (/review, /compact, …).",
}

-- M.notice draws a notice: an error whole, any other notice with details
-- as its title alone until expanded.
function M.notice(block, expanded)
  local o = out()
  if block.detail and block.severity ~= "error" and not expanded then
    o.lines[1] = "! " .. str(block.title) .. "  ▸ <Tab> for details"
    o.hls[1] = { 0, 0, -1, "DshNotice" }
    return o
  end
  for i, l in ipairs(split(block.text)) do
    o.lines[i] = (i == 1 and "! " or "  ") .. l
    o.hls[i] = { i - 1, 0, -1, block.severity == "error" and "DshFailed" or "DshNotice" }
  end
  return o
end

return M
