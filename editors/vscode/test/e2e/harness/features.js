// The end-to-end checks of the chat around the transcript: the empty
// chat, slash commands, the pinned plan, titles, answers' code blocks and
// references, folding, drops, the focus command, the bypass warning, and
// the last chat after a window reload. Called by extension.js with its
// context t: { c (the controller), s (the session), ask (the page's test
// hooks), check, ext, ws, file, doc, shot (a screenshot by name) }.
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

/** freshChat: a new chat, before its first prompt. */
async function freshChat(t) {
  const { ask, check } = t;
    // An empty chat says what the agent does and offers prompts; the
    // session's notices above it are one status line.
    let lastQ;
    const fresh = await waitFor(async () => {
      const q = (lastQ = await ask({ op: "query" }));
      return q.page.empty && q.page.notices.length > 0 ? q : null;
    }, 10000, "the empty chat").catch((err) => {
      throw new Error(`${err.message}: ${JSON.stringify(lastQ?.page ?? lastQ)?.slice(0, 1500)}`);
    });
    check("an empty chat shows what the agent can do and example prompts", /reads and searches/.test(fresh.page.empty.text) && fresh.page.empty.examples.length === 3, fresh.page.empty);
    check("the session's notices are one collapsed status line", fresh.page.notices.length === 1 && !fresh.page.notices[0].open && fresh.page.notices[0].height < 30 &&
      fresh.page.notices[0].items >= 1, fresh.page.notices);
    const hd = fresh.page.header;
    check("the header is one compact row: mode and model, the rest in a menu", hd.height < 36 && !hd.overflow && hd.rowPickers.join() === "mode,model" && hd.menuPickers.includes("tools_mode"), hd);
    await ask({ op: "click", selector: ".empty button.example" });
    const filled = await ask({ op: "query" });
    check("an example prompt goes into the box", filled.page.input === fresh.page.empty.examples[0], filled.page.input);
    // Slash commands, as advertised by available_commands_update
    const slash = await waitFor(async () => {
      const r = await ask({ op: "key", text: "/" });
      return r.items.length > 0 ? r : null;
    }, 10000, "the slash completion");
    const geo = (await ask({ op: "query" })).page;
    check("typing / lists the agent's commands above the prompt box", slash.open && ["/compact", "/review", "/init", "/mode"].every((n) => slash.items.some((i) => i.startsWith(n))) && geo.slashAboveInput, { items: slash.items, above: geo.slashAboveInput });
    await t.shot("chat-slash");
    const co = await ask({ op: "key", text: "/co" });
    check("the completion filters as you type", co.items.length >= 2 && co.items[0].startsWith("/compact") && co.items[1].startsWith("/cost"), co.items);
    const picked = await ask({ op: "key", text: "/mo", key: "Tab" });
    check("Tab takes the command and its input hint shows", picked.value === "/mode " && !picked.open && picked.hint === "default | acceptEdits | plan | bypassPermissions", picked);
    const closed = await ask({ op: "key", text: "/re", key: "Escape" });
    check("Esc closes the completion", !closed.open && closed.value === "/re", closed);
    // @ mentions: the workspace's files as you type, taken with Tab
    const men = await waitFor(async () => {
      const r = await ask({ op: "key", text: "Compare @hel" });
      return r.items.includes("@hello.txt") ? r : null;
    }, 10000, "the @ completion").catch(() => null);
    check("typing @ lists the workspace's files that match", !!men && men.open, men);
    const took = await ask({ op: "key", text: "Compare @hel", key: "Tab" });
    check("Tab takes the file into the prompt", took.value === "Compare @hello.txt ", took);
    await ask({ op: "key", text: "" });
}

