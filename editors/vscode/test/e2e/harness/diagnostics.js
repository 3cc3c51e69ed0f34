// The end-to-end check of an edit card's language-server problems
// (docs/meta-dsh.md, "diagnostics"): a completed edit card injected as the
// bridge sends it draws them under the diff in the theme's error and
// warning colours, the plain text block not drawn as well, and a click on
// a location opens the file at its line and character column. Called by
// extension.js with its context t.
const vscode = require("vscode");
const fs = require("node:fs");
const path = require("node:path");

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
async function waitFor(cond, ms, what) {
  const end = Date.now() + ms;
  for (;;) {
    const v = await cond();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

// "é😀" are 2 UTF-16 units before Add in VS Code, 2 characters for the bridge
const SRC = 'package demo\n\nfunc Add(a, b int) int { return a + b }\n\nvar s = "é😀" + Add(1, "two")\n';

exports.check = async function check(t) {
  const { s, ask, check, ws } = t;
  const file = path.join(ws, "demo.go");
  fs.writeFileSync(file, SRC);
  const diff = { path: file, oldText: SRC.replace('"two"', "2"), newText: SRC };
  const diags = [
    { path: file, line: 5, column: 16, severity: "error", message: "cannot use \"two\" (untyped string constant) as int value", source: "compiler" },
    { path: file, line: 3, column: 6, severity: "warning", message: "a warning" },
  ];
  s.apply({ sessionUpdate: "tool_call", toolCallId: "diag_1", title: "Edit demo.go", kind: "edit", status: "pending",
    content: [{ type: "diff", ...diff }], _meta: { dsh: { version: 1, card: { card: "diff", title: "Edit demo.go", diffs: [diff] } } } });
  s.apply({ sessionUpdate: "tool_call_update", toolCallId: "diag_1", status: "completed",
    content: [{ type: "diff", ...diff }, { type: "content", content: { type: "text", text: `Language server: 2 problems\n${file}:5:16: error: cannot use` } }],
    _meta: { dsh: { version: 1, card: { card: "diff", diffs: [diff], diagnostics: diags }, diagnostics: diags } } });
  const card = await waitFor(async () => {
    const q = await ask({ op: "query" });
    const c = q.cards.find((x) => x.id === "diag_1");
    return c && c.diagnostics.length === 2 ? c : null;
  }, 10000, "the edit card's diagnostics");
  const [err, warn] = card.diagnostics;
  check("an edit card's diagnostics are listed under the diff", err.text.startsWith(`${file}:5:16`) && warn.text.startsWith(`${file}:3:6`) && card.diagnosticsAfterDiff, card.diagnostics);
  check("a diagnostic is coloured by severity (the theme's error and warning colours)",
    err.colour === card.themeColours.error && warn.colour === card.themeColours.warning && err.colour !== warn.colour, { err, warn, theme: card.themeColours });
  check("the plain text block of the problems is not drawn as well", !card.text.includes("Language server: 2 problems"), card.text);
  await ask({ op: "click", selector: '.card[data-id="diag_1"] .diagnostic.error a' });
  const opened = await waitFor(() => {
    const ed = vscode.window.activeTextEditor;
    return ed && ed.document.uri.fsPath === file && ed.selection.active.line === 4 ? ed : null;
  }, 5000, "the file at the diagnostic").catch(() => null);
  const at = opened?.selection.active;
  check("clicking a diagnostic opens the file at its line and column", !!opened && opened.document.lineAt(4).text.slice(at.character, at.character + 3) === "Add",
    at && { line: at.line, character: at.character });
};
