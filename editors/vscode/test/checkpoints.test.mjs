// Checkpoints in the chat: which user messages "Restore checkpoint"
// rewinds to, the changed-files list (after edits, a rewind, a load), a
// file's text before the session, and the rewind against the real
// binary (its errors change nothing).
import { test } from "node:test";
import assert from "node:assert/strict";
import path from "node:path";
import { acp, read, start, workspace } from "./helpers.mjs";

const allowOnce = (req) => req.respond(req.options.find((o) => o.kind === "allow_once")?.optionId);

/** A session's blocks from a list of user texts and calls. */
function session(steps) {
  const s = new acp.SessionState("s", "/w");
  for (const st of steps) {
    if (st.user !== undefined) s.add({ kind: "user", text: st.user, messageId: st.id, input: st.user });
    else if (st.agent !== undefined) s.apply({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: st.agent } });
    else
      s.apply({ sessionUpdate: "tool_call", toolCallId: st.call, title: st.call, kind: "edit", status: st.status ?? "completed",
        content: st.diffs.map((d) => ({ type: "diff", path: d.path, oldText: d.oldText, newText: d.newText })) });
  }
  return s;
}

const A = { path: "/w/a.txt", oldText: "one\nalpha\n", newText: "one\nALPHA\n" };
const A2 = { path: "/w/a.txt", oldText: "ALPHA\n", newText: "ALPHA\nmore\n" };
const B = { path: "/w/b.txt", oldText: "beta\n", newText: "BETA\n" };
const C = { path: "/w/c.txt", oldText: null, newText: "gamma\n" };

test("changedFiles, firstChangeTurn and rewindScope", async (t) => {
  const cases = [
    { name: "no change", steps: [{ user: "hi", id: "m1" }, { agent: "hello" }], files: [], first: undefined },
    { name: "a read-only turn, then edits", steps: [{ user: "look", id: "m1" }, { agent: "ok" }, { user: "fix", id: "m2" }, { call: "e1", diffs: [A] }, { call: "e2", diffs: [A2, B] }],
      files: [{ path: "/w/a.txt", added: 2, removed: 1, created: false }, { path: "/w/b.txt", added: 1, removed: 1, created: false }], first: "m2" },
    { name: "a rejected or failed call changed nothing", steps: [{ user: "fix", id: "m1" }, { call: "e1", status: "failed", diffs: [A] }, { call: "e2", status: "pending", diffs: [B] }],
      files: [], first: undefined },
    { name: "a created file", steps: [{ user: "new", id: "m1" }, { call: "w1", diffs: [C] }], files: [{ path: "/w/c.txt", added: 1, removed: 0, created: true }], first: "m1" },
    { name: "a turn whose message has no id cannot be undone", steps: [{ user: "fix" }, { call: "e1", diffs: [A] }], files: [{ path: "/w/a.txt", added: 1, removed: 1, created: false }], first: undefined },
  ];
  for (const c of cases)
    await t.test(c.name, () => {
      const s = session(c.steps);
      assert.deepEqual(acp.changedFiles(s.blocks, "/w"), c.files);
      assert.equal(acp.firstChangeTurn(s.blocks, "/w")?.messageId, c.first);
      assert.equal(acp.changesView(s, true)?.undoAll ?? false, c.first !== undefined);
      assert.equal(acp.changesView(s, false)?.undoAll ?? false, false, "an agent that cannot rewind offers no Undo all");
    });
  await t.test("rewindScope: the turns dropped and their files; confirmText names them", () => {
    const s = session([{ user: "one", id: "m1" }, { call: "e1", diffs: [A] }, { user: "two", id: "m2" }, { call: "e2", diffs: [B] }, { user: "three", id: "m3" }]);
    const at = s.blocks.findIndex((b) => b.messageId === "m2");
    assert.deepEqual(acp.rewindScope(s.blocks, at), { turns: 2, files: ["/w/b.txt"] });
    assert.equal(acp.confirmText("two", acp.rewindScope(s.blocks, at), acp.relativeTo("/w")),
      'Restore the checkpoint before "two"? It removes this turn and the 1 after it from the chat. Files put back: b.txt.');
  });
  await t.test("Restore checkpoint is offered on user messages with an id, when the agent rewinds", () => {
    const s = session([{ user: "one", id: "m1" }, { agent: "x" }, { user: "two" }]);
    const views = s.blocks.map((b) => acp.blockView(b, () => undefined, true).restorable ?? false);
    assert.deepEqual(views, [true, false, false]);
    assert.deepEqual(s.blocks.map((b) => acp.blockView(b, () => undefined, false).restorable ?? false), [false, false, false]);
  });
});

test("beforeSession rebuilds a file's text from the cards", async (t) => {
  const cases = [
    { name: "an excerpt undone in the file", steps: [{ call: "e1", diffs: [A] }], path: A.path, now: "zero\none\nALPHA\nend\n", want: "zero\none\nalpha\nend\n" },
    { name: "two edits, newest first", steps: [{ call: "e1", diffs: [A] }, { call: "e2", diffs: [A2] }], path: A.path, now: "one\nALPHA\nmore\n", want: "one\nalpha\n" },
    { name: "a created file did not exist", steps: [{ call: "w1", diffs: [C] }], path: C.path, now: "gamma\n", want: null },
    { name: "a file changed since in a way the cards do not show", steps: [{ call: "e1", diffs: [B] }], path: B.path, now: "something else\n", want: undefined },
    { name: "an excerpt found twice is not guessed", steps: [{ call: "e1", diffs: [B] }], path: B.path, now: "BETA\nBETA\n", want: undefined },
    { name: "a file the session did not change is as it is", steps: [{ call: "e1", diffs: [B] }], path: "/w/other", now: "x", want: "x" },
  ];
  for (const c of cases)
    await t.test(c.name, () => assert.deepEqual(acp.beforeSession(session([{ user: "u", id: "m" }, ...c.steps]).blocks, c.path, c.now), c.want));
});

