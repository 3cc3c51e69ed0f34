// Garbage from the agent (a buggy or hostile one): what the session state
// keeps of it, and that the header the page is sent is still built.
import { test } from "node:test";
import assert from "node:assert/strict";
import { acp } from "./helpers.mjs";

const header = (s) => acp.headerView(s, [], acp.chatItems([s]));

test("a title with HTML, newlines, NUL and 10k characters is one bounded line of text", () => {
  const s = new acp.SessionState("sess-0123456789", "/w");
  s.apply({ sessionUpdate: "session_info_update", title: "<img src=x onerror=alert(1)>\n\u0000evil\u2028\tend  " });
  assert.equal(s.title, "<img src=x onerror=alert(1)> evil end", "control characters and runs of space are one space");
  s.apply({ sessionUpdate: "session_info_update", title: "x".repeat(10000) });
  assert.equal(s.title.length, 120);
  assert.ok(s.title.endsWith("…"));
  s.apply({ sessionUpdate: "session_info_update", title: "\u0000\n " });
  assert.equal(acp.chatTitle(s), "Chat 456789", "a title of control characters only is none");
  for (const title of [42, { a: 1 }, ["t"]]) s.apply({ sessionUpdate: "session_info_update", title });
  assert.equal(s.title, undefined);
});

test("usage and config options of the wrong types leave the header buildable", () => {
  const s = new acp.SessionState("s", "/w");
  const bad = [
    { sessionUpdate: "usage_update", used: "x", size: null, cost: { amount: "y" } },
    { sessionUpdate: "usage_update", used: 5, size: Infinity },
    { sessionUpdate: "config_option_update", configOptions: [null, { type: "select", id: "model", name: "Model", currentValue: "m", options: null }] },
  ];
  for (const u of bad) {
    s.apply(u);
    assert.doesNotThrow(() => header(s), JSON.stringify(u));
  }
  assert.equal(header(s).usage, undefined);
  assert.deepEqual(header(s).pickers, []);
  s.apply({ sessionUpdate: "usage_update", used: 1200, size: 128000, cost: { amount: 0.01234, currency: "USD" } });
  assert.equal(header(s).usage, "1,200 / 128,000 tokens · $0.0123");
  s.apply({ sessionUpdate: "usage_update", used: 1300, size: 128000, cost: { amount: "free" } });
  assert.equal(header(s).usage, "1,300 / 128,000 tokens", "a cost that is not a number is not shown");
});

test("plans: 500 entries kept, non-object entries and unknown priorities dropped to defaults", () => {
  const s = new acp.SessionState("s", "/w");
  s.apply({ sessionUpdate: "plan", entries: Array.from({ length: 500 }, (_, i) => ({ content: `step ${i} <b>x</b>`, status: "pending", priority: { x: 1 } })) });
  const plan = header(s).plans[0];
  assert.equal(plan.entries.length, 500);
  assert.equal(plan.entries[499].content, "step 499 <b>x</b>", "kept as text (the page sets textContent)");
  assert.ok(plan.entries.every((e) => e.priority === "medium"));
  s.apply({ sessionUpdate: "plan", entries: [null, 1, "x", [], { content: 5 }, { content: "ok", status: null, priority: "low" }] });
  assert.deepEqual(header(s).plans[0].entries, [{ content: "ok", status: "pending", priority: "low" }]);
  for (const plan of [null, { planId: 7, type: "items", entries: [] }, { planId: "p", type: "markdown", content: { x: 1 } }]) s.apply({ sessionUpdate: "plan_update", plan });
  s.apply({ sessionUpdate: "plan_removed" });
  assert.deepEqual(header(s).plans.map((p) => p.id), [""]);
});

test("10k commands: names with spaces dropped, the completion bounded", () => {
  const s = new acp.SessionState("s", "/w");
  const many = Array.from({ length: 10000 }, (_, i) => ({ name: `cmd${i}`, description: i % 2 ? null : `<script>${i}`, input: i % 3 ? { hint: 5 } : null }));
  s.apply({ sessionUpdate: "available_commands_update", availableCommands: [...many, null, 1, { name: 3 }, { name: "" }, { name: "two words" }, { name: "x\ny" }] });
  const cmds = header(s).commands;
  assert.equal(cmds.length, 10000);
  assert.ok(cmds.every((c) => typeof c.description === "string" && (c.hint === undefined || typeof c.hint === "string")));
  assert.equal(acp.slashMatches(cmds, "").length, 50, "the list the page draws is bounded");
  assert.deepEqual(acp.slashMatches(cmds, "cmd999").map((c) => c.name).slice(0, 2), ["cmd999", "cmd9990"]);
});
