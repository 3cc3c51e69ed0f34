-- The plugin's benchmarks, run inside headless Neovim by bench_test.go
-- (go test ./editors/nvim -bench .), which passes its settings in the
-- environment and reads one JSON object from DSH_BENCH_OUT:
--   ready:  :DshChat to a ready session (spawn, initialize, session/new,
--           windows), against the protocol layer alone (no UI) as the peer;
--   diff:   drawing a diff card of a 5,000-line file (real Go source,
--           every fifth line changed: one hunk of 6,000 lines) from _meta.dsh, against vim.diff's unified text
--           put into a buffer as the peer;
--   chunks: agent_message_chunk lines written by a process as fast as a
--           pipe takes them, drawn with batched redraws, against a redraw
--           per chunk as the peer; frame times are per flush;
--   tokens: the tokens update of a 2,000-line read of Go (written by
--           bench_test.go as the bridge writes it) decoded, applied to the
--           session and the card drawn as it first shows (its first
--           lines), packed (packedTokens, what the plugin asks for) against
--           the span objects (tokens) as the peer, interleaved.
local root = vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":p:h:h")
vim.opt.rtp:prepend(root)
vim.cmd("runtime plugin/dsh.lua")

local uv = vim.loop
local bin = assert(os.getenv("DSH_BRIDGE_BIN"), "DSH_BRIDGE_BIN")
local which = os.getenv("DSH_BENCH") or "ready"
local n = tonumber(os.getenv("DSH_BENCH_N") or "10")
local source = os.getenv("DSH_BENCH_SOURCE")
local work = vim.fn.tempname()
vim.fn.mkdir(work, "p")
vim.cmd("cd " .. work)

local function ms(t0)
  return (uv.hrtime() - t0) / 1e6
end

local function wait(cond, what)
  assert(vim.wait(20000, cond, 1), "timed out: " .. what)
end

local results = {}

