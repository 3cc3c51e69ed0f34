-- :checkhealth dsh — the Neovim version, the agent binary and its version,
-- whether an API key is set, and the features this Neovim offers.
local M = {}

-- The report API moved: health.report_* (0.7), vim.health.report_* (0.8,
-- 0.9), vim.health.* (0.10 on).
local function api()
  local h = vim.health
  if h and h.start then
    return h.start, h.ok, h.warn, h.error, h.info
  end
  h = h or require("health")
  return h.report_start, h.report_ok, h.report_warn, h.report_error, h.report_info
end

-- The bridge's helpers: the binary, the variable that names or disables it,
-- what it is, and what is missing without it.
local helpers = {
  { name = "dsh-highlight", env = "DSH_HIGHLIGHTER", what = "syntax highlighter",
    off = "syntax tokens are off", without = "read cards come without syntax colours" },
  { name = "dsh-code", env = "DSH_CODE_RUNNER", what = "Code Mode runner",
    off = "Code Mode's runner is off", without = "run_code fails (Code Mode)" },
  { name = "dsh-markdown", env = "DSH_MARKDOWN", what = "HTML converter",
    off = "HTML conversion is off", without = "web_fetch returns pages as raw HTML" },
}

-- check_helpers finds each helper as the bridge does: $ENV, else next to
-- the (resolved) binary, else on PATH.
function M.check_helpers(bin, cfg, ok, warn, info)
  for _, hp in ipairs(helpers) do
    local named = cfg.env[hp.env] or vim.env[hp.env]
    if named == "off" then
      info(("%s (%s=off)"):format(hp.off, hp.env))
    else
      local found = named
      if not found then
        local beside = vim.fn.fnamemodify(vim.fn.resolve(bin), ":h") .. "/" .. hp.name
        found = vim.fn.executable(beside) == 1 and beside or vim.fn.exepath(hp.name)
      end
      if found ~= "" and vim.fn.executable(found) == 1 then
        ok(hp.what .. ": " .. found)
      else
        warn(("no %s next to the binary or on PATH: %s"):format(hp.name, hp.without),
          { "build it beside dsh-bridge: CGO_ENABLED=0 go build -o DIR/ ./cmd/dsh-bridge ./cmd/dsh-highlight"
              .. " ./cmd/dsh-code ./cmd/dsh-markdown" })
      end
    end
  end
end

function M.check()
  local start, ok, warn, err, info = api()
  local cfg = require("dsh").config
  start("dsh-bridge: Neovim")
  local v = vim.version()
  local vs = ("%d.%d.%d"):format(v.major, v.minor, v.patch)
  if vim.fn.has("nvim-0.7.2") == 1 then
    ok("Neovim " .. vs)
  else
    err("Neovim " .. vs .. ": dsh.nvim needs 0.7.2 or later")
  end
  start("dsh-bridge: the agent")
  local bin = cfg.cmd[1]
  local found = require("dsh.exe").find(bin)
  local path = found and vim.fn.exepath(found) or ""
  if path == "" then
    err(("%s is not executable, or not on PATH outside the working directory and the temp folder"):format(bin),
      { "install it and its helpers: CGO_ENABLED=0 go install github.com/dsh-bridge/dsh-bridge/cmd/dsh-bridge@latest"
          .. " github.com/dsh-bridge/dsh-bridge/cmd/dsh-highlight@latest"
          .. " github.com/dsh-bridge/dsh-bridge/cmd/dsh-code@latest"
          .. " github.com/dsh-bridge/dsh-bridge/cmd/dsh-markdown@latest",
        "or set require('dsh').setup({ cmd = { '/path/to/dsh-bridge' } })" })
  else
    local out = vim.fn.system({ path, "version" })
    if vim.v.shell_error == 0 then
      ok(("%s: %s"):format(path, vim.trim(out)))
    else
      warn(("%s does not answer `version` (too old?): %s"):format(path, vim.trim(out):sub(1, 200)))
    end
    M.check_helpers(path, cfg, ok, warn, info)
  end
  local key
  for _, k in ipairs({ "DSH_API_KEY", "DEEPSEEK_API_KEY", "OPENAI_API_KEY" }) do
    local env = cfg.env[k]
    if (type(env) == "string" and env ~= "") or (env ~= false and (vim.env[k] or "") ~= "") then
      key = k
      break
    end
  end
  local model = cfg.env.DSH_MODEL or vim.env.DSH_MODEL or ""
  for i, arg in ipairs(cfg.cmd) do
    if arg == "--model" and cfg.cmd[i + 1] then
      model = cfg.cmd[i + 1]
    elseif arg:sub(1, 8) == "--model=" then
      model = arg:sub(9)
    end
  end
  local stored = ""
  if not key and model:sub(1, 7) ~= "script:" and path ~= "" then
    -- Where the bridge would take the key from (never the key itself).
    local out = {}
    local job = vim.fn.jobstart({ path, "login", "--status" }, {
      env = require("dsh.commands").env_dict(cfg.env),
      clear_env = true,
      stdout_buffered = true,
      on_stdout = function(_, data)
        out = data
      end,
    })
    if job > 0 and vim.fn.jobwait({ job }, 5000)[1] == 0 then
      stored = vim.trim(table.concat(out, "\n"))
    end
  end
  if key then
    ok("an API key is set (" .. key .. ")")
  elseif model:sub(1, 7) == "script:" then
    ok("no API key needed: the model is a script (" .. model .. ")")
  elseif stored ~= "" then
    ok(stored)
  else
    warn("no API key: :DshLogin stores one, or set DSH_API_KEY (or DEEPSEEK_API_KEY / OPENAI_API_KEY)"
      .. " in the environment Neovim starts in")
  end
  local a = require("dsh").state.agent
  if a and a.info then
    info(("running: %s %s, initialize in %.1f ms"):format(tostring(a.info.name), tostring(a.info.version),
      a.init_ms or 0))
  end
  start("dsh-bridge: features")
  local feats = {
    { "nvim_open_term (live terminals)", vim.api.nvim_open_term ~= nil },
    { "vim.diff (diff cards without _meta.dsh)", vim.diff ~= nil },
    { "extmark line highlights", vim.fn.has("nvim-0.6") == 1 },
    { "extmark conceal (the answers' Markdown)", vim.fn.has("nvim-0.6") == 1 },
    { "float titles", vim.fn.has("nvim-0.9") == 1 },
    { "winbar", vim.fn.has("nvim-0.8") == 1 },
    { "Treesitter highlight groups for tokens (@keyword…)", vim.fn.has("nvim-0.8") == 1 },
  }
  for _, f in ipairs(feats) do
    if f[2] then
      ok(f[1])
    else
      info(f[1] .. ": not in this Neovim (an older equivalent is used)")
    end
  end
  ok("layout: " .. cfg.layout .. "; approvals: " .. tostring(cfg.approval) .. "; auto-approved kinds: "
    .. (#cfg.auto_approve > 0 and table.concat(cfg.auto_approve, ", ") or "none"))
end

return M
