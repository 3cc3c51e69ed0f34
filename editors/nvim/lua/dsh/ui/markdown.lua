-- dsh.ui.markdown: an answer's Markdown made readable on Neovim 0.7.2,
-- where no Treesitter parser is installed: per line, the marks that hide
-- the markers (extmark conceal) and highlight what they mark: headings,
-- **bold**, *italic*, `code`, [links](url), list bullets, quotes, fences
-- (their language shown, their ticks hidden). An underscore inside a word is text (snake_case stays plain).
-- The code between fences is coloured by the language's regex syntax,
-- included into the chat buffer once per language (M.include).
-- M.line is pure (M.draw puts its marks in a buffer): the text stays as
-- the agent wrote it, so a yank copies the Markdown.
local M = {}

-- mark kinds: {s, e, group} highlights bytes s..e (0-based, end
-- exclusive); {s, e, conceal = c} hides them (c: a replacement character,
-- "" for none).

local function add(marks, s, e, group)
  marks[#marks + 1] = { s, e, group }
end

local function hide(marks, s, e, char)
  marks[#marks + 1] = { s, e, conceal = char or "" }
end

-- take marks bytes s..e (1-based) as taken: later rules skip them. The
-- taken bytes are a set, so a line's drawing stays linear in its length.
local function take(spans, s, e)
  for p = s, e do
    spans[p] = true
  end
end

-- code spans first: nothing inside `…` is Markdown. Returns the bytes
-- that later rules skip.
local function code_spans(text, marks)
  local spans = {}
  local i = 1
  while true do
    local s, e, ticks = text:find("(`+)", i)
    if not s then
      break
    end
    local close_s, close_e = text:find(ticks, e + 1, true)
    while close_s and text:sub(close_e + 1, close_e + 1) == "`" do
      close_s, close_e = text:find(ticks, close_e + 2, true)
    end
    if not close_s then
      break
    end
    hide(marks, s - 1, e)
    add(marks, e, close_s - 1, "DshMdCode")
    hide(marks, close_s - 1, close_e)
    take(spans, s, close_e)
    i = close_e + 1
  end
  return spans
end

local function inside(spans, pos)
  return spans[pos] == true
end

local function word_char(c)
  return c ~= "" and c:match("[%w]") ~= nil
end

-- emphasis finds pairs of a delimiter (** __ * _) outside code spans. An
-- underscore opens only after a non-word character and closes only before
-- one, as CommonMark has it, so my_var_name is not italic.
local function emphasis(text, marks, spans, delim, group)
  local n = #delim
  local under = delim:sub(1, 1) == "_"
  local i = 1
  while true do
    local s = text:find(delim, i, true)
    if not s then
      return
    end
    local before, after = text:sub(s - 1, s - 1), text:sub(s + n, s + n)
    local opens = after ~= "" and after ~= " " and after ~= delim:sub(1, 1)
      and not (under and word_char(before)) and not inside(spans, s)
    if not opens then
      i = s + n
    else
      local j = s + n + 1
      local closed = false
      while true do
        local c = text:find(delim, j, true)
        if not c then
          break
        end
        local cb, ca = text:sub(c - 1, c - 1), text:sub(c + n, c + n)
        if cb ~= " " and ca ~= delim:sub(1, 1) and not (under and word_char(ca)) and not inside(spans, c) then
          hide(marks, s - 1, s - 1 + n)
          add(marks, s - 1 + n, c - 1, group)
          hide(marks, c - 1, c - 1 + n)
          take(spans, s, s + n - 1) -- the markers are taken
          take(spans, c, c + n - 1)
          i = c + n
          closed = true
          break
        end
        j = c + 1
      end
      if not closed then
        -- no closer after s: none after a later opener either (a closer
        -- depends on its own bytes, and nothing was taken meanwhile)
        return
      end
    end
  end
end

-- links draws [label](target). Linear: the next "]" and the end of a
-- target are looked up once per position they can have.
local function links(text, marks, spans)
  local i = 1
  local close_at, close_from -- the next "]" from close_from
  local stop_at, stop_from -- the next ")" or space from stop_from
  while true do
    local s = text:find("[", i, true)
    if not s then
      return
    end
    if not (close_from and close_from <= s + 1 and (close_at == nil or close_at >= s + 1)) then
      close_from, close_at = s + 1, text:find("]", s + 1, true)
    end
    local c = close_at
    if not c then
      return
    end
    local inner = text:find("[", s + 1, true)
    if inner and inner < c then
      i = inner -- a "[" inside the label starts the link
    elseif c == s + 1 or text:sub(c + 1, c + 1) ~= "(" then
      i = c + 1
    else
      local from = c + 2
      if not (stop_from and stop_from <= from and (stop_at == nil or stop_at >= from)) then
        stop_from, stop_at = from, text:find("[%)%s]", from)
      end
      local e = stop_at
      if not e or e == from or text:sub(e, e) ~= ")" then
        i = c + 1
      else
        if not inside(spans, s) then
          hide(marks, s - 1, s)
          add(marks, s, c - 1, "DshMdLink")
          hide(marks, c - 1, e)
        end
        i = e + 1
      end
    end
  end
end

-- M.fence reads a fence line: its marker and its language ("" for none),
-- or nil for a line that is not one.
function M.fence(text)
  local ticks, lang = text:match("^%s*(```+)%s*([%w_+.#-]*)%s*$")
  if not ticks then
    ticks, lang = text:match("^%s*(~~~+)%s*([%w_+.#-]*)%s*$")
  end
  if not ticks then
    return nil
  end
  return ticks, lang
end

-- M.line returns the marks of one line and the state for the next line;
-- state is nil outside a fence, else {ticks, lang} of the open fence.
function M.line(text, state)
  local marks = {}
  local ticks, lang = M.fence(text)
  -- a fence line keeps its language, dimmed; the ticks hide
  local lead = ticks and #text:match("^%s*") + #ticks
  if state then
    if ticks and lang == "" and ticks:sub(1, 1) == state.ticks:sub(1, 1) and #ticks >= #state.ticks then
      hide(marks, 0, lead)
      return marks, nil
    end
    return marks, state -- code: the included syntax colours it
  end
  if ticks then
    hide(marks, 0, lead)
    add(marks, lead, #text, "DshMdFence")
    return marks, { ticks = ticks, lang = lang }
  end
  local hashes, rest = text:match("^(#+)%s+()")
  if hashes and #hashes <= 6 then
    hide(marks, 0, rest - 1)
    add(marks, rest - 1, #text, "DshMdHeading")
    return marks, nil
  end
  local indent, bullet = text:match("^(%s*)([-*+])%s")
  if bullet then
    hide(marks, #indent, #indent + 1, "•")
    add(marks, #indent, #indent + 1, "DshMdBullet")
  end
  local num = text:match("^%s*%d+[.)]%s")
  if num then
    add(marks, 0, #num - 1, "DshMdBullet")
  end
  local quote = text:match("^(%s*>%s?)")
  if quote then
    hide(marks, 0, #quote, "│")
    add(marks, 0, #text, "DshMdQuote")
  end
  local spans = code_spans(text, marks)
  if bullet then
    take(spans, #indent + 1, #indent + 1)
  end
  emphasis(text, marks, spans, "**", "DshMdBold")
  emphasis(text, marks, spans, "__", "DshMdBold")
  emphasis(text, marks, spans, "*", "DshMdItalic")
  emphasis(text, marks, spans, "_", "DshMdItalic")
  links(text, marks, spans)
  return marks, nil
end

-- M.draw puts the marks of an answer's lines into buf (namespace ns)
-- from row first, starting in fence state, and includes the syntax of
-- each fence's language; returns the state at the start of the last line
-- and after it.
function M.draw(buf, ns, first, lines, state)
  local at_last = state
  for i, text in ipairs(lines) do
    at_last = state
    local marks
    marks, state = M.line(text, state)
    if state and state.lang ~= "" and not at_last then
      M.include(buf, state.lang)
    end
    local row = first + i - 1
    for _, m in ipairs(marks) do
      if m.conceal then
        vim.api.nvim_buf_set_extmark(buf, ns, row, m[1], { end_row = row, end_col = m[2], conceal = m.conceal })
      else
        vim.api.nvim_buf_add_highlight(buf, ns, m[3], row, m[1], m[2])
      end
    end
  end
  return at_last, state
end

-- M.path_at finds a `path:line` reference in text: the one around the
-- 0-based byte col, else the first. Returns path, line (numbers), or nil.
function M.path_at(text, col)
  local first
  local i = 1
  while true do
    -- an optional drive (C:\ or C:/), then the path, :line and :column
    local s, e, drive, path, lnum, cnum = text:find("(%a?:?)([%w_%.%-/\\~]*[%w_]%.?[%w_]*):(%d+):?(%d*)", i)
    if not s then
      break
    end
    if not drive:find(":") then
      drive, path = "", drive .. path -- a letter of the path
    elseif not (#drive == 2 and path:find("^[/\\]")) then
      s, drive = s + #drive, "" -- "x:a.go": the colon ends a word
    end
    path = drive .. path:gsub("^[%(%[\"'`]+", "")
    if path:find("[/.\\]") then
      local hit = { path, tonumber(lnum), tonumber(cnum) }
      if col >= s - 1 and col < e then
        return hit[1], hit[2], hit[3]
      end
      first = first or hit
    end
    i = e + 1
  end
  if first then
    return first[1], first[2], first[3]
  end
  return nil
end

-- M.absolute resolves a path an answer names against cwd: ~/ is the
-- home folder, and /x, C:\x and C:/x are already absolute.
function M.absolute(path, cwd)
  if path:find("^~[/\\]") then
    return vim.loop.os_homedir() .. path:sub(2)
  end
  if path:find("^[/\\]") or path:find("^%a:[/\\]") then
    return path
  end
  return cwd .. "/" .. path
end

-- M.lang_syntax names the syntax file of a fence's language, or nil when
-- the runtime has none (a few common aliases first).
local ALIAS = { sh = "sh", bash = "sh", shell = "sh", console = "sh", zsh = "zsh", js = "javascript",
  ts = "typescript", py = "python", rb = "ruby", yml = "yaml", golang = "go", rs = "rust", ["c++"] = "cpp",
  md = "markdown", jsonc = "json" }

function M.lang_syntax(lang)
  lang = (lang or ""):lower()
  if lang == "" then
    return nil
  end
  local name = ALIAS[lang] or lang
  if not name:match("^[%w_]+$") then
    return nil
  end
  if #vim.api.nvim_get_runtime_file("syntax/" .. name .. ".vim", false) == 0 then
    return nil
  end
  return name
end

-- M.include makes the fenced blocks of lang in buf coloured by its
-- syntax; once per buffer and language. Returns whether it did (or had).
function M.include(buf, lang)
  local name = M.lang_syntax(lang)
  if not name then
    return false
  end
  local done = vim.b[buf].dsh_md_langs or {}
  if done[name] then
    return true
  end
  local ok = pcall(vim.api.nvim_buf_call, buf, function()
    local cluster = "@dshCode_" .. name
    vim.b.current_syntax = nil
    vim.cmd(("silent! syntax include %s syntax/%s.vim"):format(cluster, name))
    vim.b.current_syntax = nil
    -- every spelling of the language that reaches this syntax
    local spell = { name }
    for alias, target in pairs(ALIAS) do
      if target == name and alias:match("^[%w_]+$") then
        spell[#spell + 1] = alias
      end
    end
    vim.cmd(("syntax region dshCode_%s matchgroup=DshMdFence start=/^\\s*```\\s*\\c\\(%s\\)\\s*$/ "
      .. "end=/^\\s*```\\s*$/ keepend contains=%s"):format(name, table.concat(spell, "\\|"), cluster))
  end)
  done[name] = ok
  vim.b[buf].dsh_md_langs = done
  return ok
end

return M