/** afterTurn: what the turn left around the transcript. */
async function afterTurn(t, after) {
  const { c, s, ask, check, ext, ws, file, doc } = t;
    // The plan, pinned above the prompt box (todo_write -> plan_update)
    const plan = after.page.plan;
    check("the plan is a checklist pinned above the prompt, outside the transcript", plan && plan.items.map((i) => i.text).join("|") === "Greet ACP in hello.txt|Show the result|Tidy notes.txt" &&
      plan.items.map((i) => i.checked).join() === "true,false,false" && /plan-in_progress/.test(plan.items[1].cls) && plan.aboveInput && !plan.inScroller && /1\/3/.test(plan.summary), plan);
    // A plan entry is text: markup in it is shown, never drawn
    const hostile = '<b data-injected="1">bold</b> <img src=x>';
    s.apply({ sessionUpdate: "plan_update", plan: { type: "items", planId: "hostile", entries: [{ content: hostile, status: "pending", priority: "high" }] } });
    const shown = await waitFor(async () => {
      const p = (await ask({ op: "query" })).page.plan;
      return p && p.items.some((i) => i.text === hostile || i.text === "bold ") ? p : null;
    }, 5000, "the hostile plan").catch(() => null);
    check("a plan entry's markup is shown as text", shown && shown.items.some((i) => i.text === hostile), shown?.items);
    s.apply({ sessionUpdate: "plan_removed", planId: "hostile" });
    // The chat's title, as session_info_update names it
    s.apply({ sessionUpdate: "session_info_update", title: "Greet ACP in hello.txt" });
    const titled = await waitFor(async () => {
      const q = await ask({ op: "query" });
      return q.page.chats.some((x) => x.title === "Greet ACP in hello.txt") ? q : null;
    }, 5000, "the chat's title");
    check("the chat list shows the agent's title", titled.page.chats.find((x) => x.selected)?.title === "Greet ACP in hello.txt", titled.page.chats);
    // Answers: code blocks with Copy and Insert; path:line opens the file
    const goBlock = (await ask({ op: "query" })).page.codeBlocks.find((b) => /func greet/.test(b.code ?? ""));
  check("an answer's code block is coloured by the cards' highlighter", goBlock && goBlock.spans >= 3 && goBlock.kw && goBlock.kw !== goBlock.plain, goBlock);
  check("an answer's code block has Copy and Insert", after.page.codeBlocks.some((b) => b.code === "cat hello.txt\n" && b.buttons.join() === "Copy,Insert"), after.page.codeBlocks);
    check("a path:line reference is a link", after.page.refs.some((r) => r.path === "hello.txt" && r.line === "6"), after.page.refs);
    await ask({ op: "click", selector: "a.ref" });
    const opened = await waitFor(() => {
      const ed = vscode.window.activeTextEditor;
      return ed && ed.document.uri.fsPath === file && ed.selection.active.line === 5 ? ed : null;
    }, 5000, "the file at the reference's line").catch(() => null);
    check("clicking path:line opens the file at the line", !!opened, vscode.window.activeTextEditor?.selection.active.line);
    const scratch = await vscode.workspace.openTextDocument({ content: "" });
    await vscode.window.showTextDocument(scratch, { preview: false });
    await ask({ op: "click", selector: ".codeblock button.insert-code" });
    await waitFor(() => scratch.getText() === "cat hello.txt\n", 5000, "the inserted code").catch(() => null);
    check("Insert puts the code at the cursor", scratch.getText() === "cat hello.txt\n", scratch.getText());
    await vscode.commands.executeCommand("workbench.action.revertAndCloseActiveEditor");
    // Cards fold, and stay folded across a redraw
    await ask({ op: "click", selector: '.card[data-id="read_1"] button.fold' });
    s.apply({ sessionUpdate: "tool_call_update", toolCallId: "read_1", title: s.calls.get("read_1").title });
    await sleep(200);
    const foldedRead = (await ask({ op: "query" })).cards.find((x) => x.id === "read_1");
    check("a card folds to its title line, across redraws", foldedRead.folded && !foldedRead.bodyShown, foldedRead);
    await ask({ op: "click", selector: '.card[data-id="read_1"] button.fold' });
    // A long read shows its first lines
    const long = Array.from({ length: 30 }, (_, i) => ({ number: i + 1, text: `line ${i + 1}` }));
    s.apply({ sessionUpdate: "tool_call", toolCallId: "longread", title: "Read long.txt", kind: "read", status: "completed",
      _meta: { dsh: { version: 1, card: { card: "read", path: path.join(ws, "long.txt"), offset: 1, lines: long, totalLines: 30 } } } });
    const longCard = await waitFor(async () => (await ask({ op: "query" })).cards.find((x) => x.id === "longread"), 5000, "the long read");
    check("a long read is collapsed to its first lines", longCard.lines === 10 && longCard.more === "… 20 more lines", { lines: longCard.lines, more: longCard.more });
    // Files dropped on the prompt are attached; images are refused with a word
    await ask({ op: "drop", uris: [vscode.Uri.file(path.join(ws, "main.go")).toString()] });
    const chips = await waitFor(async () => {
      const q = await ask({ op: "query" });
      return q.page.chips.includes("main.go") ? q.page.chips : null;
    }, 5000, "the dropped file's chip").catch(() => null);
    check("a file dropped on the prompt is attached", !!chips, chips);
    const img = await ask({ op: "drop", uris: [vscode.Uri.file(path.join(ws, "shot.png")).toString()] });
    check("a dropped image is refused with a sentence, not sent", /do not take images/.test(img.note ?? ""), img);
    // The keybinding's command opens the chat with the caret in the box
    await vscode.window.showTextDocument(doc, { preview: false });
    await vscode.commands.executeCommand("dshBridge.focus");
    const focused = await waitFor(async () => {
      const q = await ask({ op: "query" });
      return q.page.focused === "input" ? q : null;
    }, 5000, "the prompt box's focus").catch(() => null);
    const kb = ext.packageJSON.contributes.keybindings.find((k) => k.command === "dshBridge.focus");
    check("a keybinding opens and focuses the chat", !!focused && kb?.key === "ctrl+alt+j", { focused: focused?.page.focused, kb });
    // The mode picker carries descriptions; bypassPermissions asks first
    const modes = after.page.pickers.find((p) => p.id === "mode");
    check("the mode picker shows each mode's description", modes && modes.options.every((o) => o.title.length > 10), modes);
    let asked = 0;
    c.confirmBypass = async () => (asked++, false);
    await c.pick("mode", "bypassPermissions");
    const kept = (await ask({ op: "query" })).page.pickers.find((p) => p.id === "mode").value;
    check("a warning comes before bypassPermissions, and No keeps the mode", asked === 1 && s.modes.currentModeId === "default" && kept === "default", { asked, mode: s.modes.currentModeId, kept });
    c.confirmBypass = async () => (asked++, true);
    await c.pick("mode", "bypassPermissions");
    check("Yes switches to bypassPermissions", asked === 2 && s.modes.currentModeId === "bypassPermissions", s.modes.currentModeId);
    await c.pick("mode", "default");
}

