-- dsh.fs: fs/read_text_file and fs/write_text_file against buffers and files.
local h = require("helpers")
local fs = require("dsh.fs")

describe("fs/read_text_file", function()
  after_each(function()
    vim.cmd("silent! %bwipeout!")
  end)

  it("reads a loaded buffer's unsaved text, honouring line and limit", function()
    local dir = h.workspace({ ["a.txt"] = "one\ntwo\nthree\n" })
    vim.cmd("edit " .. dir .. "/a.txt")
    vim.api.nvim_buf_set_lines(0, 1, 2, false, { "TWO (unsaved)" })
    for _, tc in ipairs({
      { name = "whole", p = {}, want = "one\nTWO (unsaved)\nthree\n" },
      { name = "from line 2", p = { line = 2 }, want = "TWO (unsaved)\nthree\n" },
      { name = "line 2, limit 1", p = { line = 2, limit = 1 }, want = "TWO (unsaved)\n" },
      { name = "limit 0", p = { line = 1, limit = 0 }, want = "" },
      { name = "past the end", p = { line = 9 }, want = "" },
    }) do
      local r, err = fs.read(vim.tbl_extend("force", { path = dir .. "/a.txt" }, tc.p))
      assert.is_nil(err, tc.name)
      assert.are.equal(tc.want, r.content, tc.name)
    end
  end)

  it("reads through a symlink to a loaded buffer", function()
    local dir = h.workspace({ ["a.txt"] = "disk\n" })
    vim.loop.fs_symlink(dir .. "/a.txt", dir .. "/link.txt")
    vim.cmd("edit " .. dir .. "/a.txt")
    vim.api.nvim_buf_set_lines(0, 0, -1, false, { "buffer" })
    assert.are.equal("buffer\n", fs.read({ path = dir .. "/link.txt" }).content)
  end)

  it("keeps a buffer without a final newline as it is", function()
    local dir = h.workspace({ ["a.txt"] = "no newline" })
    vim.cmd("edit " .. dir .. "/a.txt")
    vim.bo.fixeol = false
    assert.are.equal("no newline", fs.read({ path = dir .. "/a.txt" }).content)
  end)

  it("reads a file that no buffer shows from disk", function()
    local dir = h.workspace({ ["b.txt"] = "1\n2\n3" })
    assert.are.equal("2\n3", fs.read({ path = dir .. "/b.txt", line = 2 }).content)
  end)

  it("answers errors for bad requests", function()
    local dir = h.workspace({})
    for _, tc in ipairs({
      { name = "relative path", p = { path = "a.txt" }, code = fs.INVALID },
      { name = "no path", p = {}, code = fs.INVALID },
      { name = "missing file", p = { path = dir .. "/nope.txt" }, code = fs.NOT_FOUND },
      { name = "negative line", p = { path = dir .. "/x", line = -1 }, code = fs.INVALID },
      { name = "fractional limit", p = { path = dir .. "/x", limit = 1.5 }, code = fs.INVALID },
    }) do
      local r, err = fs.read(tc.p)
      assert.is_nil(r, tc.name)
      assert.are.equal(tc.code, err.code, tc.name)
      assert.are.equal("string", type(err.message), tc.name)
    end
  end)
end)

describe("fs/write_text_file", function()
  after_each(function()
    vim.cmd("silent! %bwipeout!")
  end)

  it("replaces a loaded buffer's lines in one undo step and writes it", function()
    local dir = h.workspace({ ["a.txt"] = "old 1\nold 2\n" })
    vim.cmd("edit " .. dir .. "/a.txt")
    local b = vim.api.nvim_get_current_buf()
    vim.api.nvim_buf_set_lines(b, 0, 1, false, { "edited by hand" })
    local r, err = fs.write({ path = dir .. "/a.txt", content = "new 1\nnew 2\nnew 3\n" })
    assert.is_nil(err)
    assert.are.same(vim.empty_dict(), r)
    assert.are.same({ "new 1", "new 2", "new 3" }, vim.api.nvim_buf_get_lines(b, 0, -1, false))
    assert.is_false(vim.bo[b].modified)
    assert.are.equal("new 1\nnew 2\nnew 3\n", h.read(dir .. "/a.txt"))
    vim.cmd("silent undo")
    assert.are.same({ "edited by hand", "old 2" }, vim.api.nvim_buf_get_lines(b, 0, -1, false))
  end)

  it("keeps a missing final newline missing", function()
    local dir = h.workspace({ ["a.txt"] = "x\n" })
    vim.cmd("edit " .. dir .. "/a.txt")
    assert.is_nil(select(2, fs.write({ path = dir .. "/a.txt", content = "no newline" })))
    assert.are.equal("no newline", h.read(dir .. "/a.txt"))
  end)

  it("writes a file no buffer shows, creating its folders", function()
    local dir = h.workspace({})
    assert.is_nil(select(2, fs.write({ path = dir .. "/new/deep/c.txt", content = "made\n" })))
    assert.are.equal("made\n", h.read(dir .. "/new/deep/c.txt"))
  end)

  it("refuses bad requests", function()
    local dir = h.workspace({})
    local _, e1 = fs.write({ path = "rel.txt", content = "x" })
    assert.are.equal(fs.INVALID, e1.code)
    local _, e2 = fs.write({ path = dir .. "/a.txt", content = 42 })
    assert.are.equal(fs.INVALID, e2.code)
    assert.is_nil(h.read(dir .. "/a.txt"))
  end)
end)