/** prompt sends a prompt the way the controller does: the user block first. */
async function prompt(agent, s, text) {
  s.add({ kind: "user", text, input: text });
  return agent.prompt(s, [{ type: "text", text }]);
}

test("rewind with the real binary: a restore, an error that changes nothing, a load, Undo all", async () => {
  const BEFORE = { "a.txt": "one\nalpha\n", "b.txt": "beta\n" };
  const dir = workspace(BEFORE);
  const file = (n) => path.join(dir, n);
  const first = await start(dir, "checkpoints.jsonl", allowOnce);
  let id;
  try {
    assert.equal(first.agent.rewindMethod, "_dsh/session/rewind", "advertised with a session store");
    const s = await first.agent.newSession(dir);
    id = s.id;
    assert.equal(await prompt(first.agent, s, "edit a"), "end_turn");
    const [u1] = s.blocks.filter((b) => b.kind === "user");
    assert.match(u1.messageId ?? "", /^msg_/, "the answer names the user message");
    await prompt(first.agent, s, "edit b and c");
    assert.deepEqual(acp.changedFiles(s.blocks, dir).map((f) => [path.basename(f.path), f.added, f.removed, f.created]),
      [["a.txt", 1, 1, false], ["b.txt", 1, 1, false], ["c.txt", 2, 0, true]]);
    assert.equal(acp.firstChangeTurn(s.blocks, dir), u1);
    assert.equal(acp.beforeSession(s.blocks, file("a.txt"), read(file("a.txt")), dir), BEFORE["a.txt"]);
    assert.equal(acp.beforeSession(s.blocks, file("c.txt"), read(file("c.txt")), dir), null);

    // an unknown id: refused, nothing changes
    const blocks = s.blocks.length;
    await assert.rejects(first.agent.rewind(s, "msg_nope"), /no message/);
    assert.equal(s.blocks.length, blocks);
    assert.equal(read(file("b.txt")), "BETA\n");
    assert.equal(s.running, false);

    // restore the second message's checkpoint: b and c go back, a stays
    const at = s.blocks.findIndex((b) => b.kind === "user" && b.text === "edit b and c");
    const r = await first.agent.rewind(s, s.blocks[at].messageId);
    assert.deepEqual(r.restored.map((p) => path.basename(p)).sort(), ["b.txt", "c.txt"]);
    s.cut(at);
    assert.equal(read(file("b.txt")), BEFORE["b.txt"]);
    assert.equal(read(file("c.txt")), undefined, "the created file is gone");
    assert.equal(read(file("a.txt")), "one\nALPHA\n");
    assert.deepEqual(acp.changedFiles(s.blocks, dir).map((f) => path.basename(f.path)), ["a.txt"]);
    assert.ok(!s.blocks.some((b) => b.kind === "agent" && /b\.txt and c\.txt done/.test(b.text)), "the cut turn left the chat");
    assert.ok(!s.calls.has("edit_b") && s.calls.has("edit_a"));
  } finally {
    await first.agent.dispose();
  }
  // a load replays the rewound history: the list is what is left
  const second = await start(dir, "checkpoints.jsonl", allowOnce);
  try {
    const s = await second.agent.loadSession(id, dir);
    assert.deepEqual(s.blocks.filter((b) => b.kind === "user").map((b) => b.text), ["edit a"]);
    assert.deepEqual(acp.changedFiles(s.blocks, dir).map((f) => [path.basename(f.path), f.added, f.removed]), [["a.txt", 1, 1]]);
    const u = acp.firstChangeTurn(s.blocks, dir);
    assert.ok(u, "a replayed user message has its id: Undo all can rewind");
    assert.equal(acp.changesView(s, true).undoAll, true);
    // Undo all: to before the first turn that changed a file
    const r = await second.agent.rewind(s, u.messageId);
    assert.deepEqual(r.restored.map((p) => path.basename(p)), ["a.txt"]);
    s.cut(s.blocks.indexOf(u));
    assert.equal(read(file("a.txt")), BEFORE["a.txt"], "back to the byte");
    assert.equal(acp.changesView(s, true), undefined);
  } finally {
    await second.agent.dispose();
  }
});

test("a rewind while a turn runs is refused and leaves the turn running", async () => {
  const dir = workspace({});
  const { agent } = await start(dir, "slow-command.jsonl", allowOnce);
  try {
    const s = await agent.newSession(dir);
    s.add({ kind: "user", text: "old", messageId: "msg_old" });
    const turn = prompt(agent, s, "slow");
    await new Promise((resolve) => {
      const off = s.onChange(() => [...s.calls.values()].some((c) => c.status === "in_progress") && (off(), resolve()));
    });
    await assert.rejects(agent.rewind(s, "msg_old"));
    assert.equal(s.running, true, "the turn still runs");
    await agent.cancel(s);
    await turn;
  } finally {
    await agent.dispose();
  }
});
