// The card model: a real session against a golden file, the fallback hunks
// against the bridge's, token classes, plain ACP content.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, utimesSync, writeFileSync } from "node:fs";
import path from "node:path";
import { acp, here, start, waitFor, workspace } from "./helpers.mjs";

const GO = "package main\n\n// main greets.\nfunc main() {\n\tprintln(\"hi\")\n}\n";
const LIST = Array.from({ length: 20 }, (_, i) => `item ${i + 1}`).join("\n") + "\n";

test("a real session's cards match the golden model", async () => {
  const dir = workspace({ "main.go": GO, "list.txt": LIST });
  const pending = new Map();
  const { agent, host } = await start(dir, "cards.jsonl", (req) => {
    // glob lists by modification time, and the two writes can land in one
    // tick of the file system's clock: age the first file before the second
    // write runs, so the order the golden holds does not depend on timing.
    if (req.toolCallId === "write_2") utimesSync(path.join(dir, "notes", "new.txt"), 1e9, 1e9);
    pending.set(req.toolCallId, structuredClone(req.session.calls.get(req.toolCallId).dsh));
    req.respond(req.options.find((o) => o.kind === "allow_once").optionId);
  });
  let s;
  try {
    s = await agent.newSession(dir);
    // the session's notice follows session/new: first in the golden
    await waitFor(() => s.blocks[0]?.kind === "notice", 5000, "the session's notice");
    assert.equal(await agent.prompt(s, [{ type: "text", text: "every card" }]), "end_turn");
  } finally {
    await agent.dispose();
  }
  const model = s.blocks.map((b) =>
    b.kind === "tool" ? acp.cardView(b, (id) => ({ output: host.terminals.get(id).output.toString() }))
      : b.kind === "notice" ? { kind: b.kind, text: b.items.map((i) => (i.description ? `${i.title}: ${i.description}` : i.title)).join("\n") }
      : { kind: b.kind, text: b.text },
  );
  // the extension draws cards from _meta.dsh and says so in initialize: the
  // read's text came once, in the card; its standard content is a summary
  const readContent = JSON.stringify(s.calls.get("read_1").content);
  assert.ok(!readContent.includes("greets"), readContent);
  assert.match(readContent, /main\.go: lines 1-6 of 6\./);
  const text = JSON.stringify(model, null, 1).replaceAll(dir, "/WORKSPACE");
  const golden = path.join(here, "golden", "cards.json");
  if (process.env.DSH_UPDATE === "1") writeFileSync(golden, text + "\n");
  assert.equal(text + "\n", readFileSync(golden, "utf8"));

  // the fallback hunks (jsdiff) are the bridge's own
  let compared = 0;
  for (const [id, d] of pending) {
    if (d.card?.card !== "diff") continue;
    d.card.diffs.forEach((diff, i) => {
      const mine = acp.hunksOf(diff.oldText ?? "", diff.newText);
      const theirs = acp.cardView({ id, status: "pending", title: "", content: [], locations: [], dsh: { card: d.card, changes: d.changes } }).diff.files[i].hunks;
      assert.deepEqual(mine, theirs, id);
      compared++;
    });
  }
  assert.equal(compared, 3, "the edit, the new file and the rewrite");

  // chroma's tokens become colour classes
  const read = model.find((c) => c.id === "read_1");
  const pkg = read.read.lines[0];
  assert.equal(pkg.text, "package main");
  assert.deepEqual(pkg.spans[0], { s: 0, e: 7, c: "kw" });
});

test("token classes by longest prefix", () => {
  for (const [type, cls] of [
    ["KeywordDeclaration", "kw"],
    ["KeywordType", "type"],
    ["NameFunction", "fn"],
    ["LiteralStringDouble", "str"],
    ["LiteralNumberInteger", "num"],
    ["CommentSingle", "com"],
    ["CommentPreproc", "pre"],
    ["Name", undefined],
    ["Text", undefined],
  ])
    assert.equal(acp.tokenClass(type), cls, type);
});

