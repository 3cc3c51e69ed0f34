-- dsh.ui.highlight: the plugin's highlight groups, all `default` links so
-- that a colour scheme (or the user) can override them, and the mapping of
-- chroma token types onto the syntax groups every colour scheme defines
-- (Treesitter's @-groups from Neovim 0.8 on, which link to those).
local M = {}

local ts = vim.fn.has("nvim-0.8") == 1

local LINKS = {
  DshUser = "Title",
  DshThought = "Comment",
  DshCardTitle = "Title",
  DshCardMeta = "Comment",
  DshPending = "Comment",
  DshRunning = "WarningMsg",
  DshDone = "String",
  DshFailed = "ErrorMsg",
  DshAwaiting = "WarningMsg",
  DshDiffAdd = "DiffAdd",
  DshDiffDelete = "DiffDelete",
  DshDiffHunk = "Special",
  DshLineNr = "LineNr",
  DshPath = "Directory",
  DshMatch = "Search",
  DshPlanDone = "Comment",
  DshPlanActive = "Special",
  DshNotice = "WarningMsg",
  DshAttachment = "Comment",
  DshMdHeading = "Title",
  DshMdCode = "String",
  DshMdLink = "Underlined",
  DshMdBullet = "Special",
  DshMdQuote = "Comment",
  DshMdFence = "Comment",
  DshHint = "Comment",
  DshApproveKey = "Special",
}

-- groups with attributes of their own (no group to link to on 0.7)
local ATTRS = {
  DshMdBold = { bold = true },
  DshMdItalic = { italic = true },
}

-- Longest prefix wins. The second column is used before Neovim 0.8.
local TOKENS = {
  { "KeywordType", "@type.builtin", "Type" },
  { "KeywordConstant", "@constant.builtin", "Boolean" },
  { "KeywordNamespace", "@include", "Include" },
  { "KeywordDeclaration", "@keyword", "Keyword" },
  { "Keyword", "@keyword", "Keyword" },
  { "NameFunctionMagic", "@function.builtin", "Function" },
  { "NameFunction", "@function", "Function" },
  { "NameBuiltin", "@function.builtin", "Special" },
  { "NameClass", "@type", "Type" },
  { "NameConstant", "@constant", "Constant" },
  { "NameDecorator", "@attribute", "PreProc" },
  { "NameException", "@exception", "Exception" },
  { "NameLabel", "@label", "Label" },
  { "NameTag", "@tag", "Tag" },
  { "NameAttribute", "@property", "Identifier" },
  { "NameProperty", "@property", "Identifier" },
  { "NameVariable", "@variable", "Identifier" },
  { "NameNamespace", "@namespace", "Identifier" },
  { "LiteralStringEscape", "@string.escape", "SpecialChar" },
  { "LiteralStringRegex", "@string.regex", "SpecialChar" },
  { "LiteralStringChar", "@character", "Character" },
  { "LiteralString", "@string", "String" },
  { "LiteralNumberFloat", "@float", "Float" },
  { "LiteralNumber", "@number", "Number" },
  { "Literal", "@constant", "Constant" },
  { "OperatorWord", "@keyword.operator", "Operator" },
  { "Operator", "@operator", "Operator" },
  { "Punctuation", "@punctuation.delimiter", "Delimiter" },
  { "CommentPreproc", "@preproc", "PreProc" },
  { "Comment", "@comment", "Comment" },
  { "GenericDeleted", "DiffDelete", "DiffDelete" },
  { "GenericInserted", "DiffAdd", "DiffAdd" },
  { "GenericHeading", "@text.title", "Title" },
  { "GenericSubheading", "@text.title", "Title" },
  { "GenericEmph", "@text.emphasis", "Italic" },
  { "GenericStrong", "@text.strong", "Bold" },
  { "Error", "@error", "Error" },
}

local token_groups = {}

-- M.token_group returns the highlight group of a chroma token type, or nil
-- for types that are drawn as plain text (Name, Text, Whitespace).
function M.token_group(ttype)
  local g = token_groups[ttype]
  if g ~= nil then
    return g or nil
  end
  for _, row in ipairs(TOKENS) do
    if ttype:sub(1, #row[1]) == row[1] then
      g = "DshTok" .. row[1]
      vim.api.nvim_set_hl(0, g, { link = ts and row[2] or row[3], default = true })
      token_groups[ttype] = g
      return g
    end
  end
  token_groups[ttype] = false
  return nil
end

local done = false

-- M.ensure defines the groups once (setup() may not have been called).
function M.ensure()
  if not done then
    M.setup()
  end
end

function M.setup()
  done = true
  for name, target in pairs(LINKS) do
    vim.api.nvim_set_hl(0, name, { link = target, default = true })
  end
  for name, attrs in pairs(ATTRS) do
    vim.api.nvim_set_hl(0, name, vim.tbl_extend("force", { default = true }, attrs))
  end
  token_groups = {}
end

return M
