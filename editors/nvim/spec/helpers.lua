-- Helpers of the specs: a scratch workspace, the real dsh-bridge binary
-- run with a model script, and waits that keep the event loop turning.
local M = {}

local root = vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":p:h:h")
M.root = root

M.bin = os.getenv("DSH_BRIDGE_BIN") or "dsh-bridge"

function M.script(name)
  return root .. "/testdata/scripts/" .. name
end

-- wait turns the event loop until cond() holds; fails the test if it
-- does not within ms.
function M.wait(cond, ms, what)
  local ok = vim.wait(ms or 10000, cond, 10)
  assert(ok, "timed out waiting for " .. (what or "a condition"))
end

-- workspace makes a scratch folder with files ({name = text}), makes it
-- Neovim's working directory, and returns its real path.
function M.workspace(files)
  local dir = vim.fn.tempname()
  vim.fn.mkdir(dir, "p")
  dir = vim.loop.fs_realpath(dir)
  for name, text in pairs(files or {}) do
    local f = assert(io.open(dir .. "/" .. name, "wb"))
    f:write(text)
    f:close()
  end
  vim.cmd("cd " .. vim.fn.fnameescape(dir))
  M.dir = dir
  return dir
end

function M.read(path)
  local f = io.open(path, "rb")
  if not f then
    return nil
  end
  local s = f:read("*a")
  f:close()
  return s
end

-- start opens a chat on a fresh agent that plays the script; returns it.
function M.start(script, extra)
  local dsh = require("dsh")
  dsh.reset()
  -- language servers off: whether the machine has gopls must not change
  -- what a spec's transcript shows
  local config = M.dir .. "/.config"
  vim.fn.mkdir(config .. "/dsh-bridge", "p")
  vim.fn.writefile({ '{"lsp": false}' }, config .. "/dsh-bridge/settings.json")
  local cfg = { cmd = { M.bin, "--model", "script:" .. M.script(script) },
    env = { DSH_STATE_DIR = M.dir .. "/.state", DSH_LOG_LEVEL = "warn", TMPDIR = "/tmp", XDG_CONFIG_HOME = config },
    -- the specs answer approvals through a stubbed vim.ui.select unless
    -- they ask for the float; each start is a new session unless asked
    approval = "select", resume_last = false }
  for k, v in pairs(extra or {}) do
    cfg[k] = v
  end
  dsh.setup(cfg)
  local chat, err
  dsh.chat(function(c, e)
    chat, err = c, e or (c == nil and "no chat")
  end)
  M.wait(function()
    return chat ~= nil or err ~= nil
  end, 10000, "the chat")
  assert(chat, tostring(err))
  return chat
end

-- turn types text into the prompt, sends it like <CR> does, and waits for
-- the turn's end; returns the stop reason (or the error).
function M.turn(chat, text)
  local dsh = require("dsh")
  local done
  dsh.on_turn_end = function(stop, err)
    done = stop or ("error: " .. tostring(err and err.message))
  end
  vim.api.nvim_buf_set_lines(chat.input, 0, -1, false, vim.split(text, "\n"))
  vim.api.nvim_set_current_win(chat.input_win)
  vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes("<CR>", true, false, true), "x", false)
  M.wait(function()
    return done ~= nil
  end, 20000, "the end of the turn")
  dsh.on_turn_end = nil
  chat:flush()
  return done
end

-- lines returns the chat transcript, flushed.
function M.lines(chat)
  chat:flush()
  return vim.api.nvim_buf_get_lines(chat.buf, 0, -1, false)
end

function M.text(chat)
  return table.concat(M.lines(chat), "\n")
end

-- select_with replaces vim.ui.select (the default blocks a headless run)
-- with pick(items, opts) -> item; every call is recorded in the returned
-- list. restore_select puts the original back.
local original_select = vim.ui.select
function M.select_with(pick)
  local calls = {}
  vim.ui.select = function(items, opts, cb)
    local choice = pick(items, opts)
    calls[#calls + 1] = { items = items, opts = opts, choice = choice }
    vim.schedule(function()
      cb(choice)
    end)
  end
  return calls
end

function M.restore_select()
  vim.ui.select = original_select
end

-- by_kind picks the permission option of a kind.
function M.by_kind(kind)
  return function(items)
    for _, it in ipairs(items) do
      if it.kind == kind then
        return it
      end
    end
    return nil
  end
end

-- hello prepares the common scene: a workspace holding hello.txt
-- ("hello world"), the picker answering with the option of kind, and a
-- chat on script; it returns the workspace, the chat and the picker's
-- record.
function M.hello(kind, script, extra)
  local dir = M.workspace({ ["hello.txt"] = "hello world\n" })
  local asked = M.select_with(M.by_kind(kind))
  return dir, M.start(script, extra), asked
end

-- errors records the messages vim.notify gets at ERROR level or above;
-- the returned function puts vim.notify back.
function M.errors()
  local list = {}
  local orig = vim.notify
  vim.notify = function(msg, level)
    if (level or 0) >= vim.log.levels.ERROR then
      list[#list + 1] = msg
    end
  end
  return list, function()
    vim.notify = orig
  end
end

-- pids lists the processes whose command line matches the pgrep pattern s.
function M.pids(s)
  local out = vim.fn.systemlist({ "pgrep", "-f", s })
  if vim.v.shell_error ~= 0 then
    return {}
  end
  return out
end

return M
