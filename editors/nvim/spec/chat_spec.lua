-- The chat transcript drawn from updates: streaming appends, cards that
-- change above streaming text, nested Code Mode cards.
local h = require("helpers")

local function feed(s, chat, updates)
  for _, u in ipairs(updates) do
    s:apply(u)
    chat:flush() -- one frame per update: every update takes the incremental path
  end
end

local function chunk(kind, text)
  return { sessionUpdate = kind, content = { type = "text", text = text } }
end

describe("the chat transcript", function()
  it("streams text across lines and keeps the blocks after it in place", function()
    local s = require("dsh.session").new("s")
    local chat = require("dsh.ui.chat").new(s, require("dsh.config").merge())
    feed(s, chat, {
      chunk("agent_thought_chunk", "think"),
      chunk("agent_thought_chunk", "ing\nmore"),
      chunk("agent_message_chunk", "Hello"),
      chunk("agent_message_chunk", " world\nsecond"),
      chunk("agent_message_chunk", " line\n"),
      chunk("agent_message_chunk", "third"),
      { sessionUpdate = "tool_call", toolCallId = "t1", title = "Run it", kind = "execute", status = "pending" },
      { sessionUpdate = "tool_call", toolCallId = "t1:code:1", title = "Read a.go", kind = "read", status = "pending",
        _meta = { dsh = { parentToolCallId = "t1" } } },
      chunk("agent_message_chunk", "after\nthe "),
      chunk("agent_message_chunk", "card"),
      { sessionUpdate = "tool_call_update", toolCallId = "t1", status = "completed",
        content = { { type = "content", content = { type = "text", text = "out 1\nout 2" } } } },
      chunk("agent_message_chunk", "!"),
    })
    assert.are.same({
      "▸ Thinking", "  thinking", "  more", "",
      "Hello world", "second line", "third", "",
      "✓ Run it", "out 1", "out 2", "",
      "    ○ Read a.go", "",
      "after", "the card!", "",
    }, vim.api.nvim_buf_get_lines(chat.buf, 0, -1, false))
    -- the same updates in one frame draw the same transcript
    local s2 = require("dsh.session").new("s2")
    for _, b in ipairs(s.blocks) do
      s2.blocks[#s2.blocks + 1] = b
    end
    local chat2 = require("dsh.ui.chat").new(s2, require("dsh.config").merge())
    chat2:flush()
    assert.are.same(vim.api.nvim_buf_get_lines(chat.buf, 0, -1, false),
      vim.api.nvim_buf_get_lines(chat2.buf, 0, -1, false))
    chat:destroy()
    chat2:destroy()
    assert.truthy(h)
  end)
end)
