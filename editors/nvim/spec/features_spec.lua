-- The plan block, slash-command completion, session titles, the :Dsh
-- command, the floating approval, Markdown in answers and the last chat
-- coming back: against the real dsh-bridge where it sends the updates,
-- and on session updates where the bridge does not send them yet.
local h = require("helpers")

local function find(list, pat)
  for i, l in ipairs(list) do
    if l:find(pat, 1, true) then
      return i
    end
  end
  return nil
end

local function count(list, pat)
  local n = 0
  for _, l in ipairs(list) do
    if l:find(pat, 1, true) then
      n = n + 1
    end
  end
  return n
end

local function keys(k)
  vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes(k, true, false, true), "x", false)
end

describe("the plan block", function()
  after_each(function()
    require("dsh").reset()
    vim.cmd("silent! %bwipeout!")
  end)

  it("is drawn from todo_write, replaced in place, and removed", function()
    h.workspace({})
    local chat = h.start("plan.jsonl")
    assert.are.equal("end_turn", h.turn(chat, "make a plan"))
    local lines = h.lines(chat)
    local text = table.concat(lines, "\n")
    -- the plugin opted in (clientCapabilities.plan): one block per planId
    assert.are.equal(1, count(lines, "Plan  "), text)
    assert.truthy(find(lines, "Plan  1/2 done"), text)
    assert.truthy(find(lines, "- [x] ! Read the code"), text)
    assert.truthy(find(lines, "- [~] Run the tests"), text)
    assert.truthy(chat:status_text():find("plan 1/2", 1, true), chat:status_text())
    assert.are.equal("end_turn", h.turn(chat, "finish it"))
    lines = h.lines(chat)
    assert.falsy(find(lines, "Plan  "), table.concat(lines, "\n"))
    assert.falsy(find(lines, "Run the tests"), table.concat(lines, "\n"))
    assert.truthy(find(lines, "Plan done."))
  end)

  it("takes plan, plan_update and plan_removed updates", function()
    local s = require("dsh.session").new("s1")
    s:apply({ sessionUpdate = "plan", entries = { { content = "one", status = "pending" } } })
    s:apply({ sessionUpdate = "plan_update", plan = { type = "items", planId = "p", entries = {
      { content = "a", status = "completed" }, { content = "b", status = "pending", priority = "high" } } } })
    s:apply({ sessionUpdate = "plan_update", plan = { type = "items", planId = "p", entries = {
      { content = "a", status = "completed" }, { content = "b", status = "completed" } } } })
    local plans = {}
    for _, b in ipairs(s.blocks) do
      if b.kind == "plan" then
        plans[#plans + 1] = require("dsh.ui.render").plan(b).lines
      end
    end
    assert.are.same({ { "Plan  0/1 done", "- [ ] one" }, { "Plan  2/2 done", "- [x] a", "- [x] b" } }, plans)
    assert.are.same({ 2, 3 }, { s:plan_progress() })
    s:apply({ sessionUpdate = "plan_removed", planId = "p" })
    s:apply({ sessionUpdate = "plan_removed", planId = "unknown" })
    s:apply({ sessionUpdate = "plan_update", plan = "garbage" })
    assert.are.same({}, require("dsh.ui.render").plan(s.blocks[2]).lines)
    assert.are.same({ 0, 1 }, { s:plan_progress() })
  end)
end)

describe("slash commands in the prompt", function()
  after_each(function()
    require("dsh").reset()
    vim.cmd("silent! %bwipeout!")
  end)

  it("complete from available_commands_update with <C-x><C-o>, with the hint", function()
    h.workspace({})
    local chat = h.start("answer.jsonl", { complete_auto = false })
    h.wait(function()
      return #chat.session.commands > 0
    end, 10000, "available_commands_update")
    vim.api.nvim_set_current_win(chat.input_win)
    keys("i/comp<C-x><C-o><C-y><Esc>")
    assert.are.same({ "/compact" }, vim.api.nvim_buf_get_lines(chat.input, 0, -1, false))
    vim.api.nvim_buf_set_lines(chat.input, 0, -1, false, {})
    keys("i/rev<C-x><C-o><C-y><Esc>")
    -- a command that takes text completes with a space, then its hint
    assert.are.same({ "/review " }, vim.api.nvim_buf_get_lines(chat.input, 0, -1, false))
    local complete = require("dsh.ui.complete")
    assert.are.equal("what to focus on (optional)", complete.show_hint(chat.input))
    local ns = vim.api.nvim_get_namespaces().dsh_prompt_hint
    local marks = vim.api.nvim_buf_get_extmarks(chat.input, ns, 0, -1, { details = true })
    local hint
    for _, m in ipairs(marks) do
      if m[4].virt_text then
        hint = m[4].virt_text[1][1]
      end
    end
    assert.are.equal("<what to focus on (optional)>", hint)
    vim.api.nvim_buf_set_lines(chat.input, 0, -1, false, { "/review the tests" })
    assert.is_nil(complete.show_hint(chat.input))
  end)

  it("lists matches by name, only at the start of the prompt", function()
    local complete = require("dsh.ui.complete")
    local cmds = { { name = "review", description = "Review", input = { hint = "focus" } },
      { name = "compact", description = "Compact now" }, { name = "cost", description = "Cost" }, { bogus = 1 } }
    local words = {}
    for _, it in ipairs(complete.items(cmds, "co")) do
      words[#words + 1] = it.word .. "|" .. it.abbr .. "|" .. it.menu
    end
    assert.are.same({ "/compact|/compact|Compact now", "/cost|/cost|Cost" }, words)
    local review = complete.items(cmds, "")[3]
    assert.are.same({ "/review ", "/review <focus>" }, { review.word, review.abbr })
    assert.is_nil(review.info) -- no preview window over the chat
    assert.are.equal(0, complete.slash_start("/co"))
    assert.are.equal(2, complete.slash_start("  /"))
    assert.is_nil(complete.slash_start("see /co"))
    assert.is_nil(complete.slash_start("/review x"))
  end)

  it("opens the menu as / starts the prompt", function()
    h.workspace({})
    local chat = h.start("answer.jsonl")
    h.wait(function()
      return #chat.session.commands > 0
    end, 10000, "available_commands_update")
    vim.api.nvim_set_current_win(chat.input_win)
    local seen
    -- TextChangedI comes once the typed keys are done: a timer looks at
    -- the menu, then leaves Insert mode
    vim.defer_fn(function()
      seen = vim.fn.complete_info({ "pum_visible", "items" })
      vim.api.nvim_input("<C-e><Esc>")
    end, 50)
    vim.api.nvim_feedkeys("i/cle", "x!", false)
    -- (a headless Neovim draws no menu: the completion's items are there)
    assert.truthy(seen and #seen.items == 1, vim.inspect(seen))
    assert.are.equal("/clear", seen.items[1].word)
  end)
end)

describe("session titles", function()
  after_each(function()
    h.restore_select()
    require("dsh").reset()
    vim.cmd("silent! %bwipeout!")
  end)

  it("show in the statusline from session_info_update, and clear on null", function()
    h.workspace({})
    local chat = h.start("answer.jsonl")
    local s = chat.session
    s:apply({ sessionUpdate = "session_info_update", title = "Fix the greeting" })
    chat:flush()
    assert.truthy(vim.wo[chat.win].statusline:find("dsh · Fix the greeting", 1, true), vim.wo[chat.win].statusline)
    s:apply({ sessionUpdate = "session_info_update", updatedAt = "2026-12-07T10:00:00Z" })
    assert.are.equal("Fix the greeting", s.title) -- partial: the title stays
    s:apply({ sessionUpdate = "session_info_update", title = vim.NIL })
    chat:flush()
    assert.falsy(vim.wo[chat.win].statusline:find("Fix the greeting", 1, true))
  end)

  it("show in the session picker with local relative times, and on the loaded chat", function()
    h.workspace({})
    local chat = h.start("answer.jsonl")
    assert.are.equal("end_turn", h.turn(chat, "what is the greeting about"))
    require("dsh").reset() -- a new agent, the same state folder: a replay
    local picked = h.select_with(function(items)
      return items[1]
    end)
    local loaded
    require("dsh.commands").sessions(function(c)
      loaded = c
    end)
    h.wait(function()
      return loaded ~= nil
    end, 10000, "the loaded session")
    local label = picked[1].opts.format_item(picked[1].items[1])
    assert.truthy(label:find("what is the greeting about", 1, true), label)
    assert.truthy(label:find("^just now") or label:find("^%d+ min ago"), label)
    assert.truthy(loaded:status_text():find("what is the greeting about", 1, true), loaded:status_text())
  end)

  it("format times relative while recent, local after", function()
    local t = require("dsh.timefmt")
    assert.are.equal(0, t.epoch("1970-01-01T00:00:00Z"))
    assert.are.equal(3600, t.epoch("1970-01-01T02:00:00+01:00"))
    assert.are.equal(1796659651, t.epoch("2026-12-07T16:07:31.123Z"))
    assert.is_nil(t.epoch("yesterday"))
    local now = t.epoch("2026-12-07T16:00:00Z")
    assert.are.equal("just now", t.relative(now - 5, now))
    assert.are.equal("12 min ago", t.relative(now - 12 * 60, now))
    assert.are.equal(os.date("%Y-%m-%d", now - 30 * 86400), t.relative(now - 30 * 86400, now))
    assert.truthy(t.relative(now - 86400, now):find("^yesterday %d%d:%d%d$") or
      t.relative(now - 86400, now):find("^%a%a%a %d%d:%d%d$"))
    assert.are.equal("not a time", t.ago("not a time"))
  end)
end)

describe(":Dsh", function()
  after_each(function()
    require("dsh").reset()
    vim.cmd("silent! %bwipeout!")
  end)

  it("completes its subcommands, and each has a <Plug> mapping", function()
    local names = vim.fn.getcompletion("Dsh ", "cmdline")
    for _, n in ipairs({ "chat", "new", "send", "cancel", "diff", "approve", "quickfix", "sessions", "resume",
      "mode", "model", "config", "add", "log", "login", "stop" }) do
      assert.truthy(vim.tbl_contains(names, n), n .. " not completed: " .. table.concat(names, " "))
      assert.truthy(vim.fn.maparg("<Plug>(dsh-" .. n .. ")", "n") ~= "", "<Plug>(dsh-" .. n .. ")")
    end
    assert.are.same({ "send", "sessions", "stop" }, vim.fn.getcompletion("Dsh s", "cmdline"))
    assert.truthy(vim.fn.maparg("<Plug>(dsh-add)", "x") ~= "")
  end)

  it("runs the subcommand it names, and says when there is none", function()
    h.workspace({})
    local chat = h.start("answer.jsonl")
    vim.cmd("Dsh log")
    assert.are.equal("nofile", vim.bo.buftype)
    vim.cmd("close")
    vim.api.nvim_set_current_win(chat.win)
    local errs, restore = h.errors()
    vim.cmd("Dsh bogus")
    restore()
    assert.truthy(errs[1] and errs[1]:find("no subcommand bogus", 1, true), vim.inspect(errs))
    -- a range reaches :Dsh add
    vim.cmd("wincmd p")
    local buf = vim.api.nvim_get_current_buf()
    vim.api.nvim_buf_set_name(buf, h.dir .. "/a.txt")
    vim.api.nvim_buf_set_lines(buf, 0, -1, false, { "one", "two", "three" })
    vim.cmd("2,3Dsh add")
    assert.are.equal(1, #chat.attachments)
    assert.are.equal("two\nthree\n", chat.attachments[1].block.resource.text)
    -- and through <Plug>(dsh-add) from Visual mode
    vim.keymap.set("x", "<F5>", "<Plug>(dsh-add)", { remap = true })
    vim.api.nvim_win_set_cursor(0, { 1, 0 })
    keys("Vj<F5>")
    vim.keymap.del("x", "<F5>")
    assert.are.equal(2, #chat.attachments)
    assert.are.equal("one\ntwo\n", chat.attachments[2].block.resource.text)
    vim.cmd("Dsh stop")
    assert.is_nil(require("dsh").state.agent)
  end)
end)

describe("the floating approval", function()
  local float = require("dsh.ui.approvefloat")
  after_each(function()
    float.close()
    require("dsh").reset()
    vim.cmd("silent! %bwipeout!")
  end)

  local function pending_float()
    h.wait(function()
      return float.current() ~= nil
    end, 10000, "the approval window")
    local win = vim.api.nvim_get_current_win()
    assert.are.equal("editor", vim.api.nvim_win_get_config(win).relative)
    return win, vim.api.nvim_buf_get_lines(vim.api.nvim_win_get_buf(win), 0, -1, false)
  end

  local function send(chat, text)
    local done
    require("dsh").on_turn_end = function(stop)
      done = stop
    end
    vim.api.nvim_buf_set_lines(chat.input, 0, -1, false, { text })
    vim.api.nvim_set_current_win(chat.input_win)
    keys("<CR>")
    return function()
      h.wait(function()
        return done ~= nil
      end, 20000, "the end of the turn")
      return done
    end
  end

  it("shows the diff, does not block, and `a` allows", function()
    local dir = h.workspace({ ["hello.txt"] = "hello world\n" })
    local chat = h.start("edit.jsonl", { approval = "float" })
    local ended = send(chat, "greet ACP")
    local _, lines = pending_float()
    local text = table.concat(lines, "\n")
    assert.truthy(find(lines, "dsh-bridge asks to change a file: Edit hello.txt"), text)
    assert.truthy(find(lines, "-hello world") and find(lines, "+hello ACP"), text)
    assert.truthy(find(lines, "a allow · A always · r reject · R always reject · d diff · q later"), text)
    -- the editor is not blocked: leave the float, work, come back
    vim.cmd("wincmd p")
    assert.are_not.equal("editor", vim.api.nvim_win_get_config(0).relative)
    require("dsh.commands").approve()
    assert.are.equal(float.current() and "editor", vim.api.nvim_win_get_config(0).relative)
    keys("a")
    assert.are.equal("end_turn", ended())
    assert.are.equal("hello ACP\n", h.read(dir .. "/hello.txt"))
    assert.is_nil(float.current())
  end)

  it("`r` rejects; `q` puts it off and :DshApprove brings it back", function()
    local dir = h.workspace({ ["hello.txt"] = "hello world\n" })
    local chat = h.start("reject.jsonl", { approval = "float" })
    local ended = send(chat, "try an edit")
    pending_float()
    keys("q")
    assert.is_nil(float.current())
    require("dsh.commands").approve()
    pending_float()
    keys("r")
    assert.are.equal("end_turn", ended())
    assert.are.equal("hello world\n", h.read(dir .. "/hello.txt"))
    assert.truthy(h.text(chat):find("Understood, I left it alone.", 1, true))
  end)

  it("shows a command whole with its description", function()
    h.workspace({})
    local chat = h.start("command.jsonl", { approval = "float" })
    local ended = send(chat, "print two lines")
    local _, lines = pending_float()
    local text = table.concat(lines, "\n")
    assert.truthy(find(lines, "$ printf 'first\\nsecond\\n'; echo ünïcode >&2"), text)
    assert.truthy(find(lines, "Print two lines"), text)
    assert.truthy(find(lines, "Not yet allowed:"), text) -- what "always" would remember
    assert.falsy(find(lines, "```"), text) -- the command is not shown twice
    assert.falsy(find(lines, "d diff"), text)
    keys("a")
    assert.are.equal("end_turn", ended())
  end)

  it("`d` opens the diff; the same keys answer there and the diff tab closes", function()
    local dir = h.workspace({ ["hello.txt"] = "hello world\n" })
    local chat = h.start("edit.jsonl", { approval = "float" })
    local ended = send(chat, "greet ACP")
    pending_float()
    local tabs = #vim.api.nvim_list_tabpages()
    keys("d")
    assert.are.equal(tabs + 1, #vim.api.nvim_list_tabpages())
    assert.truthy(vim.wo.diff)
    assert.truthy(float.current(), "the float came along")
    keys("a") -- from the diff's window
    assert.are.equal("end_turn", ended())
    assert.are.equal("hello ACP\n", h.read(dir .. "/hello.txt"))
    h.wait(function()
      return #vim.api.nvim_list_tabpages() == tabs
    end, 5000, "the diff tab to close")
  end)

  it("is not focused while the person works elsewhere", function()
    h.workspace({ ["hello.txt"] = "hello world\n" })
    local chat = h.start("edit.jsonl", { approval = "float" })
    local ended = send(chat, "greet ACP")
    vim.cmd("wincmd t") -- the file's window, before the request arrives
    local here = vim.api.nvim_get_current_win()
    h.wait(function()
      return float.current() ~= nil
    end, 10000, "the approval window")
    assert.are.equal(here, vim.api.nvim_get_current_win())
    keys("a") -- typed here: not an answer
    assert.truthy(float.current(), "a key typed elsewhere answered the request")
    require("dsh.commands").approve()
    assert.are.equal("editor", vim.api.nvim_win_get_config(0).relative)
    keys("r")
    assert.are.equal("end_turn", ended())
  end)

  it("asks one request after the other", function()
    local dir = h.workspace({ ["a.txt"] = "one\n", ["b.txt"] = "two\n" })
    local chat = h.start("two-edits.jsonl", { approval = "float" })
    local ended = send(chat, "edit both")
    local _, lines = pending_float()
    local first = table.concat(lines, "\n")
    keys("a")
    h.wait(function()
      local req = float.current()
      return req ~= nil and table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), "\n") ~= first
    end, 10000, "the second request")
    local second = table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), "\n")
    assert.truthy(first:find("+ONE", 1, true) or second:find("+ONE", 1, true))
    assert.truthy(first:find("+TWO", 1, true) or second:find("+TWO", 1, true))
    keys("r")
    assert.are.equal("end_turn", ended())
    local a, b = h.read(dir .. "/a.txt"), h.read(dir .. "/b.txt")
    -- whichever was asked first was allowed, the other rejected
    if first:find("+ONE", 1, true) then
      assert.are.same({ "ONE\n", "two\n" }, { a, b })
    else
      assert.are.same({ "one\n", "TWO\n" }, { a, b })
    end
    assert.is_nil(float.current())
  end)

  it("closes when the turn is cancelled", function()
    h.workspace({ ["hello.txt"] = "hello world\n" })
    local chat = h.start("edit.jsonl", { approval = "float" })
    local ended = send(chat, "greet ACP")
    pending_float()
    require("dsh").cancel()
    assert.are.equal("cancelled", ended())
    h.wait(function()
      return float.current() == nil
    end, 5000, "the float to close")
  end)
end)

describe("Markdown in answers", function()
  after_each(function()
    require("dsh").reset()
    vim.cmd("silent! %bwipeout!")
  end)

  -- concealed returns the concealed texts of a line and its highlighted
  -- spans by group.
  local function marks_of(chat, row)
    local line = vim.api.nvim_buf_get_lines(chat.buf, row, row + 1, false)[1]
    local hidden, groups = {}, {}
    local ns = vim.api.nvim_get_namespaces().dsh_chat
    for _, m in ipairs(vim.api.nvim_buf_get_extmarks(chat.buf, ns, { row, 0 }, { row + 1, 0 }, { details = true })) do
      local d = m[2] == row and m[4] or {}
      local piece = line:sub(m[3] + 1, d.end_col or m[3])
      -- Neovim 0.7 leaves `conceal` out of the details: in this
      -- namespace a mark with no group conceals (the screen test sees it)
      if d.end_col and not d.hl_group then
        hidden[#hidden + 1] = piece
      elseif d.hl_group then
        groups[d.hl_group] = groups[d.hl_group] or {}
        table.insert(groups[d.hl_group], piece)
      end
    end
    return hidden, groups, line
  end

  it("conceals the markers, styles what they mark, leaves snake_case alone", function()
    vim.cmd("syntax on")
    h.workspace({ ["hello.txt"] = "hello world\n" })
    local chat = h.start("markdown.jsonl")
    assert.are.equal("end_turn", h.turn(chat, "summarise"))
    local lines = h.lines(chat)
    assert.are.equal("dshchat", vim.bo[chat.buf].filetype) -- no markdown regex syntax
    assert.are.equal(2, vim.wo[chat.win].conceallevel)
    local r = find(lines, "The **main**") - 1
    local hidden, groups = marks_of(chat, r)
    assert.are.same({ "**", "**", "`", "`", "*", "*" }, hidden)
    assert.are.same({ "main" }, groups.DshMdBold)
    assert.are.same({ "hello.txt" }, groups.DshMdCode)
    assert.are.same({ "as is" }, groups.DshMdItalic)
    hidden, groups = marks_of(chat, find(lines, "## Summary") - 1)
    assert.are.same({ "## " }, hidden)
    assert.are.same({ "Summary" }, groups.DshMdHeading)
    hidden, groups = marks_of(chat, find(lines, "- see [the docs]") - 1)
    assert.are.same({ "-", "[", "](https://example.com/docs)" }, hidden)
    assert.are.same({ "the docs" }, groups.DshMdLink)
    -- the fenced Go block is coloured by Go's syntax
    local fr = find(lines, "func main() {")
    local name = vim.fn.synIDattr(vim.fn.synID(fr, 1, 1), "name")
    vim.api.nvim_win_call(chat.win, function()
      name = vim.fn.synIDattr(vim.fn.synID(fr, 1, 1), "name")
    end)
    assert.truthy(name:find("^go"), "synID at func: " .. name)
    hidden = marks_of(chat, fr - 1)
    assert.are.same({}, hidden) -- code is shown as written
    hidden, groups = marks_of(chat, fr - 2)
    assert.are.same({ "```" }, hidden) -- the fence shows its language
    assert.are.same({ "go" }, groups.DshMdFence)
    -- <CR> on hello.txt:1 opens it
    vim.api.nvim_set_current_win(chat.win)
    vim.api.nvim_win_set_cursor(chat.win, { find(lines, "then hello.txt:1"), 10 })
    chat:open_target()
    assert.are.equal(h.dir .. "/hello.txt", vim.api.nvim_buf_get_name(0))
  end)

  it("marks lines as a pure function", function()
    local md = require("dsh.ui.markdown")
    local function hidden(text)
      local out = {}
      for _, m in ipairs((md.line(text, nil))) do
        if m.conceal then
          out[#out + 1] = text:sub(m[1] + 1, m[2])
        end
      end
      return out
    end
    assert.are.same({}, hidden("my_var_name and files_ and snake_case"))
    assert.are.same({ "_", "_" }, hidden("an _emphasised_ word"))
    assert.are.same({ "`", "`" }, hidden("`a * b * c`"))
    assert.are.same({ "**", "**" }, hidden("**bold**"))
    assert.are.same({}, hidden("2 * 3 * 4"))
    local _, st = md.line("```lua", nil)
    assert.are.same({ ticks = "```", lang = "lua" }, st)
    local marks, st2 = md.line("**not bold in code**", st)
    assert.are.same({}, marks)
    assert.are.equal(st, st2)
    local _, st3 = md.line("```", st)
    assert.is_nil(st3)
    assert.are.same({ "main.go", 12 }, { md.path_at("see main.go:12 and x/y.lua:3", 2) })
    assert.are.same({ "x/y.lua", 3 }, { md.path_at("see main.go:12 and x/y.lua:3", 22) })
    assert.is_nil(md.path_at("at 10:30 today", 0))
    local numbered = md.line("12. step", nil)
    assert.are.same({ { 0, 3, "DshMdBullet" } }, numbered)
  end)
end)

describe("the last chat", function()
  after_each(function()
    require("dsh").reset()
    vim.cmd("silent! %bwipeout!")
  end)

  it("comes back on the first :DshChat after a restart: the newest one", function()
    h.workspace({})
    local older = h.start("answer.jsonl")
    assert.are.equal("end_turn", h.turn(older, "an older chat"))
    vim.wait(1100) -- session/list's times are to the second
    local chat = h.start("answer.jsonl")
    local id = chat.session.id
    assert.are_not.equal(older.session.id, id)
    assert.are.equal("end_turn", h.turn(chat, "remember this prompt"))
    local back = h.start("answer.jsonl", { resume_last = true })
    assert.are.equal(id, back.session.id)
    h.wait(function()
      return h.text(back):find("remember this prompt", 1, true) ~= nil
    end, 5000, "the replayed prompt")
    assert.truthy(h.text(back):find("First answer.", 1, true))
  end)
end)

describe("cards", function()
  after_each(function()
    require("dsh").reset()
    vim.cmd("silent! %bwipeout!")
  end)

  it("an empty chat says what the agent does and what to try, until the first prompt", function()
    h.workspace({})
    local chat = h.start("answer.jsonl")
    local ns = vim.api.nvim_get_namespaces().dsh_welcome
    local function welcome()
      chat:flush()
      local out = {}
      for _, m in ipairs(vim.api.nvim_buf_get_extmarks(chat.buf, ns, 0, -1, { details = true })) do
        for _, vl in ipairs(m[4].virt_lines or {}) do
          out[#out + 1] = vl[1][1]
        end
      end
      return out
    end
    assert.are.same(require("dsh.ui.render").WELCOME, welcome())
    assert.are.equal("end_turn", h.turn(chat, "hello"))
    assert.are.same({}, welcome())
  end)

  it("and notices show their title until <Tab> opens the details", function()
    h.workspace({})
    local chat = h.start("answer.jsonl")
    h.wait(function()
      return find(h.lines(chat), "▸ <Tab> for details") ~= nil
    end, 10000, "the sandbox notice")
    local notice
    for _, b in ipairs(chat.session.blocks) do
      if b.kind == "notice" and b.detail then
        notice = b
      end
    end
    assert.truthy(notice)
    local row = find(h.lines(chat), "▸ <Tab> for details")
    assert.are.equal("! " .. notice.title .. "  ▸ <Tab> for details", h.lines(chat)[row])
    vim.api.nvim_set_current_win(chat.win)
    vim.api.nvim_win_set_cursor(chat.win, { row, 0 })
    keys("<Tab>")
    local text = h.text(chat)
    assert.truthy(text:find(notice.detail:sub(1, 30), 1, true), text)
    assert.falsy(text:find("for details", 1, true), text)
    vim.api.nvim_win_set_cursor(chat.win, { row, 0 })
    keys("<Tab>")
    assert.are.equal("! " .. notice.title .. "  ▸ <Tab> for details", h.lines(chat)[row])
  end)

  it("start cut short; <Tab> expands, collapses to the title, then restores", function()
    local long = {}
    for i = 1, 50 do
      long[i] = "line " .. i
    end
    h.workspace({ ["long.txt"] = table.concat(long, "\n") .. "\n" })
    local chat = h.start("long-read.jsonl", { auto_approve = { "read" } })
    assert.are.equal("end_turn", h.turn(chat, "read it"))
    local function card_lines()
      local out, on = {}, false
      for _, l in ipairs(h.lines(chat)) do
        if l:find("^✓ Read") then
          on = true
        elseif on and l == "" then
          break
        end
        if on then
          out[#out + 1] = l
        end
      end
      return out
    end
    local first = card_lines()
    assert.truthy(find(first, "… 20 more lines (<Tab> to expand)"), table.concat(first, "\n"))
    assert.falsy(find(first, "line 31"))
    vim.api.nvim_set_current_win(chat.win)
    local row = find(h.lines(chat), "✓ Read")
    vim.api.nvim_win_set_cursor(chat.win, { row, 0 })
    local tab = function()
      vim.api.nvim_win_set_cursor(chat.win, { row, 0 })
      keys("<Tab>")
      return card_lines()
    end
    local expanded = tab()
    assert.truthy(find(expanded, "   50 │ line 50"), table.concat(expanded, "\n"))
    local collapsed = tab()
    assert.are.equal(2, #collapsed, table.concat(collapsed, "\n"))
    assert.truthy(collapsed[2]:find("▸ %d+ lines %(<Tab> to open%)"), collapsed[2])
    assert.are.same(first, tab())
  end)
end)
