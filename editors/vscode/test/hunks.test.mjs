// Choosing hunks of a proposal: what a request offers, the choice, the
// answer it makes, and a real session that applies the hunk accepted.
import { test } from "node:test";
import assert from "node:assert/strict";
import path from "node:path";
import { acp, read, start, workspace } from "./helpers.mjs";

const LIST = Array.from({ length: 20 }, (_, i) => `l${i + 1}\n`).join("");
const OPTIONS = [
  { optionId: "allow_once", name: "Allow once", kind: "allow_once" },
  { optionId: "reject_once", name: "Reject", kind: "reject_once" },
];
// a call as the session folds it: two hunks in its changes, the request offering 2
const hunk = (oldStart, newStart, lines) => ({ oldStart, oldLines: 3, newStart, newLines: 3, lines });
const call = (offered, changes) => ({
  dsh: { changes },
  permission: { options: OPTIONS, hunks: offered, respond() {} },
});
const TWO = [
  {
    path: "/w/a.txt",
    hunks: [
      hunk(1, 1, [{ op: " ", text: "l1\n" }, { op: "-", text: "l2\n" }, { op: "+", text: "L2\n" }, { op: " ", text: "l3\n" }]),
      hunk(11, 11, [{ op: " ", text: "l11\n" }, { op: " ", text: "l12\n" }, { op: "-", text: "l13\n" }]),
    ],
  },
];

test("offeredHunks: the request's hunks, anchored on the proposed side", async (t) => {
  for (const [name, c, want] of [
    ["two offered", call(2, TWO), [{ index: 0, anchor: 1, added: 1, removed: 1 }, { index: 1, anchor: 12, added: 0, removed: 1 }]],
    ["none offered", call(undefined, TWO), []],
    ["a count that is not the card's", call(3, TWO), []],
    ["hunks across entries", call(2, [{ hunks: [TWO[0].hunks[0]] }, { hunks: [TWO[0].hunks[1]] }]), [{ index: 0, anchor: 1 }, { index: 1, anchor: 12 }]],
    ["no request", { dsh: { changes: TWO } }, []],
  ])
    await t.test(name, () => {
      const got = acp.offeredHunks(c).map((h) => Object.fromEntries(Object.keys(want[0] ?? {}).map((k) => [k, h[k]])));
      assert.deepEqual(got, want);
    });
  assert.equal(acp.offeredHunks(call(2, TWO))[0].header, "@@ -1,3 +1,3 @@");
});

test("answerFor: some hunks, all, none", async (t) => {
  const req = { options: OPTIONS };
  for (const [name, rejected, want] of [
    ["all accepted: the whole call", [], { optionId: "allow_once" }],
    ["one rejected: the other only", [0], { optionId: "allow_once", hunks: [1, 2] }],
    ["two rejected", [2, 0], { optionId: "allow_once", hunks: [1] }],
    ["all rejected: a rejection", [0, 1, 2], { optionId: "reject_once" }],
  ])
    await t.test(name, () => {
      const choice = new acp.HunkChoice(3);
      for (const i of rejected) choice.set(i, false);
      assert.deepEqual(acp.answerFor(req, choice), want);
    });
  const choice = new acp.HunkChoice(2);
  choice.toggle(1);
  choice.set(7, false); // out of range: ignored
  assert.deepEqual(choice.selection(), [0]);
  assert.equal(choice.summary(), "1 of 2 hunks accepted, 1 rejected");
  choice.toggle(1);
  assert.deepEqual(choice.selection(), [0, 1]);
  assert.equal(acp.answerFor({ options: [OPTIONS[1]] }, new acp.HunkChoice(1)), undefined, "no allowing option");
});

test("the card marks the hunks rejected so far", () => {
  const s = new acp.SessionState("s");
  s.apply({ sessionUpdate: "tool_call", toolCallId: "e", title: "Edit a.txt", kind: "edit", status: "pending", _meta: { dsh: { version: 1, card: { card: "diff", title: "Edit a.txt", diffs: [] }, changes: TWO } } });
  s.askPermission({ session: s, toolCallId: "e", options: OPTIONS, hunks: 2, respond() {} });
  s.chooseHunks("e", [1]);
  const v = acp.cardView(s.calls.get("e"));
  assert.deepEqual(v.diff.files[0].hunks.map((h) => !!h.rejected), [false, true]);
});

test("a real session: the second hunk accepted, the file has exactly it", async () => {
  const dir = workspace({ "list.txt": LIST });
  let offered;
  const { agent } = await start(dir, "hunks.jsonl", (req) => {
    offered = acp.offeredHunks(req.session.calls.get(req.toolCallId));
    const choice = new acp.HunkChoice(offered.length);
    choice.set(0, false);
    const a = acp.answerFor(req, choice);
    req.respond(a.optionId, a.hunks);
  });
  try {
    const s = await agent.newSession(dir);
    assert.equal(await agent.prompt(s, [{ type: "text", text: "change two lines" }]), "end_turn");
    assert.equal(offered.length, 2, "the request offers the two hunks");
    assert.equal(read(path.join(dir, "list.txt")), LIST.replace("l15\n", "L15\n"));
    assert.equal(s.calls.get("edit_1").status, "completed");
    assert.equal(s.blocks.at(-1).text, "Only the second line changed.");
  } finally {
    await agent.dispose();
  }
});