test("plain ACP content without _meta.dsh, and unknown updates", () => {
  const s = new acp.SessionState("s", "/w");
  const seen = [];
  s.onChange((b) => seen.push(b?.kind ?? "header"));
  s.apply({ sessionUpdate: "tool_call", toolCallId: "t1", title: "Patch", kind: "edit", status: "pending", content: [{ type: "diff", path: "/w/a.txt", oldText: "x\ny\n", newText: "x\nz\n" }] });
  s.apply({ sessionUpdate: "hologram", data: 1 });
  s.apply({ sessionUpdate: "tool_call_update" });
  s.apply(null);
  s.apply({ sessionUpdate: "usage_update", used: 5300, size: 128000, cost: { amount: 0.0042, currency: "USD" } });
  s.apply({ sessionUpdate: "plan", entries: [{ content: "a", status: "completed", priority: "high" }] });
  s.apply({ sessionUpdate: "plan", entries: [{ content: "a", status: "completed", priority: "high" }, { content: "b", status: "pending", priority: "low" }] });
  const card = acp.cardView(s.calls.get("t1"));
  assert.equal(card.type, "diff");
  assert.deepEqual(card.diff.files[0].hunks[0].lines.map((l) => `${l.old ?? ""}|${l.new ?? ""}|${l.op}${l.text}`), ["1|1| x", "2||-y", "|2|+z"]);
  assert.ok(!s.blocks.some((b) => b.kind === "plan"), "the plan is pinned, not in the transcript");
  assert.equal(s.plans.size, 1, "a plan replaces the last one");
  assert.equal(s.plans.get("").entries.length, 2);
  assert.deepEqual(s.usage, { used: 5300, size: 128000, cost: { amount: 0.0042, currency: "USD" } });
  assert.deepEqual(seen, ["tool", "header", "header", "header"]);
});

test("packed tokens unpack to the same spans, and bad ones are left out", () => {
  const objects = [[{ start: 0, end: 7, type: "KeywordNamespace" }, { start: 8, end: 12, type: "NameOther" }], [], null, [{ start: 1, end: 5, type: "KeywordNamespace" }]];
  const packed = { lines: [[0, 7, 0, 1, 4, 1], [], null, [1, 4, 0]], types: ["KeywordNamespace", "NameOther"] };
  assert.deepEqual(acp.unpackTokens(packed), objects);
  const card = { card: "read", path: "/w/a.go", offset: 1, totalLines: 4, lines: ["package main", "", "", " package"].map((text, i) => ({ number: i + 1, text })) };
  const views = ["tokens", "packedTokens"].map((key) => {
    const s = new acp.SessionState("s", "/w");
    s.apply({ sessionUpdate: "tool_call", toolCallId: "r", title: "Read", kind: "read", status: "pending" });
    s.apply({ sessionUpdate: "tool_call_update", toolCallId: "r", status: "completed", _meta: { dsh: { version: 1, card } } });
    s.apply({ sessionUpdate: "tool_call_update", toolCallId: "r", _meta: { dsh: { version: 1, [key]: key === "tokens" ? objects : packed } } });
    return acp.cardView(s.calls.get("r"));
  });
  assert.deepEqual(views[1], views[0]);
  assert.deepEqual(views[1].read.lines[0].spans, [{ s: 0, e: 7, c: "kw" }]);
  // a line stops at its first bad triple; nothing throws
  for (const [bad, want] of [
    [{ lines: [[0, 2, 5]], types: ["Keyword"] }, [[]]], // no type 5
    [{ lines: [[0, 2, 0, -1, 2, 0]], types: ["Keyword"] }, [[{ start: 0, end: 2, type: "Keyword" }]]],
    [{ lines: [[0, 2, 0, 1, 2]], types: ["Keyword"] }, [[{ start: 0, end: 2, type: "Keyword" }]]], // a short triple
    [{ lines: ["x", 3, [0.5, 1, 0]], types: ["Keyword"] }, [null, null, []]],
    [{ lines: [[0, 1, 0]] }, undefined],
    ["junk", undefined],
  ])
    assert.deepEqual(acp.unpackTokens(bad), want, JSON.stringify(bad));
});

test("shellSpans classes a command's words", async (t) => {
  const cases = [
    ["a pipeline", "cat hello.txt | grep -n x", [["cat", "cmd"], ["|", "op"], ["grep", "cmd"]]],
    ["and, strings, variables", `echo "a b" 'c' $HOME && ls`, [["echo", "cmd"], [`"a b"`, "str"], ["'c'", "str"], ["$HOME", "var"], ["&&", "op"], ["ls", "cmd"]]],
    ["reserved words", "if true; then exit 1; fi", [["if", "kw"], ["true", "cmd"], [";", "op"], ["then", "kw"], ["exit", "cmd"], [";", "op"], ["fi", "kw"]]],
    ["an assignment, then the command", "GOOS=linux go build ./... # all", [["go", "cmd"], ["# all", "com"]]],
    ["a redirection is not a command", "echo x > out.txt", [["echo", "cmd"], [">", "op"]]],
  ];
  for (const [name, cmd, want] of cases)
    await t.test(name, () => {
      const got = acp.shellSpans(cmd).map((s) => [cmd.slice(s.s, s.e), s.c]);
      assert.deepEqual(got, want);
    });
});
