// The language-server problems of a completed edit card (docs/meta-dsh.md,
// "diagnostics"): carried from the update into the card model, and a
// location's character column turned into the editor's UTF-16 offset.
import { test } from "node:test";
import assert from "node:assert/strict";
import { acp } from "./helpers.mjs";

const DIAG = { path: "/w/demo.go", line: 5, column: 29, severity: "error", message: "cannot use \"two\" as int value", source: "compiler", code: "IncompatibleAssign" };
const WARN = { path: "/w/demo.go", line: 7, column: 2, severity: "warning", message: "x declared and not used" };

function completed(meta) {
  const s = new acp.SessionState("s", "/w");
  s.apply({ sessionUpdate: "tool_call", toolCallId: "e1", title: "Edit demo.go", kind: "edit", status: "pending", content: [{ type: "diff", path: "/w/demo.go", oldText: "a\n", newText: "b\n" }] });
  s.apply({
    sessionUpdate: "tool_call_update", toolCallId: "e1", status: "completed",
    content: [{ type: "diff", path: "/w/demo.go", oldText: "a\n", newText: "b\n" }, { type: "content", content: { type: "text", text: "Language server: 2 problems\n/w/demo.go:5:29: error: cannot use" } }],
    _meta: { dsh: meta },
  });
  return acp.cardView(s.calls.get("e1"));
}

test("a completed edit's diagnostics reach the diff card", async (t) => {
  const card = { card: "diff", diffs: [{ path: "/w/demo.go", oldText: "a\n", newText: "b\n" }] };
  await t.test("from _meta.dsh.diagnostics", () => {
    const v = completed({ version: 1, card, diagnostics: [DIAG, WARN] });
    assert.equal(v.type, "diff");
    assert.deepEqual(v.diagnostics, [DIAG, { ...WARN, source: undefined, code: undefined }]);
    // the plain text block is for other clients: the diff card does not draw it
    assert.equal(v.text, undefined);
  });
  await t.test("from card.diagnostics when the meta has none", () => {
    const v = completed({ version: 1, card: { ...card, diagnostics: [WARN] } });
    assert.deepEqual(v.diagnostics?.map((d) => d.severity), ["warning"]);
  });
  await t.test("absent when there are none", () => {
    assert.equal(completed({ version: 1, card }).diagnostics, undefined);
  });
  await t.test("a later update without the key drops them", () => {
    const s = new acp.SessionState("s", "/w");
    s.apply({ sessionUpdate: "tool_call", toolCallId: "e1", title: "Edit", kind: "edit", status: "in_progress", _meta: { dsh: { card, diagnostics: [DIAG] } } });
    assert.equal(acp.cardView(s.calls.get("e1")).diagnostics?.length, 1);
    s.apply({ sessionUpdate: "tool_call_update", toolCallId: "e1", status: "completed", _meta: { dsh: { card } } });
    assert.equal(acp.cardView(s.calls.get("e1")).diagnostics, undefined);
  });
});

test("diagnosticsOf keeps well-formed entries only", async (t) => {
  const cases = [
    { name: "not a list", in: { diagnostics: "x" }, want: undefined },
    { name: "no path or message", in: { diagnostics: [{ line: 1 }, null, 3, { path: "/a", message: 7 }] }, want: undefined },
    { name: "bad numbers are 1", in: { diagnostics: [{ path: "/a", message: "m", line: -2, column: "x", severity: "error" }] }, want: [{ path: "/a", message: "m", line: 1, column: 1, severity: "error", source: undefined, code: undefined }] },
    { name: "an unknown severity is an error", in: { diagnostics: [{ path: "/a", message: "m", line: 3, column: 4, severity: "fatal", code: 12 }] }, want: [{ path: "/a", message: "m", line: 3, column: 4, severity: "error", source: undefined, code: "12" }] },
  ];
  for (const c of cases) await t.test(c.name, () => assert.deepEqual(acp.diagnosticsOf(c.in, undefined), c.want));
});

test("utf16Column turns a character column into an editor offset", async (t) => {
  const cases = [
    { name: "ascii", line: "\tx := 1", col: 2, want: 1 },
    { name: "first column", line: "abc", col: 1, want: 0 },
    { name: "after an astral character", line: "s := \"😀\" + 1", col: 9, want: 9 },
    { name: "after two-byte characters", line: "é := ü", col: 6, want: 5 },
    { name: "past the end is the end", line: "ab", col: 10, want: 2 },
  ];
  for (const c of cases) await t.test(c.name, () => assert.equal(acp.utf16Column(c.line, c.col), c.want));
});
