// src/acp against the real dsh-bridge binary playing model scripts.
import { test } from "node:test";
import assert from "node:assert/strict";
import path from "node:path";
import { acp, bin, nodeHost, pids, read, start, waitFor, workspace } from "./helpers.mjs";

const allowOnce = (req) => req.respond(req.options.find((o) => o.kind === "allow_once").optionId);

test("initialize says the extension draws cards and asks for packed tokens", () => {
  assert.deepEqual(acp.CAPABILITIES._meta, { dsh: { version: 1, packedTokens: true } });
  assert.deepEqual(acp.CAPABILITIES.fs, { readTextFile: true, writeTextFile: true });
});

test("an edit approved from the card model", async () => {
  const dir = workspace({ "hello.txt": "hello world\n" });
  let seen;
  const { agent } = await start(dir, "edit.jsonl", (req) => {
    // the person sees the card (built from the updates) with its options
    const card = acp.cardView(req.session.calls.get(req.toolCallId));
    seen = card;
    req.respond(card.awaiting.find((o) => o.kind === "allow_once").optionId);
  });
  try {
    const s = await agent.newSession(dir);
    assert.equal(await agent.prompt(s, [{ type: "text", text: "greet ACP" }]), "end_turn");
    assert.equal(seen.type, "diff");
    assert.deepEqual(seen.awaiting.map((o) => o.kind), ["allow_once", "allow_always", "reject_once", "reject_always"]);
    // the "always" options say what they would remember (_meta.dsh.remembers)
    assert.deepEqual(seen.awaiting.map((o) => o.remembers), [undefined, ["every edit call"], undefined, ["every edit call"]]);
    // pending, the card is the file's change at its lines, as once applied
    assert.deepEqual(seen.diff.files[0].hunks[0].lines.map((l) => [l.op, l.old, l.new, l.text]), [["-", 1, undefined, "hello world"], ["+", undefined, 1, "hello ACP"]]);
    assert.equal(read(path.join(dir, "hello.txt")), "hello ACP\n");
    const done = acp.cardView(s.calls.get("edit_1"));
    assert.equal(done.status, "completed");
    assert.equal(done.awaiting, undefined);
    assert.equal(done.decision, "allow_once");
    const lines = done.diff.files[0].hunks[0].lines;
    assert.deepEqual(lines.map((l) => [l.op, l.old, l.new, l.text]), [["-", 1, undefined, "hello world"], ["+", undefined, 1, "hello ACP"]]);
    const last = s.blocks.at(-1);
    assert.equal(last.kind, "agent");
    assert.equal(last.text, "Done: hello.txt now greets ACP.");
  } finally {
    await agent.dispose();
  }
});

test("autoApprove answers the kinds it names, and only those", async () => {
  for (const [kinds, wantAsked] of [[["edit"], 0], [["read", "execute"], 1], [[], 1]]) {
    const dir = workspace({ "hello.txt": "hello world\n" });
    let asked = 0;
    const { agent } = await start(dir, "edit.jsonl", (req) => (asked++, allowOnce(req)), { autoApprove: kinds });
    try {
      const s = await agent.newSession(dir);
      assert.equal(await agent.prompt(s, [{ type: "text", text: "greet ACP" }]), "end_turn");
      assert.equal(asked, wantAsked, `autoApprove ${JSON.stringify(kinds)}: the person was asked ${asked} times`);
      assert.equal(s.calls.get("edit_1").decision, "allow_once");
      assert.equal(read(path.join(dir, "hello.txt")), "hello ACP\n");
    } finally {
      await agent.dispose();
    }
  }
});

test("a rejected edit leaves the file and fails the card", async () => {
  const dir = workspace({ "hello.txt": "hello world\n" });
  const { agent } = await start(dir, "reject.jsonl", (req) => req.respond(req.options.find((o) => o.kind === "reject_once").optionId));
  try {
    const s = await agent.newSession(dir);
    assert.equal(await agent.prompt(s, [{ type: "text", text: "edit" }]), "end_turn");
    assert.equal(read(path.join(dir, "hello.txt")), "hello world\n");
    assert.equal(s.calls.get("edit_1").status, "failed");
    assert.equal(s.blocks.at(-1).text, "Understood, I left it alone.");
  } finally {
    await agent.dispose();
  }
});

