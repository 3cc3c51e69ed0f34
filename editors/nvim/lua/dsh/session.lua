-- dsh.session: one ACP session's state, built from its session/update
-- notifications: the transcript as blocks (messages, thoughts, tool calls,
-- the plan, notices), modes, config options, usage. No UI: a view
-- subscribes with `on_change` and redraws what changed.
--
-- Unknown update kinds and malformed updates are ignored (never an error).
local M = {}

local Session = {}
Session.__index = Session

function M.new(id, opts)
  opts = opts or {}
  return setmetatable({
    id = id,
    cwd = opts.cwd,
    blocks = {}, -- in transcript order
    calls = {}, -- toolCallId -> block
    modes = opts.modes,
    config_options = opts.configOptions and M.objects(opts.configOptions),
    usage = nil,
    title = nil,
    commands = {},
    subscribers = {},
    running = false,
  }, Session)
end

-- on_change(fn): fn(block) when a block is added or changes, fn(nil) when
-- the session's header (mode, options, usage, title, running) changes,
-- fn(nil, "cut") when blocks were dropped (Session:cut).
function Session:on_change(fn)
  self.subscribers[#self.subscribers + 1] = fn
end

function Session:changed(block, what)
  for _, fn in ipairs(self.subscribers) do
    fn(block, what)
  end
end

-- cut drops the blocks from index on (a rewind cut the conversation
-- before them), with their calls and plans.
function Session:cut(index)
  if type(index) ~= "number" or index < 1 or index > #self.blocks then
    return
  end
  for i = #self.blocks, index, -1 do
    local b = self.blocks[i]
    self.blocks[i] = nil
    if b.kind == "tool" and self.calls[b.id] == b then
      self.calls[b.id] = nil
    elseif b.kind == "plan" and self.plans and self.plans[b.id] == b then
      self.plans[b.id] = nil
    end
  end
  self:changed(nil, "cut")
end

function Session:add(block)
  self.blocks[#self.blocks + 1] = block
  block.index = #self.blocks
  self:changed(block)
  return block
end

local CHUNK_KIND = {
  user_message_chunk = "user",
  agent_message_chunk = "agent",
  agent_thought_chunk = "thought",
}

-- content_text renders one ContentBlock as text.
function M.content_text(c)
  if type(c) ~= "table" then
    return ""
  end
  if c.type == "text" then
    return type(c.text) == "string" and c.text or ""
  elseif c.type == "resource_link" then
    local label = type(c.title) == "string" and c.title or type(c.name) == "string" and c.name
      or type(c.uri) == "string" and c.uri or "resource"
    if type(c.uri) ~= "string" then
      return "[" .. label .. "]"
    end
    return ("[%s](%s)"):format(label, c.uri)
  elseif c.type == "resource" and type(c.resource) == "table" then
    return ("[%s]"):format(tostring(c.resource.uri))
  elseif c.type == "image" then
    return "[image]"
  elseif c.type == "audio" then
    return "[audio]"
  end
  return ""
end

function Session:chunk(kind, update)
  local text = M.content_text(update.content)
  if text == "" then
    return
  end
  local last = self.blocks[#self.blocks]
  local mid = update.messageId
  if last and last.kind == kind and (mid == nil or last.message_id == mid) then
    last.text = last.text .. text
    last.appended = (last.appended or "") .. text
    self:changed(last)
    return
  end
  self:add({ kind = kind, text = text, message_id = mid })
end

local function dsh_meta(u)
  local meta = u._meta
  if type(meta) == "table" and type(meta.dsh) == "table" then
    return meta.dsh
  end
  return nil
end

local function whole(n)
  return type(n) == "number" and n >= 0 and n == math.floor(n)
end

-- unpack_line turns one line of `_meta.dsh.packedTokens` (docs/meta-dsh.md)
-- into the spans of `tokens`: triples of (gap from the previous span's
-- end, length, index into types, 0-based), stopping at the first triple
-- that does not fit. A line that is not a list (null: past the bridge's
-- budget) has no spans (false). Tokens are decoration: nothing throws.
local function unpack_line(l, types)
  if type(l) ~= "table" then
    return false
  end
  local spans, last = {}, 0
  for j = 1, #l - 2, 3 do
    local gap, n, t = l[j], l[j + 1], l[j + 2]
    local name = whole(t) and types[t + 1]
    if not (whole(gap) and whole(n) and type(name) == "string") then
      break
    end
    local start = last + gap
    last = start + n
    spans[#spans + 1] = { start = start, ["end"] = last, type = name }
  end
  return spans
end

-- unpack_tokens turns `_meta.dsh.packedTokens`, which the plugin asks for,
-- into the spans of `tokens`, a line at a time, when the card first asks
-- for it (by index): a card draws its first lines until it is expanded,
-- and a 2,000-line read has some 7,000 spans. Nil when the whole is not
-- of that shape.
function M.unpack_tokens(p)
  if not (type(p) == "table" and type(p.lines) == "table" and type(p.types) == "table") then
    return nil
  end
  return setmetatable({}, {
    __index = function(t, i)
      local l = p.lines[i]
      if l == nil then
        return nil
      end
      local spans = unpack_line(l, p.types)
      rawset(t, i, spans)
      return spans
    end,
  })
end

local function tokens_of(d)
  if d.packedTokens ~= nil then
    return M.unpack_tokens(d.packedTokens)
  end
  return d.tokens
end

local FIELDS = { "title", "kind", "status", "content", "locations", "rawInput", "rawOutput" }

function Session:tool_call(u, is_new)
  local id = u.toolCallId
  if type(id) ~= "string" and type(id) ~= "number" then
    return
  end
  local call = self.calls[id]
  if not call then
    call = { kind = "tool", id = id, status = "pending", dsh = {} }
    self.calls[id] = call
    is_new = true
  end
  for _, f in ipairs(FIELDS) do
    if u[f] ~= nil then
      call[f == "kind" and "tool_kind" or f] = u[f]
    end
  end
  local d = dsh_meta(u)
  if d then
    if d.card ~= nil then
      -- A new card replaces what the last one said.
      call.dsh.card, call.dsh.changes, call.dsh.terminal = d.card, d.changes, d.terminal
      call.dsh.diagnostics = d.diagnostics
      call.dsh.tokens = tokens_of(d)
    elseif d.tokens ~= nil or d.packedTokens ~= nil then
      call.dsh.tokens = tokens_of(d)
    end
    if d.parentToolCallId ~= nil then
      call.parent = d.parentToolCallId
    end
  end
  for _, c in ipairs(type(call.content) == "table" and call.content or {}) do
    if type(c) == "table" and c.type == "terminal" and c.terminalId then
      call.terminal_id = c.terminalId
    end
  end
  if is_new and not call.index then
    self:add(call)
  else
    self:changed(call)
  end
end

-- apply folds one session/update into the state.
function Session:apply(u)
  if type(u) ~= "table" or type(u.sessionUpdate) ~= "string" then
    return
  end
  local k = u.sessionUpdate
  if CHUNK_KIND[k] then
    return self:chunk(CHUNK_KIND[k], u)
  elseif k == "tool_call" then
    return self:tool_call(u, true)
  elseif k == "tool_call_update" then
    return self:tool_call(u, false)
  elseif k == "plan" then
    self:set_plan("", u.entries)
  elseif k == "plan_update" then
    local p = u.plan
    if type(p) == "table" and (type(p.planId) == "string" or type(p.planId) == "number") then
      self:set_plan(tostring(p.planId), p.entries, p.type)
    end
  elseif k == "plan_removed" then
    if type(u.planId) == "string" or type(u.planId) == "number" then
      self:set_plan(tostring(u.planId), nil)
    end
  elseif k == "current_mode_update" then
    if type(self.modes) == "table" then
      self.modes.currentModeId = u.currentModeId
    end
    self:changed(nil)
  elseif k == "config_option_update" then
    if type(u.configOptions) == "table" then
      self.config_options = M.objects(u.configOptions)
    end
    self:changed(nil)
  elseif k == "usage_update" then
    self.usage = { used = u.used, size = u.size, cost = u.cost }
    self:changed(nil)
  elseif k == "session_info_update" then
    -- partial: a field left out keeps its value; null clears it
    if type(u.title) == "string" then
      self.title = M.one_line(u.title)
    elseif u.title == vim.NIL then
      self.title = nil
    end
    if type(u.updatedAt) == "string" then
      self.updated_at = u.updatedAt
    end
    self:changed(nil)
  elseif k == "available_commands_update" then
    local list = {}
    for _, c in ipairs(type(u.availableCommands) == "table" and u.availableCommands or {}) do
      if type(c) == "table" and type(c.name) == "string" and c.name ~= "" then
        list[#list + 1] = c
      end
    end
    self.commands = list
  elseif k == "notice" then
    local detail = type(u.description) == "string" and u.description ~= "" and u.description or nil
    local title = type(u.title) == "string" and u.title or ""
    self:add({ kind = "notice", severity = u.severity, title = title, detail = detail,
      text = title .. (detail and (": " .. detail) or "") })
  elseif k == "compaction_update" then
    if u.status == "completed" or u.status == "failed" then
      self:add({ kind = "notice", severity = "info", text = "context compacted (" .. tostring(u.status) .. ")" })
    end
  end
end

-- set_plan shows plan id's entries (a PlanEntry list): the block of that
-- id is replaced whole, or added when the id is new; nil entries remove
-- it (the block stays, drawn empty). A plan of another type than items
-- keeps its type, drawn as such.
function Session:set_plan(id, entries, ptype)
  self.plans = self.plans or {}
  local b = self.plans[id]
  if entries == nil then
    if b then
      b.entries, b.removed = {}, true
      self:changed(b)
      self:changed(nil)
    end
    return
  end
  entries = type(entries) == "table" and entries or {}
  if b then
    b.entries, b.removed, b.type = entries, nil, ptype
    self:changed(b)
  else
    self.plans[id] = self:add({ kind = "plan", id = id, entries = entries, type = ptype })
  end
  self:changed(nil)
end

-- plan_progress returns (done, total) over the plans shown, or nil when
-- there is none.
function Session:plan_progress()
  local done, total = 0, 0
  for _, b in pairs(self.plans or {}) do
    for _, e in ipairs(b.entries) do
      if type(e) == "table" then
        total = total + 1
        if e.status == "completed" then
          done = done + 1
        end
      end
    end
  end
  if total == 0 then
    return nil
  end
  return done, total
end

-- config_option returns the option of a category (or id), or nil.
function Session:config_option(category)
  for _, o in ipairs(type(self.config_options) == "table" and self.config_options or {}) do
    if type(o) == "table" and (o.category == category or o.id == category) then
      return o
    end
  end
  return nil
end

-- settle marks the calls that did not finish as cancelled (after a
-- cancelled turn, as ACP asks of the client).
function Session:settle_cancelled()
  for _, call in pairs(self.calls) do
    if call.status == "pending" or call.status == "in_progress" then
      call.status = "cancelled"
      self:changed(call)
    end
  end
end

-- M.objects returns the entries of list that are tables (objects), in
-- order: a hostile list's numbers and strings are dropped.
function M.objects(list)
  local out = {}
  for _, v in ipairs(type(list) == "table" and list or {}) do
    if type(v) == "table" then
      out[#out + 1] = v
    end
  end
  return out
end

-- M.one_line is s for a statusline or a picker: NUL and line breaks as
-- spaces.
function M.one_line(s)
  return (tostring(s):gsub("[%z\r\n]+", " "))
end

M.Session = Session
return M