local function bench_ready()
  local dsh = require("dsh")
  local ours, peer = {}, {}
  for _ = 1, n do
    -- interleaved: the plugin, then the protocol layer alone
    dsh.reset()
    dsh.setup({ cmd = { bin, "--model", "script:" .. root .. "/testdata/scripts/answer.jsonl" },
      env = { DSH_STATE_DIR = work .. "/state" }, resume_last = false }) -- a new session, as the peer's
    local t0, chat = uv.hrtime(), nil
    dsh.chat(function(c)
      chat = c
    end)
    wait(function()
      return chat ~= nil
    end, "the chat")
    ours[#ours + 1] = ms(t0)
    dsh.reset()
    local t1 = uv.hrtime()
    -- the same scripted model as ours: without a model or a key, session/new
    -- asks for authentication and never gives a session
    local script = "script:" .. root .. "/testdata/scripts/answer.jsonl"
    local a = require("dsh.agent").start({ cmd = { bin, "--model", script },
      env = { DSH_STATE_DIR = work .. "/state" } })
    local s
    a:initialize(function()
      a:new_session(work, function(sess)
        s = sess
      end)
    end)
    wait(function()
      return s ~= nil
    end, "the session")
    peer[#peer + 1] = ms(t1)
    a:stop()
    wait(function()
      return not a:alive()
    end, "the exit")
  end
  results.ours, results.peer = ours, peer
end

local function read_lines(path, count)
  local lines = {}
  for l in io.lines(path) do
    lines[#lines + 1] = l
    if #lines == count then
      break
    end
  end
  return lines
end

local function bench_diff()
  local old = read_lines(source, 5000)
  local new = {}
  for i, l in ipairs(old) do
    new[i] = (i % 5 == 0) and (l .. " // changed") or l
  end
  local oldText, newText = table.concat(old, "\n") .. "\n", table.concat(new, "\n") .. "\n"
  local cards = require("dsh.ui.cards")
  local hunks = cards.hunks(oldText, newText)
  for _, hk in ipairs(hunks) do
    for _, l in ipairs(hk.lines) do
      l.text = l.text .. "\n"
    end
  end
  local session = require("dsh.session")
  local chat_mod = require("dsh.ui.chat")
  local ours, peer = {}, {}
  local lines_drawn
  for _ = 1, n do
    local s = session.new("bench")
    local chat = chat_mod.new(s, require("dsh").config)
    chat.schedule = function() end -- flushed by hand, timed
    s:apply({ sessionUpdate = "tool_call", toolCallId = "e1", title = "Edit server.go", kind = "edit",
      status = "completed", _meta = { dsh = { version = 1,
        card = { card = "diff", title = "Edit server.go", diffs = { { path = "/w/server.go", oldText = oldText,
          newText = newText } } },
        changes = { { path = "/w/server.go", hunks = hunks, truncated = false } } } } })
    local t0 = uv.hrtime()
    chat:flush()
    ours[#ours + 1] = ms(t0)
    lines_drawn = vim.api.nvim_buf_line_count(chat.buf)
    chat:destroy()
    -- the peer: vim.diff's unified text in a diff buffer
    local t1 = uv.hrtime()
    local text = vim.diff(oldText, newText, { ctxlen = 3 })
    local b = vim.api.nvim_create_buf(false, true)
    vim.api.nvim_buf_set_lines(b, 0, -1, false, vim.split(text, "\n", { plain = true }))
    vim.bo[b].filetype = "diff"
    peer[#peer + 1] = ms(t1)
    vim.api.nvim_buf_delete(b, { force = true })
  end
  results.ours, results.peer, results.lines = ours, peer, lines_drawn
end

local function bench_chunks(per_chunk)
  local count = 10000
  local path = work .. "/chunks.jsonl"
  local f = assert(io.open(path, "wb"))
  for i = 1, count do
    f:write(vim.json.encode({ jsonrpc = "2.0", method = "session/update", params = { sessionId = "s",
      update = { sessionUpdate = "agent_message_chunk", content = { type = "text",
        text = ("word%d "):format(i) .. ((i % 12 == 0) and "\n" or "") } } } }), "\n")
  end
  f:close()
  local acp = require("dsh.acp")
  local s = require("dsh.session").new("s")
  local chat = require("dsh.ui.chat").new(s, require("dsh").config)
  chat:open()
  local frames = {}
  chat.on_flush = function(c)
    frames[#frames + 1] = c.last_flush_ms
  end
  if per_chunk then
    s:on_change(function()
      chat:flush()
    end)
  end
  local got = 0
  local t0 = uv.hrtime()
  local conn = acp.spawn({ cmd = { "sh", "-c", "cat " .. path .. "; sleep 30" } })
  conn:on("session/update", function(p)
    s:apply(p.update)
    got = got + 1
  end)
  wait(function()
    return got == count and not chat.flush_pending
  end, "the chunks")
  chat:flush()
  local elapsed = ms(t0)
  conn.proc:kill("sigkill")
  local text = table.concat(vim.api.nvim_buf_get_lines(chat.buf, 0, -1, false), "\n")
  assert(text:find("word" .. count, 1, true), "the last chunk is drawn")
  chat:destroy()
  return { elapsed_ms = elapsed, frames = frames, chunks = count }
end

local function bench_tokens()
  local session = require("dsh.session")
  local lines = {}
  for _, key in ipairs({ "PACKED", "OBJECTS" }) do
    local f = assert(io.open(assert(os.getenv("DSH_BENCH_TOKENS_" .. key)), "rb"))
    lines[key] = f:read("*a")
    f:close()
  end
  local cards = require("dsh.ui.cards")
  local card = { card = "read", path = "/w/server.go", offset = 1, totalLines = 2000, lines = {} }
  for i, l in ipairs(read_lines(os.getenv("DSH_BENCH_TOKENS_SOURCE"), 2000)) do
    card.lines[i] = { number = i, text = l }
  end
  local function one(line)
    local s = session.new("s")
    s:apply({ sessionUpdate = "tool_call", toolCallId = "r", title = "Read", kind = "read", status = "pending" })
    s:apply({ sessionUpdate = "tool_call_update", toolCallId = "r", status = "completed",
      _meta = { dsh = { version = 1, card = card } } })
    collectgarbage()
    local t0 = uv.hrtime()
    s:apply(vim.json.decode(line).params.update)
    local drawn = cards.render(s.calls.r)
    local took = ms(t0)
    local spans = 0
    for i = 1, 2000 do
      local l = s.calls.r.dsh.tokens[i]
      spans = spans + (type(l) == "table" and #l or 0)
    end
    return took, spans, #drawn.hls
  end
  local ours, peer = {}, {}
  for i = 1, n do
    local a, sa, ha = one(lines.PACKED)
    local b, sb, hb = one(lines.OBJECTS)
    assert(sa == sb and sa > 0 and ha == hb, ("packed %d spans %d highlights, objects %d, %d"):format(sa, ha, sb, hb))
    ours[i], peer[i], results.spans = a, b, sa
  end
  results.ours, results.peer, results.bytes, results.peer_bytes = ours, peer, #lines.PACKED, #lines.OBJECTS
end

local function bench()
  if which == "ready" then
    bench_ready()
  elseif which == "tokens" then
    bench_tokens()
  elseif which == "diff" then
    bench_diff()
  elseif which == "chunks" then
    local ours, peer = {}, {}
    for i = 1, n do
      ours[i] = bench_chunks(false)
      peer[i] = bench_chunks(true)
    end
    results.ours, results.peer = ours, peer
  end
end
-- A failure ends Neovim with an exit code: headless, an error left to
-- Neovim waits for a key that never comes.
local ok, err = pcall(bench)
if not ok then
  io.stderr:write(tostring(err) .. "\n")
  vim.cmd("cq")
end
require("dsh").reset()
local out = assert(io.open(assert(os.getenv("DSH_BENCH_OUT")), "wb"))
out:write(vim.json.encode(results))
out:close()
vim.cmd("qa!")
