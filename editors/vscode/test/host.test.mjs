// src/host over a `vscode` stub: open-document reads, undoable writes,
// byte-limited terminal output, output buffered until a Pseudoterminal is
// opened.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import Module from "node:module";
import path from "node:path";
import { here, read, waitFor, workspace } from "./helpers.mjs";

const require = createRequire(import.meta.url);
const stubPath = path.join(here, "vscode-stub.cjs");
const vscode = require(stubPath);
const resolve = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  return request === "vscode" ? stubPath : resolve.call(this, request, ...rest);
};
const host = require("../dist/test/host.cjs");

function freshHost(dir) {
  vscode.workspace.textDocuments.length = 0;
  for (const k of ["writeFile", "createDirectory", "createTerminal"]) vscode.calls[k].length = 0;
  vscode.calls.applyEdit = 0;
  return new host.VscodeHost(dir);
}

test("reads: an open document's live text wins, line and limit honoured", async () => {
  const dir = workspace({ "a.txt": "disk 1\ndisk 2\n" });
  const h = freshHost(dir);
  vscode.workspace.textDocuments.push(new vscode.Doc(path.join(dir, "a.txt"), "one\ntwo (unsaved)\nthree\n"));
  for (const [p, want] of [
    [{}, "one\ntwo (unsaved)\nthree\n"],
    [{ line: 2 }, "two (unsaved)\nthree\n"],
    [{ line: 2, limit: 1 }, "two (unsaved)\n"],
    [{ line: 9 }, ""],
  ])
    assert.equal((await h.readTextFile({ sessionId: "s", path: path.join(dir, "a.txt"), ...p })).content, want, JSON.stringify(p));
  vscode.workspace.textDocuments.length = 0;
  assert.equal((await h.readTextFile({ sessionId: "s", path: path.join(dir, "a.txt") })).content, "disk 1\ndisk 2\n");
  await assert.rejects(h.readTextFile({ sessionId: "s", path: path.join(dir, "nope") }), (e) => e.code === -32002);
  await assert.rejects(h.readTextFile({ sessionId: "s", path: "a.txt" }), (e) => e.code === -32602);
  await assert.rejects(h.readTextFile({ sessionId: "s", path: path.join(dir, "a.txt"), line: -1 }), (e) => e.code === -32602);
});

test("writes: an open document is edited (undoable) and saved; others written", async () => {
  const dir = workspace({ "a.txt": "old\n" });
  const h = freshHost(dir);
  const doc = new vscode.Doc(path.join(dir, "a.txt"), "old (unsaved edit)\n");
  vscode.workspace.textDocuments.push(doc);
  assert.deepEqual(await h.writeTextFile({ sessionId: "s", path: doc.uri.fsPath, content: "new 1\nnew 2\n" }), {});
  assert.equal(doc.getText(), "new 1\nnew 2\n");
  assert.equal(vscode.calls.applyEdit, 1, "one WorkspaceEdit");
  assert.equal(doc.saves, 1);
  assert.equal(read(doc.uri.fsPath), "new 1\nnew 2\n");
  assert.deepEqual(vscode.calls.writeFile, [], "not written behind the document's back");
  doc.undo();
  assert.equal(doc.getText(), "old (unsaved edit)\n", "one undo restores it");
  // a file no editor shows: workspace.fs, folders created
  await h.writeTextFile({ sessionId: "s", path: path.join(dir, "new/deep/b.txt"), content: "made\n" });
  assert.equal(read(path.join(dir, "new/deep/b.txt")), "made\n");
  assert.deepEqual(vscode.calls.createDirectory, [path.join(dir, "new/deep")]);
});

test("terminals: output within the byte limit, cut at a character", async () => {
  const dir = workspace({});
  const h = freshHost(dir);
  for (const [name, limit, want, truncated] of [
    ["fits", 100, "aaaéé", false],
    ["inside a two-byte character", 3, "é", true],
    ["at a character", 4, "éé", true],
  ]) {
    const { terminalId } = await h.createTerminal({ sessionId: "s", command: "sh", args: ["-c", "printf 'aaaéé'"], outputByteLimit: limit });
    assert.deepEqual(await h.waitForTerminalExit({ sessionId: "s", terminalId }), { exitCode: 0, signal: null });
    const out = await h.terminalOutput({ sessionId: "s", terminalId });
    assert.equal(out.output, want, name);
    assert.equal(out.truncated, truncated, name);
    await h.releaseTerminal({ sessionId: "s", terminalId });
  }
  await assert.rejects(h.terminalOutput({ sessionId: "s", terminalId: "nope" }), (e) => e.code === -32602);
});

test("terminals: output before the Pseudoterminal is opened is kept for it", async () => {
  const dir = workspace({});
  const h = freshHost(dir);
  const { terminalId } = await h.createTerminal({ sessionId: "s", command: "sh", args: ["-c", "echo one; echo two"] });
  await h.waitForTerminalExit({ sessionId: "s", terminalId });
  h.showTerminal(terminalId, "echo");
  const t = vscode.calls.createTerminal[0];
  assert.equal(t.written, "", "VS Code has not opened it yet");
  t.pty.open(); // VS Code opens the pty later
  await waitFor(() => t.written.includes("[exit 0]"), 2000, "the exit line");
  assert.equal(t.written, "$ sh -c echo one; echo two\r\none\r\ntwo\r\n\r\n[exit 0]\r\n");
});

test("terminals: kill ends the command's children", async () => {
  const dir = workspace({});
  const h = freshHost(dir);
  const mark = `43.${process.pid}`;
  const { terminalId } = await h.createTerminal({ sessionId: "s", command: "sh", args: ["-c", `sleep ${mark} & sleep ${mark}1; wait`] });
  const { pids } = await import("./helpers.mjs");
  await waitFor(() => pids(`^sleep ${mark}`).length === 2, 5000, "both sleeps");
  await h.killTerminal({ sessionId: "s", terminalId });
  assert.equal((await h.waitForTerminalExit({ sessionId: "s", terminalId })).signal, "SIGTERM");
  await waitFor(() => pids(`^sleep ${mark}`).length === 0, 5000, "no sleep left");
});

test("path:line links: a card's path opens at its line; an answer's only inside the workspace", async () => {
  const { openFile } = require("../dist/test/editor.cjs");
  const dir = workspace({ "ws/src/a.go": "one\ntwo\nthree\n", "outside.txt": "secret\nline 2\n" });
  const ws = path.join(dir, "ws");
  vscode.workspace.workspaceFolders = [{ uri: vscode.Uri.file(ws) }];
  vscode.calls.shown.length = 0;
  try {
    assert.equal(await openFile("src/a.go", 2, ws, true), true);
    assert.equal(await openFile("./src/a.go", 99, ws, true), true);
    assert.deepEqual(vscode.calls.shown, [{ path: path.join(ws, "src/a.go"), line: 1 }, { path: path.join(ws, "src/a.go"), line: 3 }], "1-based line, clamped to the document (its last line is the empty one after the newline)");
    vscode.calls.shown.length = 0;
    for (const p of ["../outside.txt", path.join(dir, "outside.txt"), "src/../../outside.txt"]) assert.equal(await openFile(p, 2, ws, true), false, p);
    assert.deepEqual(vscode.calls.shown, [], "an answer's path out of the workspace is not opened");
    assert.equal(await openFile(path.join(dir, "outside.txt"), 2, ws), true, "a card's path (a file the tool used) opens");
    assert.deepEqual(vscode.calls.shown, [{ path: path.join(dir, "outside.txt"), line: 1 }]);
  } finally {
    vscode.workspace.workspaceFolders = [];
  }
});
