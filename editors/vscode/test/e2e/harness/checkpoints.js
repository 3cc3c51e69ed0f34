// The end-to-end checks of checkpoints: "Restore checkpoint" on a user
// message rewinds a real edit (the file back to the byte, the turn gone
// from the chat, the message back in the prompt box), the changed-files
// list opens a file's diff (before the session ↔ now), "Undo all" puts
// two edited files back, and a refused rewind changes nothing. Called by
// extension.js with its context t (see features.js).
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

async function run(t) {
  const { c, ask, check, ws } = t;
  const files = { a: path.join(ws, "ck-a.txt"), b: path.join(ws, "ck-b.txt"), c: path.join(ws, "ck-c.txt") };
  const BEFORE = { a: "first line\nalpha\n", b: "beta\r\nlast line\n", c: "gamma\n" };
  for (const k of Object.keys(files)) fs.writeFileSync(files[k], BEFORE[k]);
  const s = await c.newChat();
  await sleep(300);
  await c.pick("mode", "acceptEdits");
  const asked = [];
  c.confirmRewind = async (text) => (asked.push(text), true);
  const errors = [];
  c.rewindError = (m) => errors.push(m);
  /** turn types a prompt in the page and waits for its answer (a
   * message's text in the page ends with its attachments' names). */
  const turn = async (text, done) => {
    await ask({ op: "type", text });
    let last;
    return waitFor(async () => {
      if (s.running) return null;
      const q = (last = await ask({ op: "query" }));
      return q.text.includes(done) && q.page.users.some((u) => u.text.startsWith(text) && u.restore) ? q : null;
    }, 30000, `the answer to "${text}"`).catch((err) => {
      throw new Error(`${err.message}: ${JSON.stringify({ running: s.running, users: last?.page.users, text: last?.text.slice(-400), blocks: s.blocks.map((b) => `${b.kind}:${b.messageId ?? ""}:${(b.text ?? b.status ?? "").slice(0, 60)}`) })}`);
    });
  };

  // a turn that edits ck-a.txt, then Restore checkpoint on its message
  const MSG = "Make alpha loud in ck-a.txt.";
  const one = await turn(MSG, "Done: ck-a.txt is loud.");
  check("checkpoint: the edit is on disk", fs.readFileSync(files.a, "utf8") === "first line\nALPHA\n", fs.readFileSync(files.a, "utf8"));
  const listed = one.page.changes;
  check("checkpoint: the changed-files list shows the file with +1 −1", listed && listed.files.length === 1 && listed.files[0].path === files.a &&
    /ck-a\.txt/.test(listed.files[0].text) && /\+1/.test(listed.files[0].text) && /−1/.test(listed.files[0].text) && listed.undoAll, listed);
  const user = one.page.users.find((u) => u.text.startsWith(MSG));
  await ask({ op: "click", selector: `.block.user[data-seq="${user.seq}"] button.restore` });
  const restored = await waitFor(async () => {
    const q = await ask({ op: "query" });
    return !q.page.users.some((u) => u.text.startsWith(MSG)) && q.page.input === MSG ? q : null;
  }, 20000, "the restored checkpoint");
  check("Restore checkpoint asks first, naming the turn and the file", asked.length === 1 && asked[0].includes(MSG) && asked[0].includes("ck-a.txt"), asked);
  check("Restore checkpoint puts the file back to the byte", fs.readFileSync(files.a, "utf8") === BEFORE.a, fs.readFileSync(files.a, "utf8"));
  check("Restore checkpoint drops the turn from the chat", !restored.text.includes("Done: ck-a.txt is loud.") && !restored.cards.some((x) => x.id === "ck_a") &&
    !s.calls.has("ck_a"), restored.text.slice(-300));
  check("Restore checkpoint puts the message back in the prompt box", restored.page.input === MSG, restored.page.input);
  check("after the rewind the changed-files list is empty", restored.page.changes === null, restored.page.changes);

  // two turns edit two files; the list opens a diff; Undo all
  await turn("Make beta loud in ck-b.txt.", "Done: ck-b.txt is loud.");
  const two = await turn("Make gamma loud in ck-c.txt.", "Done: ck-c.txt is loud.");
  check("the changed-files list shows both files and Undo all", two.page.changes && two.page.changes.files.map((f) => f.path).join() === `${files.b},${files.c}` &&
    two.page.changes.undoAll && /2 files changed/.test(two.page.changes.summary), two.page.changes);
  await ask({ op: "click", selector: ".changes-pin summary" });
  await ask({ op: "click", selector: `.changed-file[data-path="${files.b}"] a.changed-path` });
  const tab = await waitFor(() => vscode.window.tabGroups.all.flatMap((g) => g.tabs)
    .find((x) => x.input instanceof vscode.TabInputTextDiff && x.input.original.scheme === "dsh-before" && x.input.modified.fsPath === files.b), 10000, "the file's diff").catch(() => null);
  // the text handed to VS Code (a document normalises mixed line ends)
  const left = tab && c.beforeDocs.provideTextDocumentContent(tab.input.original);
  check("a changed file opens its diff: before the session ↔ now", !!tab && left === BEFORE.b, { left, tabs: vscode.window.tabGroups.all.flatMap((g) => g.tabs).map((x) => x.label) });
  await t.shot("chat-checkpoints");
  if (tab) await vscode.window.tabGroups.close(tab);
  await ask({ op: "click", selector: ".changes-pin button.undo-all" });
  const undone = await waitFor(async () => {
    const q = await ask({ op: "query" });
    return q.page.changes === null && q.page.users.length === 0 ? q : null;
  }, 20000, "Undo all");
  check("Undo all asks first, naming both files", asked.length === 2 && asked[1].includes("ck-b.txt") && asked[1].includes("ck-c.txt"), asked);
  check("Undo all puts both files back to the byte", fs.readFileSync(files.b, "utf8") === BEFORE.b && fs.readFileSync(files.c, "utf8") === BEFORE.c,
    [fs.readFileSync(files.b, "utf8"), fs.readFileSync(files.c, "utf8")]);
  check("Undo all drops those turns from the chat", !/Done: ck-[bc]\.txt/.test(undone.text), undone.text.slice(-300));

  // a message the agent does not know: the rewind is refused, shown, and nothing changes
  s.add({ kind: "user", text: "a message the agent never saw", messageId: "msg_unknown" });
  const ghost = await waitFor(async () => (await ask({ op: "query" })).page.users.find((u) => u.restore), 5000, "the unknown message");
  await ask({ op: "click", selector: `.block.user[data-seq="${ghost.seq}"] button.restore` });
  await waitFor(() => errors.length > 0, 10000, "the refused rewind").catch(() => null);
  const still = await ask({ op: "query" });
  check("a refused rewind is shown and changes nothing", errors.length === 1 && /no message/.test(errors[0]) && still.page.users.some((u) => u.seq === ghost.seq) &&
    fs.readFileSync(files.b, "utf8") === BEFORE.b, { errors, users: still.page.users });
  c.rewindError = undefined;
  await c.pick("mode", "default");
}

module.exports = { run };