test("a terminal command: its output, exit status, released", async () => {
  const dir = workspace({});
  const { agent, host } = await start(dir, "command.jsonl", allowOnce);
  try {
    const s = await agent.newSession(dir);
    assert.equal(await agent.prompt(s, [{ type: "text", text: "print" }]), "end_turn");
    const call = s.calls.get("bash_1");
    assert.ok(call.terminalId, "the card names its terminal");
    const card = acp.cardView(call, (id) => ({ output: host.terminals.get(id).output.toString() }));
    assert.equal(card.type, "terminal");
    assert.match(card.terminal.output, /first\nsecond\n/);
    assert.match(card.terminal.output, /ünïcode/);
    assert.equal(card.terminal.exitCode, 0);
    assert.equal(host.terminals.get(call.terminalId).released, true);
    assert.doesNotMatch(s.blocks.at(-1).text, /model error/);
  } finally {
    await agent.dispose();
  }
});

test("cancel mid-command: the turn ends cancelled, no process is left", async () => {
  const dir = workspace({});
  const { agent, host } = await start(dir, "slow-command.jsonl", allowOnce);
  try {
    const s = await agent.newSession(dir);
    const turn = agent.prompt(s, [{ type: "text", text: "wait" }]);
    await waitFor(() => pids("^sleep 31.4159").length > 0, 10000, "the command");
    // the card shows the output while the command still runs
    const live = () => {
      const call = s.calls.get("bash_1");
      return call && acp.cardView(call, (id) => ({ output: host.terminals.get(id).output.toString() }));
    };
    await waitFor(() => live()?.terminal?.output?.includes("started"), 5000, "the live output");
    assert.equal(live().status, "in_progress");
    await agent.cancel(s);
    assert.equal(await turn, "cancelled");
    await waitFor(() => pids("^sleep 31.4159").length === 0, 5000, "no sleep left");
    assert.notEqual(s.calls.get("bash_1").status, "in_progress");
    // stopped, not failed: the output as it was, no fence, no raw error
    const v = live();
    assert.equal(v.status, "cancelled");
    assert.equal(v.terminal.stopped, true);
    assert.match(v.terminal.output, /started/);
    assert.doesNotMatch(v.text ?? "", /```|command aborted/);
  } finally {
    await agent.dispose();
  }
});

test("cancel while a permission is open answers it cancelled", async () => {
  const dir = workspace({ "hello.txt": "hello world\n" });
  let pending;
  const { agent } = await start(dir, "edit.jsonl", (req) => (pending = req));
  try {
    const s = await agent.newSession(dir);
    const turn = agent.prompt(s, [{ type: "text", text: "edit" }]);
    await waitFor(() => pending !== undefined, 10000, "the request");
    assert.ok(s.calls.get("edit_1").permission);
    await agent.cancel(s);
    assert.equal(await turn, "cancelled");
    assert.equal(s.calls.get("edit_1").permission, undefined);
    assert.equal(read(path.join(dir, "hello.txt")), "hello world\n");
  } finally {
    await agent.dispose();
  }
});

test("session/load replays the same cards", async () => {
  const dir = workspace({ "hello.txt": "hello world\n" });
  const first = await start(dir, "edit.jsonl", allowOnce);
  let id, live;
  try {
    const s = await first.agent.newSession(dir);
    id = s.id;
    await first.agent.prompt(s, [{ type: "text", text: "greet ACP" }]);
    // the decision is this client's memory, not the agent's: a replay has none
    live = s.blocks.filter((b) => b.kind !== "notice").map((b) => (b.kind === "tool" ? { ...acp.cardView(b), decision: undefined } : { kind: b.kind, text: b.text }));
  } finally {
    await first.agent.dispose();
  }
  const second = await start(dir, "edit.jsonl", allowOnce);
  try {
    const list = await second.agent.listSessions(dir);
    assert.ok(list.some((x) => x.sessionId === id));
    const s = await second.agent.loadSession(id, dir);
    const replay = s.blocks.filter((b) => b.kind !== "notice").map((b) => (b.kind === "tool" ? acp.cardView(b) : { kind: b.kind, text: b.text }));
    // the live turn has no user block (the UI adds it); the replay has it
    assert.equal(replay[0].kind, "user");
    assert.deepEqual(replay.slice(1), live);
  } finally {
    await second.agent.dispose();
  }
});

test("a todo_write plan arrives as plan_update, is pinned by id, and comes back on session/load", async () => {
  assert.deepEqual(acp.CAPABILITIES.plan, {}, "the extension takes plan operations");
  const dir = workspace({});
  const first = await start(dir, "plan.jsonl", allowOnce);
  let id;
  const want = [
    { content: "Read the code", status: "completed", priority: "high" },
    { content: "Change it", status: "in_progress", priority: "medium" },
    { content: "Run the tests", status: "pending", priority: "low" },
  ];
  try {
    const s = await first.agent.newSession(dir);
    id = s.id;
    assert.equal(await first.agent.prompt(s, [{ type: "text", text: "plan it" }]), "end_turn");
    // "todo" is the bridge's one plan id (bridge/plan.go planID)
    assert.deepEqual([...s.plans.keys()], ["todo"]);
    assert.deepEqual(s.plans.get("todo").entries, want);
    assert.ok(!s.blocks.some((b) => b.kind === "plan"), "the plan is pinned, not in the transcript");
    const h = acp.headerView(s, [], acp.chatItems([s]));
    assert.deepEqual(h.plans.map((p) => [p.id, p.entries.map((e) => e.status)]), [["todo", ["completed", "in_progress", "pending"]]]);
  } finally {
    await first.agent.dispose();
  }
  const second = await start(dir, "plan.jsonl", allowOnce);
  try {
    const s = await second.agent.loadSession(id, dir);
    assert.deepEqual(s.plans.get("todo")?.entries, want, "the replay brings the plan back");
  } finally {
    await second.agent.dispose();
  }
});

test("the agent's slash commands reach the header, with their input hints", async () => {
  const dir = workspace({});
  const { agent } = await start(dir, "plan.jsonl", allowOnce);
  try {
    const s = await agent.newSession(dir);
    await waitFor(() => s.commands.length > 0, 10000, "available_commands_update");
    const cmds = acp.headerView(s, [], []).commands;
    const by = Object.fromEntries(cmds.map((c) => [c.name, c]));
    for (const name of ["compact", "clear", "cost", "mode", "model", "review", "init"]) assert.ok(by[name], `/${name} is advertised: ${cmds.map((c) => c.name)}`);
    assert.equal(by.mode.hint, "default | acceptEdits | plan | bypassPermissions");
    assert.equal(by.compact.hint, undefined, "a command that takes nothing has no hint");
    assert.deepEqual(acp.slashMatches(cmds, "co").map((c) => c.name).slice(0, 2).sort(), ["compact", "cost"]);
  } finally {
    await agent.dispose();
  }
});

test("without a key session/new is SignInRequired, with the terminal method's args", async () => {
  const dir = workspace({});
  const cfg = workspace({});
  const host = nodeHost(dir);
  const agent = await acp.AgentConnection.start({
    command: bin(),
    args: [],
    env: { ...process.env, DSH_API_KEY: "", DEEPSEEK_API_KEY: "", OPENAI_API_KEY: "", DSH_MODEL: "", DSH_KEYCHAIN: "off", XDG_CONFIG_HOME: cfg, DSH_STATE_DIR: path.join(dir, ".state"), TMPDIR: "/tmp" },
    cwd: dir,
    host,
    decide: () => {},
  });
  try {
    assert.deepEqual(acp.CAPABILITIES.auth, { terminal: true });
    assert.deepEqual(agent.authMethods.map((m) => m.id), ["dsh-login", "dsh-api-key"]);
    await assert.rejects(agent.newSession(dir), (err) => {
      assert.ok(err instanceof acp.SignInRequired, String(err));
      assert.deepEqual(err.terminalArgs, ["login"]);
      assert.match(err.message, /dsh-bridge login/);
      return true;
    });
  } finally {
    await agent.dispose(500);
  }
});
