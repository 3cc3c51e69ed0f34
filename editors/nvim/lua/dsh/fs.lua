-- dsh.fs: the client's fs/read_text_file and fs/write_text_file. A loaded
-- buffer is the truth (its unsaved edits win); anything else is the file
-- on disk. No windows are touched.
local M = {}

local uv = vim.loop

-- Error codes of the answers (JSON-RPC; -32002 is ACP's "resource not found").
M.NOT_FOUND = -32002
M.INVALID = -32602
M.INTERNAL = -32603

local function real(path)
  return uv.fs_realpath(path) or vim.fn.fnamemodify(path, ":p")
end

-- M.loaded_buffer returns the loaded buffer that shows path, or nil.
function M.loaded_buffer(path)
  local want = real(path)
  for _, b in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(b) and vim.bo[b].buftype == "" then
      local name = vim.api.nvim_buf_get_name(b)
      if name ~= "" and (name == path or real(name) == want) then
        return b
      end
    end
  end
  return nil
end

local function buffer_text(b)
  local lines = vim.api.nvim_buf_get_lines(b, 0, -1, false)
  local text = table.concat(lines, "\n")
  if #lines > 0 and (vim.bo[b].eol or vim.bo[b].fixeol) and not (#lines == 1 and lines[1] == "") then
    text = text .. "\n"
  end
  return text
end

local function read_disk(path)
  local f, err = io.open(path, "rb")
  if not f then
    return nil, err
  end
  local text = f:read("*a")
  f:close()
  return text
end

-- M.slice returns text from 1-based line `line`, at most `limit` lines.
function M.slice(text, line, limit)
  if (line == nil or line <= 1) and limit == nil then
    return text
  end
  line = math.max(line or 1, 1)
  local pos, n = 1, 1
  while n < line do
    local nl = text:find("\n", pos, true)
    if not nl then
      return ""
    end
    pos, n = nl + 1, n + 1
  end
  if limit == nil then
    return text:sub(pos)
  end
  local stop = pos - 1
  for _ = 1, limit do
    local nl = text:find("\n", stop + 1, true)
    if not nl then
      stop = #text
      break
    end
    stop = nl
  end
  return text:sub(pos, stop)
end

local function abs_path(params)
  local path = params.path
  if type(path) ~= "string" or path:sub(1, 1) ~= "/" then
    return nil, { code = M.INVALID, message = "path must be an absolute path, got " .. vim.inspect(path) }
  end
  return path
end

local function uint(v, name)
  if v == nil then
    return nil
  end
  if type(v) ~= "number" or v < 0 or v % 1 ~= 0 then
    error({ code = M.INVALID, message = name .. " must be a non-negative integer" })
  end
  return v
end

-- M.read serves fs/read_text_file: {sessionId, path, line?, limit?} -> {content}.
function M.read(params)
  local path, perr = abs_path(params)
  if not path then
    return nil, perr
  end
  local ok, line, limit = pcall(function()
    return uint(params.line, "line"), uint(params.limit, "limit")
  end)
  if not ok then
    return nil, line
  end
  local b = M.loaded_buffer(path)
  local text, err
  if b then
    text = buffer_text(b)
  else
    text, err = read_disk(path)
    if not text then
      local code = (err or ""):find("No such file") and M.NOT_FOUND or M.INTERNAL
      return nil, { code = code, message = tostring(err) }
    end
  end
  return { content = M.slice(text, line, limit) }
end

local function split_lines(content)
  local lines = vim.split(content, "\n", { plain = true })
  local eol = lines[#lines] == ""
  if eol then
    lines[#lines] = nil
  end
  return lines, eol
end

local function write_buffer(b, content)
  local lines, eol = split_lines(content)
  if vim.bo[b].fileformat == "dos" then
    for i, l in ipairs(lines) do
      lines[i] = l:gsub("\r$", "")
    end
  end
  vim.api.nvim_buf_call(b, function()
    -- A change of its own: one `u` takes the whole write back.
    vim.cmd("let &undolevels = &undolevels")
  end)
  vim.api.nvim_buf_set_lines(b, 0, -1, false, lines)
  vim.bo[b].eol = eol
  if not eol then
    vim.bo[b].fixeol = false
  end
  local ok, err = pcall(vim.api.nvim_buf_call, b, function()
    vim.cmd("silent keepalt noautocmd write!")
  end)
  if not ok then
    return nil, { code = M.INTERNAL, message = "the buffer was changed but could not be written: " .. tostring(err) }
  end
  return true
end

local function write_disk(path, content)
  vim.fn.mkdir(vim.fn.fnamemodify(path, ":h"), "p")
  local f, err = io.open(path, "wb")
  if not f then
    return nil, { code = M.INTERNAL, message = tostring(err) }
  end
  local ok, werr = f:write(content)
  f:close()
  if not ok then
    return nil, { code = M.INTERNAL, message = tostring(werr) }
  end
  -- A buffer of the file that is not loaded reads it again when loaded;
  -- a loaded one would have been written through (above).
  return true
end

-- M.write serves fs/write_text_file: {sessionId, path, content} -> {}.
function M.write(params)
  local path, perr = abs_path(params)
  if not path then
    return nil, perr
  end
  if type(params.content) ~= "string" then
    return nil, { code = M.INVALID, message = "content must be a string" }
  end
  local b = M.loaded_buffer(path)
  local ok, err
  if b then
    ok, err = write_buffer(b, params.content)
  else
    ok, err = write_disk(path, params.content)
  end
  if not ok then
    return nil, err
  end
  return vim.empty_dict()
end

-- M.install registers both methods on a connection.
function M.install(conn)
  conn:handle("fs/read_text_file", function(params, reply)
    reply(M.read(params))
  end)
  conn:handle("fs/write_text_file", function(params, reply)
    reply(M.write(params))
  end)
end

return M
