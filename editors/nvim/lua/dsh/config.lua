-- dsh.config: the defaults, and the merge of the user's setup() options.
local M = {}

M.defaults = {
  -- The agent: program and arguments. The API key comes from the
  -- environment Neovim was started with (DSH_API_KEY, DEEPSEEK_API_KEY or
  -- OPENAI_API_KEY); never put it here.
  cmd = { "dsh-bridge" },
  -- Extra environment for the agent (DSH_MODEL, DSH_BASE_URL, …); false
  -- removes a variable.
  env = {},
  -- "split" (on the right) or "float".
  layout = "split",
  width = 80,
  input_height = 5,
  float_width = 0.8,
  float_height = 0.8,
  -- ACP tool kinds allowed once without asking ("read", "search", "fetch",
  -- "edit", "execute", …). Empty: every request is asked.
  auto_approve = {},
  -- How a permission request is asked: "float" (a window with keys that
  -- does not block the editor) or "select" (vim.ui.select).
  approval = "float",
  -- The slash-command menu opens as "/" starts the prompt (<C-x><C-o>
  -- always completes them).
  complete_auto = true,
  -- :DshChat with no chat open brings back this folder's last session
  -- (when the agent can load sessions).
  resume_last = true,
  -- Buffer-local keys of the chat (false disables one).
  keymaps = {
    send = "<CR>", -- prompt buffer, normal mode
    send_insert = "<C-s>", -- prompt buffer, insert mode
    cancel = "<C-c>",
    close = "q",
    toggle = "<Tab>", -- cycle the card under the cursor: expanded, collapsed, as drawn
    open = "<CR>", -- transcript: open the file or terminal under the cursor
    diff = "gd", -- transcript: review the proposed change
  },
  -- Milliseconds between redraws of a streaming chat (one frame).
  frame_ms = 16,
}

function M.merge(user)
  local cfg = vim.tbl_deep_extend("force", vim.deepcopy(M.defaults), user or {})
  if type(cfg.cmd) == "string" then
    cfg.cmd = { cfg.cmd }
  end
  if user and user.auto_approve then
    cfg.auto_approve = user.auto_approve -- a list replaces, never merges
  end
  return cfg
end

return M