/** reloaded checks, after a window reload, that the chat shown last came
 * back by itself, its turn in the page. */
async function reloaded(out) {
  const { result, lastId } = JSON.parse(fs.readFileSync(out + ".phase1", "utf8"));
  fs.rmSync(out + ".phase1");
  const check = (name, cond, detail) => {
    result.checks[name] = { ok: !!cond, detail };
    if (!cond) result.errors.push(`${name}: ${JSON.stringify(detail)}`);
  };
  try {
    const api = await vscode.extensions.getExtension("dsh-bridge.dsh-bridge").activate();
    const c = api.controller;
    await vscode.commands.executeCommand("dshBridge.chat.focus");
    await waitFor(() => c.view.isReady, 30000, "the chat view after the reload");
    let nextId = 0;
    const answers = new Map();
    c.onTest = (m) => answers.get(m.id)?.(m.result);
    const ask = (msg) => new Promise((resolve, reject) => {
      const id = ++nextId;
      answers.set(id, resolve);
      c.view.post({ type: "test", id, ...msg });
      setTimeout(() => reject(new Error(`the page did not answer ${msg.op}`)), 10000);
    });
    // the load's replay can take a while on a loaded machine: wait for it
    await Promise.race([c.restoreLast(), sleep(60000)]);
    const back = c.current?.id === lastId ? c.current : null;
    let lastQ;
    const page = back && await waitFor(async () => {
      const q = (lastQ = await ask({ op: "query" }));
      return /Done: hello\.txt now greets ACP/.test(q.text) && /Greet ACP in hello\.txt, then show it/.test(q.text) ? q : null;
    }, 10000, "the last chat's turn in the page").catch((err) => (lastQ = lastQ ?? String(err), null));
    check("the last chat is back after a reload", !!back && !!page && page.page.chats.some((x) => x.id === lastId && x.selected),
      { current: c.current?.id, lastId, error: c.restoreError, blocks: back?.blocks.map((b) => `${b.kind}:${(b.text ?? "").slice(0, 40)}`), text: (lastQ?.text ?? lastQ)?.slice?.(0, 300) });
    // the changed-files list comes back with the chat (from the replayed cards)
    const ch = page?.page.changes;
    check("the changed-files list is back after a reload", !!ch && ch.files.map((f) => f.path.split("/").pop()).sort().join() === "hello.txt,notes.txt" && ch.undoAll &&
      page.page.users.some((u) => u.restore), { changes: ch, users: page?.page.users });
  } catch (err) {
    result.errors.push(String(err && err.stack || err));
  }
  result.ok = result.errors.length === 0;
  fs.writeFileSync(out, JSON.stringify(result, null, 1));
}

module.exports = { freshChat, afterTurn, reloaded };
