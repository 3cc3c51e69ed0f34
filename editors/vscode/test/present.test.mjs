// The state beside the transcript (plans, commands, titles, notices) and
// what the page is sent of it; the prompt box's completions; times.
import { test } from "node:test";
import assert from "node:assert/strict";
import path from "node:path";
import { acp, bin } from "./helpers.mjs";

test("plan updates: v1 plan, plan_update by id (items, Markdown), plan_removed", () => {
  const s = new acp.SessionState("s", "/w");
  let headers = 0;
  s.onChange((b) => b === null && headers++);
  s.apply({ sessionUpdate: "plan", entries: [{ content: "a", status: "completed", priority: "high" }, { content: 7 }, { content: "b", status: "bogus" }] });
  assert.deepEqual(s.plans.get("").entries, [{ content: "a", status: "completed", priority: "high" }, { content: "b", status: "pending", priority: "medium" }]);
  s.apply({ sessionUpdate: "plan", entries: [] });
  assert.equal(s.plans.size, 0, "an empty plan ends it");
  s.apply({ sessionUpdate: "plan_update", plan: { type: "items", planId: "p1", entries: [{ content: "x", status: "in_progress", priority: "low" }] } });
  s.apply({ sessionUpdate: "plan_update", plan: { type: "markdown", planId: "p2", content: "# Steps\n1. x" } });
  s.apply({ sessionUpdate: "plan_update", plan: { type: "hologram", planId: "p3" } });
  s.apply({ sessionUpdate: "plan_update", plan: { type: "items", entries: [] } });
  assert.deepEqual([...s.plans.keys()], ["p1", "p2"]);
  s.apply({ sessionUpdate: "plan_update", plan: { type: "items", planId: "p1", entries: [{ content: "x", status: "completed", priority: "low" }] } });
  assert.equal(s.plans.get("p1").entries[0].status, "completed", "an update replaces the plan of its id");
  assert.equal(s.plans.get("p2").markdown, "# Steps\n1. x");
  s.apply({ sessionUpdate: "plan_removed", planId: "p1" });
  const h = acp.headerView(s, [], []);
  assert.deepEqual(h.plans.map((p) => p.id), ["p2"]);
  assert.equal(headers, 6);
});

test("session_info_update names the chat: in the header's chat list; null clears it", () => {
  const s = new acp.SessionState("sess-0123456789", "/w");
  const other = new acp.SessionState("other-abcdef", "/w");
  assert.equal(acp.chatTitle(s), "Chat 456789");
  s.apply({ sessionUpdate: "session_info_update", title: "Fix the flaky test", updatedAt: "2026-12-07T10:00:00Z" });
  assert.equal(s.title, "Fix the flaky test");
  assert.equal(s.updatedAt, "2026-12-07T10:00:00Z");
  s.apply({ sessionUpdate: "session_info_update", updatedAt: "2026-12-07T11:00:00Z" });
  assert.equal(s.title, "Fix the flaky test", "a partial update keeps the title");
  const h = acp.headerView(s, [], acp.chatItems([s, other]));
  assert.deepEqual(h.chats, [{ id: "sess-0123456789", title: "Fix the flaky test" }, { id: "other-abcdef", title: "Chat abcdef" }]);
  assert.equal(h.title, "Fix the flaky test");
  s.apply({ sessionUpdate: "session_info_update", title: null });
  assert.equal(acp.chatTitle(s), "Chat 456789");
});

test("notices in a row are one block, its severity the worst", () => {
  const s = new acp.SessionState("s", "/w");
  s.apply({ sessionUpdate: "notice", severity: "info", title: "Commands run in a sandbox", description: "writes confined to the workspace" });
  s.apply({ sessionUpdate: "notice", severity: "warning", title: "PATH has a workspace folder", description: ".venv/bin" });
  s.add({ kind: "user", text: "hi" });
  s.notice("info", "turn ended: cancelled");
  const notices = s.blocks.filter((b) => b.kind === "notice");
  assert.equal(notices.length, 2);
  const v = acp.blockView(notices[0], () => undefined);
  assert.equal(v.severity, "warning");
  assert.equal(v.text, "Commands run in a sandbox · PATH has a workspace folder");
  assert.deepEqual(v.items.map((i) => i.description), ["writes confined to the workspace", ".venv/bin"]);
});

test("the pickers carry each mode's description", () => {
  const s = new acp.SessionState("s", "/w", {
    currentModeId: "default",
    availableModes: [{ id: "default", name: "Default", description: "Asks before edits and commands" }, { id: "bypassPermissions", name: "Bypass" }],
  });
  const [mode] = acp.headerView(s, [], []).pickers;
  assert.deepEqual(mode.options, [{ value: "default", name: "Default", description: "Asks before edits and commands" }, { value: "bypassPermissions", name: "Bypass", description: undefined }]);
});

