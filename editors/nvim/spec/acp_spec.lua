-- dsh.acp: NDJSON framing, request/response matching, agent requests and
-- their errors, the agent's exit.
local h = require("helpers")
local acp = require("dsh.acp")

-- an "agent" that is a shell script: what it prints is the wire.
local function sh(script)
  return assert(acp.spawn({ cmd = { "sh", "-c", script } }))
end

describe("the ACP connection", function()
  it("joins lines split across reads and splits reads holding several", function()
    local conn = sh([[printf '{"jsonrpc":"2.0","method":"a/b","params":{"n":1}}\n{"jsonrpc":"2.0","met'; sleep 0.2;]]
      .. [[ printf 'hod":"a/b","params":{"n":2}}\n\n{"jsonrpc":"2.0","method":"a/b","params":{"n":3}}\r\n'; sleep 5]])
    local got = {}
    conn:on("a/b", function(p)
      got[#got + 1] = p.n
    end)
    h.wait(function()
      return #got == 3
    end, 5000, "three notifications")
    assert.are.same({ 1, 2, 3 }, got)
    conn:stop(100)
  end)

  it("answers agent requests: results, {} for nil, -32601 and -32603", function()
    local conn = sh("sleep 5")
    local sent = {}
    conn._send = function(_, msg)
      sent[#sent + 1] = msg
      return true
    end
    conn:handle("x/ok", function(p, reply)
      reply({ echo = p.v })
    end)
    conn:handle("x/empty", function(_, reply)
      reply(nil)
    end)
    conn:handle("x/boom", function()
      error("kaput")
    end)
    conn:handle("x/twice", function(_, reply)
      reply({ n = 1 })
      reply({ n = 2 })
    end)
    conn:_dispatch({ jsonrpc = "2.0", id = 1, method = "x/ok", params = { v = "hi" } })
    conn:_dispatch({ jsonrpc = "2.0", id = "s", method = "x/empty" })
    conn:_dispatch({ jsonrpc = "2.0", id = 3, method = "x/boom", params = {} })
    conn:_dispatch({ jsonrpc = "2.0", id = 4, method = "x/unknown", params = {} })
    conn:_dispatch({ jsonrpc = "2.0", id = 5, method = "x/twice", params = {} })
    assert.are.same({ echo = "hi" }, sent[1].result)
    assert.are.equal("s", sent[2].id)
    assert.are.equal("{}", vim.json.encode(sent[2].result))
    assert.are.equal(-32603, sent[3].error.code)
    assert.truthy(sent[3].error.message:find("kaput", 1, true))
    assert.are.equal(-32601, sent[4].error.code)
    assert.are.same({ n = 1 }, sent[5].result)
    assert.are.equal(5, #sent, "a second reply is dropped")
    conn:stop(100)
  end)

  it("matches responses to requests and fails the open ones when the agent exits", function()
    local conn = assert(acp.spawn({ cmd = { h.bin }, env = { DSH_STATE_DIR = vim.fn.tempname() } }))
    local r, err = conn:request_sync("initialize", { protocolVersion = 1, clientCapabilities = acp.EMPTY })
    assert.is_nil(err)
    assert.are.equal(1, r.protocolVersion)
    local _, e2 = conn:request_sync("no/such_method", {})
    assert.are.equal(-32601, e2.code)
    -- empty params go out as {} (never [], which the agent would refuse)
    local list, e3 = conn:request_sync("session/list", {})
    assert.is_nil(e3)
    assert.are.same({}, list.sessions)
    local late
    conn:request("session/list", {}, function(res, e)
      late = res or e
    end)
    conn:stop(100)
    h.wait(function()
      return late ~= nil and not conn:alive()
    end, 5000, "the exit")
    local after
    conn:request("initialize", {}, function(_, e)
      after = e
    end)
    h.wait(function()
      return after ~= nil
    end, 1000, "the refusal")
    assert.are.equal(-32000, after.code)
  end)

  it("says it draws cards, and asks for packed tokens", function()
    local caps = require("dsh.agent").capabilities()
    assert.are.same({ dsh = { version = 1, packedTokens = true } }, caps._meta)
    assert.are.same({ readTextFile = true, writeTextFile = true }, caps.fs)
  end)

  it("reports a program that cannot start", function()
    local conn, err = acp.spawn({ cmd = { "/nonexistent/dsh-bridge" } })
    assert.is_nil(conn)
    assert.truthy(err:find("cannot start", 1, true))
  end)
end)
