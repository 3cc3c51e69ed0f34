-- The commands beyond chatting: :DshMode, :DshConfig, :DshDiff, :DshAdd,
-- :checkhealth dsh; and the chat window: float layout, folded thoughts,
-- the statusline.
local h = require("helpers")

local function record_sends(conn)
  local sent = {}
  local orig = conn._send
  conn._send = function(self, msg)
    sent[#sent + 1] = msg
    return orig(self, msg)
  end
  return sent
end

describe("commands", function()
  after_each(function()
    h.restore_select()
    require("dsh").reset()
    vim.cmd("silent! tabonly!")
    vim.cmd("silent! %bwipeout!")
  end)

  it(":DshMode sets the session's mode: accept edits runs an edit without asking", function()
    local dir = h.workspace({ ["hello.txt"] = "hello world\n" })
    local asked = h.select_with(function(items, opts)
      if opts.kind == "dsh.mode" then
        for _, m in ipairs(items) do
          if m.id == "acceptEdits" then
            return m
          end
        end
      end
      return nil
    end)
    local chat = h.start("edit.jsonl")
    vim.cmd("DshMode")
    h.wait(function()
      return chat.session.modes.currentModeId == "acceptEdits"
    end, 5000, "the mode")
    assert.are.equal("end_turn", h.turn(chat, "greet ACP"))
    assert.are.equal(1, #asked, "only the mode picker was shown")
    assert.are.equal("hello ACP\n", h.read(dir .. "/hello.txt"))
    assert.truthy(chat:status_text():find("acceptEdits", 1, true))
  end)

  it(":DshConfig sets a config option through session/set_config_option", function()
    h.workspace({})
    h.select_with(function(items, opts)
      if opts.prompt == "dsh-bridge option" then
        for _, o in ipairs(items) do
          if o.id == "tools_mode" then
            return o
          end
        end
      end
      for _, v in ipairs(items) do
        if v.value == "code" then
          return v
        end
      end
    end)
    local chat = h.start("answer.jsonl")
    vim.cmd("DshConfig")
    h.wait(function()
      local o = chat.session:config_option("tools_mode")
      return o and o.currentValue == "code"
    end, 5000, "the option")
  end)

  it(":DshDiff shows the file and its proposed change before the decision, closed once it settles", function()
    local file = "# hi\n\none\ntwo\nthree\nhello world\nfour\nfive\nsix\nend\n"
    local dir = h.workspace({ ["hello.txt"] = file })
    local seen, card, tabs
    local chat
    h.select_with(function(items, opts)
      if opts.kind == "dsh.permission" and not seen then
        card = table.concat(h.lines(chat), "\n")
        vim.cmd("DshDiff")
        local wins = vim.api.nvim_tabpage_list_wins(0)
        seen = {}
        for _, w in ipairs(wins) do
          local b = vim.api.nvim_win_get_buf(w)
          seen[#seen + 1] = { name = vim.api.nvim_buf_get_name(b), diff = vim.wo[w].diff,
            text = table.concat(vim.api.nvim_buf_get_lines(b, 0, -1, false), "\n") }
        end
        tabs = #vim.api.nvim_list_tabpages()
      end
      return h.by_kind("reject_once")(items)
    end)
    chat = h.start("reject.jsonl")
    assert.are.equal("end_turn", h.turn(chat, "edit"))
    -- the pending card is numbered from the file, with context
    assert.truthy(card:find("@@ -3,7 +3,7 @@", 1, true), card)
    assert.are.equal(2, #seen)
    assert.truthy(seen[1].name:find("dsh://current/" .. dir .. "/hello.txt", 1, true), seen[1].name)
    assert.truthy(seen[2].name:find("dsh://proposed/", 1, true))
    assert.is_true(seen[1].diff and seen[2].diff)
    assert.are.equal((file:gsub("\n$", "")), seen[1].text)
    assert.are.equal((file:gsub("world", "ACP"):gsub("\n$", "")), seen[2].text)
    -- the rejected call settled: its diff tab is gone
    assert.are.equal(2, tabs)
    h.wait(function()
      return #vim.api.nvim_list_tabpages() == 1
    end, 5000, "the diff tab to close")
  end)

  it(":DshAdd attaches the buffer or a range as embedded resources", function()
    local dir = h.workspace({ ["code.lua"] = "local a = 1\nlocal b = 2\nlocal c = 3\n" })
    local chat = h.start("answer.jsonl")
    local sent = record_sends(require("dsh").state.agent.conn)
    vim.cmd("wincmd t")
    vim.cmd("edit " .. dir .. "/code.lua")
    vim.bo.filetype = "lua" -- the specs run with filetype detection off
    local said = {}
    local orig = vim.notify
    vim.notify = function(msg)
      said[#said + 1] = msg
    end
    vim.cmd("DshAdd")
    vim.cmd("2,3DshAdd")
    vim.notify = orig
    assert.are.same({ "dsh: attached code.lua to the next prompt (1 in all)",
      "dsh: attached code.lua:2-3 to the next prompt (2 in all)" }, said)
    assert.are.equal("end_turn", h.turn(chat, "look"))
    local prompt
    for _, m in ipairs(sent) do
      if m.method == "session/prompt" then
        prompt = m.params.prompt
      end
    end
    assert.are.equal(3, #prompt)
    assert.are.same({ type = "text", text = "look" }, prompt[1])
    assert.are.same({ uri = vim.uri_from_fname(dir .. "/code.lua"), text = "local a = 1\nlocal b = 2\nlocal c = 3\n",
      mimeType = "text/x-lua" }, prompt[2].resource)
    assert.are.equal(vim.uri_from_fname(dir .. "/code.lua") .. "#L2-3", prompt[3].resource.uri)
    assert.are.equal("local b = 2\nlocal c = 3\n", prompt[3].resource.text)
    assert.truthy(h.text(chat):find("[code.lua:2-3]", 1, true))
    assert.are.same({}, chat.attachments, "attachments go with one prompt")
  end)

  it("folds thoughts, and shows usage and cost in the statusline", function()
    h.workspace({})
    local chat = h.start("answer.jsonl")
    assert.are.equal("end_turn", h.turn(chat, "think"))
    local lines = h.lines(chat)
    local at
    for i, l in ipairs(lines) do
      if l == "  Line two of it." then
        at = i
      end
    end
    assert.truthy(at, table.concat(lines, "\n"))
    local got = vim.api.nvim_win_call(chat.win, function()
      return { vim.fn.foldlevel(at), vim.fn.foldclosed(at), vim.fn.foldclosed(at + 2) }
    end)
    local level, closed, after = got[1], got[2], got[3]
    assert.are.equal(1, level)
    assert.are.equal(at - 1, closed, "the thought's body is one closed fold")
    assert.are.equal(-1, after, "the answer is not folded")
    local conn = require("dsh").state.agent.conn
    conn:_feed(vim.json.encode({ jsonrpc = "2.0", method = "session/update", params = { sessionId = chat.session.id,
      update = { sessionUpdate = "usage_update", used = 5300, size = 128000,
        cost = { amount = 0.0042, currency = "USD" } } } }) .. "\n")
    h.wait(function()
      return vim.wo[chat.win].statusline:find("5300/128000 tokens", 1, true) ~= nil
    end, 2000, "the statusline")
    assert.truthy(vim.wo[chat.win].statusline:find("$0.0042", 1, true), vim.wo[chat.win].statusline)
  end)

  it("opens the prompt window without line numbers, whatever the split inherits", function()
    h.workspace({})
    vim.o.number = true
    local ok, err = pcall(function()
      local chat = h.start("answer.jsonl")
      assert.is_false(vim.wo[chat.input_win].number)
      assert.is_false(vim.wo[chat.input_win].relativenumber)
      assert.is_false(vim.wo[chat.win].number)
    end)
    vim.o.number = false
    assert(ok, err)
  end)

  it("opens the chat in floats when asked", function()
    h.workspace({})
    local chat = h.start("answer.jsonl", { layout = "float" })
    assert.are.equal("editor", vim.api.nvim_win_get_config(chat.win).relative)
    assert.are.equal("editor", vim.api.nvim_win_get_config(chat.input_win).relative)
    assert.are.equal("end_turn", h.turn(chat, "hi"))
    assert.truthy(h.text(chat):find("First answer.", 1, true))
  end)

  it(":checkhealth dsh reports Neovim, the binary, the key and the features", function()
    h.workspace({})
    h.start("answer.jsonl")
    vim.cmd("checkhealth dsh")
    local text = table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), "\n")
    local v = vim.version()
    for _, want in ipairs({
      ("Neovim %d.%d.%d"):format(v.major, v.minor, v.patch),
      "dsh-bridge 0.1.0-dev (ACP v1)",
      "syntax highlighter: " .. vim.fn.fnamemodify(h.bin, ":h") .. "/dsh-highlight",
      "Code Mode runner: " .. vim.fn.fnamemodify(h.bin, ":h") .. "/dsh-code",
      "HTML converter: " .. vim.fn.fnamemodify(h.bin, ":h") .. "/dsh-markdown",
      "no API key needed: the model is a script",
      "nvim_open_term (live terminals)",
      "running: dsh-bridge",
    }) do
      assert.truthy(text:find(want, 1, true), want .. " in:\n" .. text)
    end
    assert.falsy(text:find("ERROR", 1, true), text)
  end)

  it(":DshLogin runs dsh-bridge login in a terminal, and :checkhealth says where the key is", function()
    local cfgdir = vim.fn.tempname()
    local env = { XDG_CONFIG_HOME = cfgdir, DSH_KEYCHAIN = "off", DSH_API_KEY = false, DEEPSEEK_API_KEY = false,
      OPENAI_API_KEY = false, DSH_MODEL = false }
    require("dsh").setup({ cmd = { h.bin }, env = env })
    local key = "sk-nvim-login-0123456789"
    local job = require("dsh.commands").login()
    assert.truthy(job and job > 0)
    local buf = vim.api.nvim_get_current_buf()
    local function screen() -- the terminal wraps long lines
      return table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), "")
    end
    h.wait(function()
      return screen():find("API key", 1, true) ~= nil
    end, 10000, "the key prompt")
    vim.fn.chansend(job, key .. "\r")
    h.wait(function()
      return screen():find("Base URL", 1, true) ~= nil
    end, 10000, "the base URL prompt")
    vim.fn.chansend(job, "http://127.0.0.1:1\r")
    assert.are.same({ 1 }, vim.fn.jobwait({ job }, 20000))
    h.wait(function()
      return screen():find("could not reach http://127.0.0.1:1", 1, true) ~= nil
    end, 15000, "the refusal in: " .. screen())
    assert.falsy(screen():find(key, 1, true), "the terminal echoed the key:\n" .. screen())
    vim.cmd("bwipeout!")

    vim.cmd("checkhealth dsh")
    local text = table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), "\n")
    assert.truthy(text:find("no API key: :DshLogin stores one", 1, true), text)
    vim.cmd("bwipeout!")
    vim.fn.mkdir(cfgdir .. "/dsh-bridge", "p")
    vim.fn.writefile({ '{"apiKey":"' .. key .. '"}' }, cfgdir .. "/dsh-bridge/credentials.json")
    vim.cmd("checkhealth dsh")
    text = table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), "\n")
    assert.truthy(text:find("The API key comes from " .. cfgdir .. "/dsh-bridge/credentials.json", 1, true), text)
    assert.falsy(text:find(key, 1, true), text)
  end)

  it("documents every command in :help", function()
    local doc = vim.fn.tempname()
    vim.fn.mkdir(doc .. "/doc", "p")
    vim.fn.writefile(vim.fn.readfile(h.root .. "/doc/dsh.txt"), doc .. "/doc/dsh.txt")
    vim.cmd("helptags " .. doc .. "/doc")
    vim.opt.rtp:prepend(doc)
    vim.cmd("help dsh-commands")
    assert.are.equal("help", vim.bo.buftype)
    local tags = table.concat(vim.fn.readfile(doc .. "/doc/tags"), "\n")
    local cmds = vim.api.nvim_get_commands({})
    local n = 0
    for name in pairs(cmds) do
      if name:sub(1, 3) == "Dsh" then
        n = n + 1
        assert.truthy(tags:find(":" .. name .. "\t", 1, true), ":" .. name .. " has no help tag")
      end
    end
    assert.is_true(n >= 14)
    vim.cmd("helpclose")
  end)
end)