test("slash completion: the first word only, prefix matches first, the hint after the name", () => {
  const cmds = [
    { name: "compact", description: "Compact the conversation now" },
    { name: "cost", description: "Show usage and cost" },
    { name: "mode", description: "Switch the session mode", hint: "default | plan" },
    { name: "review", description: "Review the uncommitted changes" },
  ];
  assert.equal(acp.slashQuery("/co"), "co");
  assert.equal(acp.slashQuery("/"), "");
  assert.equal(acp.slashQuery("hello /co"), undefined);
  assert.equal(acp.slashQuery("/mode plan"), undefined, "past the first word the completion is closed");
  assert.equal(acp.slashQuery("/mode plan", 3), undefined, "a caret in a prompt with a space after is not completing");
  assert.deepEqual(acp.slashMatches(cmds, "").map((c) => c.name), ["compact", "cost", "mode", "review"]);
  assert.deepEqual(acp.slashMatches(cmds, "co").map((c) => c.name), ["compact", "cost", "review"], "names first, then \"uncommitted\"");
  assert.deepEqual(acp.slashMatches(cmds, "CHANGES").map((c) => c.name), ["review"], "a description matches too");
  assert.deepEqual(acp.slashMatches(cmds, "zz"), []);
  assert.equal(acp.slashHint(cmds, "/mode "), "default | plan");
  assert.equal(acp.slashHint(cmds, "/mode plan"), undefined, "the hint goes once text follows");
  assert.equal(acp.slashHint(cmds, "/cost "), undefined);
  const near = [{ name: "models", description: "", hint: "a model" }, { name: "mode", description: "", hint: "a mode" }];
  assert.equal(acp.slashHint(near, "/mode "), "a mode", "the hint of the command named in full, not of one it begins");
  assert.equal(acp.slashHint(near, "/mod "), undefined, "no command is named /mod");
});

test("path:line references in answers", () => {
  const refs = (t) => acp.pathRefs(t).map((r) => `${r.path}@${r.line}=${t.slice(r.start, r.end)}`);
  assert.deepEqual(refs("see bridge/loop.go:115 and main.go:3:4."), ["bridge/loop.go@115=bridge/loop.go:115", "main.go@3=main.go:3:4"]);
  assert.deepEqual(refs("./src/a.ts:10, ../b/c.py:2"), ["./src/a.ts@10=./src/a.ts:10", "../b/c.py@2=../b/c.py:2"]);
  for (const t of ["at 12:30", "note:3", "v1.2:3", "http://x.com:80/a", "a.go:0", "key: value", "x.go:12abc"]) assert.deepEqual(refs(t), [], t);
});

test("history times are local and relative", () => {
  const now = new Date(2026, 11, 7, 15, 30, 0); // local 2026-12-07 15:30
  const at = (...a) => new Date(...a).toISOString();
  assert.equal(acp.relativeTime(at(2026, 11, 7, 15, 29, 40), now), "just now");
  assert.equal(acp.relativeTime(at(2026, 11, 7, 15, 5, 20), now), "24 min ago", "whole minutes passed");
  assert.equal(acp.relativeTime(at(2026, 11, 7, 9, 0, 0), now), "6 h ago");
  assert.equal(acp.relativeTime(at(2026, 11, 6, 14, 5, 0), now), "yesterday 14:05");
  assert.equal(acp.relativeTime(at(2026, 11, 3, 9, 12, 0), now), "Thu 09:12");
  assert.equal(acp.relativeTime(at(2026, 10, 20, 9, 12, 0), now), "2026-11-20");
  assert.equal(acp.relativeTime("not a time", now), "not a time");
  assert.equal(acp.relativeTime(undefined, now), "");
});

test("@ mentions: the word at the caret, and the paths a prompt names", () => {
  assert.deepEqual(acp.mentionQuery("look at @src/ma"), { at: 8, query: "src/ma" });
  assert.deepEqual(acp.mentionQuery("@"), { at: 0, query: "" });
  assert.equal(acp.mentionQuery("mail me@example.com"), undefined, "an @ inside a word is no mention");
  assert.equal(acp.mentionQuery("@a.go done"), undefined, "the caret is past the mention");
  assert.deepEqual(acp.mentionQuery("@a.go done", 3), { at: 0, query: "a." });
  assert.deepEqual(acp.mentioned("see @a.go, @b/c.ts and @a.go. me@x.org"), ["a.go", "b/c.ts"]);
});

test("answers' code is highlighted by the bridge's own dsh-highlight", async () => {
  const h = new acp.Highlighter(() => path.join(path.dirname(bin()), "dsh-highlight"));
  try {
    const lines = await h.tokens("go", "func main() {\n\treturn \"é\" // x\n}\n");
    assert.equal(lines.length, 3);
    const kinds = lines.map((l) => l.map((s) => s.type));
    assert.ok(kinds[0].includes("KeywordDeclaration"), JSON.stringify(kinds));
    const str = lines[1].find((s) => s.type.startsWith("LiteralString"));
    assert.equal("\treturn \"é\" // x".slice(str.start, str.end), '"é"', "spans count UTF-16 units");
    assert.equal(await h.tokens("no-such-language", "x"), undefined, "an unknown language stays plain");
    assert.ok((await h.tokens("go", "x := 1")).length === 1, "the helper answers after an unknown language");
  } finally {
    h.dispose();
  }
  // no helper: plain, never a hang
  const none = new acp.Highlighter(() => undefined);
  assert.equal(await none.tokens("go", "func f() {}"), undefined);
  const gone = new acp.Highlighter(() => "/nonexistent/dsh-highlight");
  assert.equal(await gone.tokens("go", "func f() {}"), undefined);
  // a frame cut short is waited for; a corrupt one throws
  const whole = Buffer.from([7, 0, 1, 2, 75, 87, 1, 1, 0, 4, 0]);
  assert.equal(acp.decodeAnswer(whole.subarray(0, 6)), undefined);
  assert.deepEqual(acp.decodeAnswer(whole), { id: 7, lines: [[{ start: 0, end: 4, type: "KW" }]], used: 11 });
  assert.throws(() => acp.decodeAnswer(Buffer.from([7, 9])));
});
