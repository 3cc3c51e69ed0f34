-- dsh.text: the small text helpers the cards share.
local M = {}

-- lines splits text at "\n"; a final newline ends the last line rather
-- than starting an empty one.
function M.lines(text)
  local lines = vim.split(text or "", "\n", { plain = true })
  if #lines > 1 and lines[#lines] == "" then
    lines[#lines] = nil
  end
  return lines
end

-- str is v as a string: "" for nil and JSON null.
function M.str(v)
  if type(v) == "string" then
    return v
  elseif v == nil or v == vim.NIL then
    return ""
  end
  return tostring(v)
end

return M
