// The end-to-end harness, inside code-server's extension host. It drives
// dsh-bridge's chat the way a person does — the prompt typed into the
// page's box, the permission button clicked in the page — and records what
// the page showed, what reached the agent, and what changed on disk and in
// the editor. Then it measures the view. Findings go to $DSH_E2E_RESULT.
const vscode = require("vscode");
const fs = require("node:fs");
const path = require("node:path");
const features = require("./features.js");
const diagnostics = require("./diagnostics.js");
const checkpoints = require("./checkpoints.js");

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

async function activate() {
  const out = process.env.DSH_E2E_RESULT;
  if (!out) return;
  if (fs.existsSync(out + ".phase1")) return features.reloaded(out);
  const result = { ok: false, checks: {}, bench: {}, errors: [] };
  const check = (name, cond, detail) => {
    result.checks[name] = { ok: !!cond, detail };
    if (!cond) result.errors.push(`${name}: ${JSON.stringify(detail)}`);
  };
  try {
    const ext = vscode.extensions.getExtension("dsh-bridge.dsh-bridge");
    const api = await ext.activate();
    const c = api.controller;
    result.bench.activationMs = api.activationMs;
    const ws = vscode.workspace.workspaceFolders[0].uri.fsPath;
    const file = path.join(ws, "hello.txt");
    const BEFORE = fs.readFileSync(file, "utf8");
    const AFTER = BEFORE.replace("hello world", "hello ACP");
    const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(file));
    await vscode.window.showTextDocument(doc, { preview: false });

    // the page, and a way to ask it things
    await vscode.commands.executeCommand("dshBridge.chat.focus");
    await waitFor(() => c.view.isReady, 30000, "the chat view");
    let nextId = 0;
    const answers = new Map();
    c.onTest = (m) => answers.get(m.id)?.(m.result);
    const ask = (msg) =>
      new Promise((resolve, reject) => {
        const id = ++nextId;
        answers.set(id, resolve);
        c.view.post({ type: "test", id, ...msg });
        setTimeout(() => reject(new Error(`the page did not answer ${msg.op}`)), 10000);
      });
    const shot = async (name) => {
      fs.writeFileSync(out + ".screenshot", name);
      await waitFor(() => fs.existsSync(out + ".shot"), 30000, `the screenshot ${name}`);
      fs.rmSync(out + ".shot");
    };
    const t = { c, ask, check, ext, ws, file, doc, shot, get s() { return s; } };
    const painted = [];
    c.onPainted = (m) => painted.push({ ...m, at: performance.now() });

    // before any turn, Stop has nothing to stop
    check("Stop disabled before any session", (await ask({ op: "measure" })).stop === true, null);
    const s = await c.newChat();
    await sleep(300);
    await features.freshChat(t);
    // the prompt, typed into the page
    const sentAt = performance.now();
    await ask({ op: "type", text: "Greet ACP in hello.txt, then show it." });
    const page = await waitFor(
      async () => {
        const q = await ask({ op: "query" });
        const card = q.cards.find((x) => x.type === "diff" && x.buttons.length > 0);
        return card && q;
      },
      30000,
      "the diff card with its buttons",
    );
    const firstChunk = painted.find((p) => p.firstChunk);
    result.bench.promptToFirstChunkMs = firstChunk ? firstChunk.at - sentAt : null;
    const diff = page.cards.find((x) => x.type === "diff");
    check("diff card shown", diff.diffLines.some((l) => l.includes("-") && l.includes("world")), diff.diffLines);
    // While pending, the card shows the file's lines: the hunk at the
    // greeting's real line with three lines of context on each side.
    check("pending hunk at the file's lines", diff.hunks.length === 1 && diff.hunks[0] === "@@ -3,7 +3,7 @@", diff.hunks);
    check("pending diff has context with line numbers", diff.diffLines.some((l) => l.startsWith("44") && l.includes("two")) &&
      diff.diffLines.some((l) => l.startsWith("6") && l.includes("-") && l.includes("world")), diff.diffLines);
    check("an edit is asked about as an edit", diff.ask === "dsh-bridge asks to edit this file.", diff.ask);
    check("permission buttons shown", ["Allow once", "Always allow", "Reject", "Always reject"].every((b) => diff.buttons.includes(b)), diff.buttons);
    check("the approval says what \"always\" remembers", diff.remembers.join("|") === "allow_always: remembers every edit call|reject_always: remembers every edit call", diff.remembers);
    // "Open diff" before deciding: a diff editor with the proposed text
    await ask({ op: "click", selector: `.card[data-type="diff"] button.open-diff` });
    const diffTab = await waitFor(
      () => vscode.window.tabGroups.all.flatMap((g) => g.tabs).find((t) => t.input instanceof vscode.TabInputTextDiff),
      10000,
      "the diff editor",
    );
    const proposedDoc = await vscode.workspace.openTextDocument(diffTab.input.modified);
    check("open diff shows the whole proposed file", proposedDoc.getText() === AFTER && diffTab.input.original.fsPath === file,
      { modified: proposedDoc.getText(), original: diffTab.input.original.toString() });
    check("the proposed side has the file's language", proposedDoc.languageId === doc.languageId, proposedDoc.languageId);
    // The diff editor stays open through the approval: it closes itself
    // once the call settles (checked after the turn).
    await vscode.window.showTextDocument(doc, { preview: false });
    // Nothing is written before the person answers (a workspace's
    // dshBridge.autoApprove, say, must not answer for them).
    check("nothing written before the approval", fs.readFileSync(file, "utf8") === BEFORE && s.calls.get("edit_1")?.decision === undefined,
      { disk: fs.readFileSync(file, "utf8"), decision: s.calls.get("edit_1")?.decision });
    // the approval, clicked in the page
    const clicked = await ask({ op: "click", selector: `.card[data-type="diff"] button.permission[data-kind="allow_once"]` });
    check("allow button clicked", clicked === true, clicked);
    // the command asks too: its card's button, clicked in the page
    await waitFor(
      async () => {
        if (!s.running) return true;
        const q = await ask({ op: "query" });
        const waiting = q.cards.find((x) => x.buttons.length > 0 && (x.type !== "diff" || x.id === "edit_2"));
        if (waiting?.id === "edit_2") {
          // approved from the diff editor's title bar (Accept), not the card
          await ask({ op: "click", selector: `.card[data-id="edit_2"] button.open-diff` });
          const tab = await waitFor(() => vscode.window.tabGroups.all.flatMap((g) => g.tabs).find((t) => t.input instanceof vscode.TabInputTextDiff && t.input.modified.path.endsWith("notes.txt")), 10000, "the second diff editor");
          // (VS Code hands the manifest back with its when clauses' strings quoted)
          const editorTitle = ext.packageJSON.contributes.menus["editor/title"].map((m) => `${m.command}|${m.when.replaceAll("'", "")}`);
          check("Accept all, Apply selected and Reject are in the diff editor's title bar of a proposal", ["acceptProposal", "applySelectedHunks", "rejectProposal"].every((k) => editorTitle.includes(`dshBridge.${k}|isInDiffEditor && resourceScheme == dsh-proposed`)), editorTitle);
          check("CodeLenses show in diff editors", vscode.workspace.getConfiguration("diffEditor").get("codeLens") === true);
          // each hunk has its CodeLenses on the proposed side: reject the second
          // (the provider command can refuse a document still loading: ask again)
          const lensesOnce = async () => ((await vscode.commands.executeCommand("vscode.executeCodeLensProvider", tab.input.modified)) ?? []).map((l) => ({ line: l.range.start.line, title: l.command?.title, command: l.command }));
          const lenses = () => waitFor(() => lensesOnce().catch(() => undefined), 10000, "the proposal's CodeLenses");
          const before = await lenses();
          check("each hunk has its state and an action", JSON.stringify(before.map((l) => `${l.line}:${l.title}`)) === JSON.stringify(["1:Hunk 1 of 2: accepted", "1:Reject hunk", "10:Hunk 2 of 2: accepted", "10:Reject hunk"]), before);
          const reject2 = before.find((l) => l.line === 10 && l.title === "Reject hunk");
          if (reject2) await vscode.commands.executeCommand(reject2.command.command, ...reject2.command.arguments);
          const after = await lenses();
          check("a rejected hunk's lens says so and offers Accept", after.some((l) => l.title === "Hunk 2 of 2: rejected") && after.some((l) => l.line === 10 && l.title === "Accept hunk"), after);
          await sleep(200);
          const card = await ask({ op: "query" });
          check("the card marks the rejected hunk", JSON.stringify(card).includes("(rejected: not to be applied)"), card.cards.find((x) => x.id === "edit_2"));
          // another call's proposal open before it: Apply selected answers
          // the call of the diff editor it is in
          c.review.tabs = new Map([["another-call", { session: s, uris: ["dsh-proposed:/another/file.txt"] }], ...c.review.tabs]);
          const answered = await vscode.commands.executeCommand("dshBridge.applySelectedHunks", tab.input.modified);
          check("Apply selected in the diff editor approves that call's chosen hunks", answered === true && s.calls.get("edit_2")?.decision === "allow_once", { answered, decision: s.calls.get("edit_2")?.decision });
          return false;
        }
        if (waiting?.type === "terminal") {
          const cmd = waiting.command;
          check("the approval shows the whole command, wrapped, monospace, with its description",
            cmd && cmd.text.startsWith("cat hello.txt && echo the-whole-command") && cmd.text.endsWith("-END") && cmd.wraps &&
              /mono|courier|menlo|consol/i.test(cmd.font) && cmd.description === "Show the result", cmd);
          check("the command is highlighted as shell", waiting.shell.includes("sh-cmd:cat") && waiting.shell.includes("sh-op:&&") && waiting.shell.includes("sh-cmd:echo"), waiting.shell);
          check("a command is asked about as a command", waiting.ask === "dsh-bridge asks to run this command.", waiting.ask);
          check("a command's approval says what \"always\" remembers", waiting.remembers.length === 2 && waiting.remembers.every((r) => /^(allow|reject)_always: (remembers .+|this call only)$/.test(r)), waiting.remembers);
        }
        if (waiting) await ask({ op: "click", selector: `.card[data-id="${waiting.id}"] button.permission[data-kind="allow_once"]` });
        return false;
      },
      30000,
      "the end of the turn",
    );
    check("the turn ended", s.blocks.some((b) => b.kind === "agent" && /Done/.test(b.text)), s.blocks.map((b) => b.kind));
    const call = s.calls.get("edit_1");
    check("approval reached the agent", call.decision === "allow_once" && call.status === "completed", { decision: call.decision, status: call.status });
    check("the stale diff tab is gone after Allow",
      !vscode.window.tabGroups.all.flatMap((g) => g.tabs).some((t) => t.input instanceof vscode.TabInputTextDiff && t.input.modified.scheme === "dsh-proposed"),
      vscode.window.tabGroups.all.flatMap((g) => g.tabs).map((t) => t.label));
    check("file changed on disk", fs.readFileSync(file, "utf8") === AFTER, fs.readFileSync(file, "utf8"));
    check("file changed in the editor", doc.getText() === AFTER, doc.getText());
    check("document saved", !doc.isDirty, doc.isDirty);
    await sleep(300);
    const after = await ask({ op: "query" });
    const term = after.cards.find((x) => x.type === "terminal");
    check("terminal card shows the output", term && /hello ACP/.test(term.terminal ?? ""), term);
    check("the turn's text shown", /Done: hello\.txt now greets ACP\./.test(after.text), after.text.slice(-300));
    check("the edit's accepted hunk alone is on disk", fs.readFileSync(path.join(ws, "notes.txt"), "utf8") === "alpha\ngamma\nx1\nx2\nx3\nx4\nx5\nx6\nx7\nx8\nomega\nend\n", fs.readFileSync(path.join(ws, "notes.txt"), "utf8"));
    result.finalCards = after.cards.map((x) => ({ type: x.type, status: x.status }));
    // undo in the editor restores the text
    await vscode.window.showTextDocument(doc, { preview: false });
    await vscode.commands.executeCommand("undo");
    check("undo restores it", doc.getText() === BEFORE, doc.getText());
    await vscode.commands.executeCommand("redo");
    await doc.save();

    await diagnostics.check(t);

    result.ok = result.errors.length === 0;
    // the runner takes screenshots of the chat after the turn, in the
    // default theme and then in a dark and a high-contrast one
    await shot("chat");
    const themes = vscode.workspace.getConfiguration("workbench");
    for (const [name, theme] of [["chat-dark", "Default Dark Modern"], ["chat-hc", "Default High Contrast"]]) {
      await themes.update("colorTheme", theme, vscode.ConfigurationTarget.Global);
      await sleep(1500);
      await shot(name);
    }
    await themes.update("colorTheme", undefined, vscode.ConfigurationTarget.Global);

    // the read card: code drawn right, in each theme
    for (const [kind, theme] of [["light", "Default Light Modern"], ["dark", "Default Dark Modern"], ["hc", "Default High Contrast"]]) {
      await themes.update("colorTheme", theme, vscode.ConfigurationTarget.Global);
      const m = await waitFor(async () => {
        const q = await ask({ op: "measure" });
        return (kind === "light" ? /vscode-light/ : kind === "dark" ? /vscode-dark/ : /vscode-high-contrast/).test(q.theme) && q.colours.length > 0 ? q : null;
      }, 15000, `the ${theme} theme in the page`);
      await sleep(300);
      const mm = await ask({ op: "measure" });
      check(`a keyword's colour differs from plain text's (${kind})`, mm.colours.length > 0 && mm.colours.every((x) => x.kw !== x.plain), { theme: m.theme, colours: mm.colours });
      if (kind === "light") {
        check("an underscore's glyph is inside its line box", mm.underscores.some((u) => u.text.includes("for _, p")) &&
          mm.underscores.every((u) => u.inkBottom <= u.clipBottom + 0.01), mm.underscores);
        check("a tab is as wide as editor.tabSize (3) spaces, from the code's start", mm.tabSize === "3" && mm.tabs.length >= 2 &&
          mm.tabs.every((t) => Math.abs(t.tabPx / t.spacePx - 3) < 0.05), { tabSize: mm.tabSize, tabs: mm.tabs });
      }
    }
    await themes.update("colorTheme", undefined, vscode.ConfigurationTarget.Global);

    await features.afterTurn(t, after);

    // a cancelled command: its output as it was, "stopped", no fence, no
    // raw error, the scroll kept (the updates as the bridge sends them)
    const term2 = c.host.terminals.create({ sessionId: s.id, command: "sh", args: ["-c", "seq 1 200; sleep 60"], cwd: ws });
    s.apply({ sessionUpdate: "tool_call", toolCallId: "stopme", title: "seq 1 200; sleep 60", kind: "execute", status: "in_progress",
      content: [{ type: "terminal", terminalId: term2.terminalId }], _meta: { dsh: { version: 1, card: { card: "terminal", title: "seq 1 200; sleep 60" } } } });
    const running = await waitFor(async () => {
      const q = await ask({ op: "query" });
      const card = q.cards.find((x) => x.id === "stopme");
      return card && /\b200\b/.test(card.terminal ?? "") && card.scroll && card.scroll.bottom > 0 ? card : null;
    }, 15000, "the running command's output");
    check("a running command's output shows its end", running.scroll.top >= running.scroll.bottom - 2, running.scroll);
    await ask({ op: "scroll", selector: '.card[data-id="stopme"] .terminal-output', top: 40 });
    s.apply({ sessionUpdate: "tool_call_update", toolCallId: "stopme", title: "seq 1 200; sleep 60 " });
    await sleep(300);
    const moved = (await ask({ op: "query" })).cards.find((x) => x.id === "stopme");
    check("the output keeps the place the person scrolled to across a redraw", moved.scroll.top === 40, moved.scroll);
    await ask({ op: "scroll", selector: '.card[data-id="stopme"] .terminal-output', top: 100000 });
    c.host.terminals.kill({ sessionId: s.id, terminalId: term2.terminalId });
    s.apply({ sessionUpdate: "tool_call_update", toolCallId: "stopme", status: "failed",
      content: [{ type: "content", content: { type: "text", text: "```console\nError: command aborted\n```" } }],
      _meta: { dsh: { version: 1, card: { card: "generic", content: [{ type: "text", text: "```console\nError: command aborted\n```" }] } } } });
    const stopped = await waitFor(async () => {
      const q = await ask({ op: "query" });
      const card = q.cards.find((x) => x.id === "stopme");
      return card && card.status !== "in_progress" ? card : null;
    }, 10000, "the stopped command");
    check("a cancelled command shows its output and \"stopped\", no fence, no raw error",
      /stopped/.test(stopped.text) && stopped.status === "cancelled" && /\b200\b/.test(stopped.terminal) && !/```|command aborted/.test(stopped.text), stopped);
    check("a cancelled command keeps its scroll", stopped.scroll.top >= stopped.scroll.bottom - 2 && stopped.scroll.bottom > 0, stopped.scroll);

    // a 300-character word and inline code wrap inside the message
    s.apply({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: `\n\n${"w".repeat(300)} and \`${"c".repeat(300)}\`` } });
    const wrapped = await waitFor(async () => {
      const q = await ask({ op: "query" });
      return q.text.includes("w".repeat(300)) ? ask({ op: "measure" }) : null;
    }, 10000, "the long word");
    check("no horizontal scrollbar for a 300-character word", wrapped.scroller.scrollWidth <= wrapped.scroller.clientWidth && wrapped.wide.length === 0,
      { scroller: wrapped.scroller, wide: wrapped.wide });


    // agent text is data: raw HTML is escaped, script links are not links
    s.apply({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: '\n\n<img src=x onerror="window.pwned=1"> [click](javascript:alert(1)) [local](file:///etc/passwd) [docs](https://example.com)' } });
    const safe = await waitFor(async () => {
      const q = await ask({ op: "query" });
      return q.text.includes("[click](javascript:alert(1))") || q.text.includes("click") ? q : null;
    }, 10000, "the hostile text");
    check("raw HTML shown as text", safe.html.imgs === 0 && safe.text.includes('<img src=x onerror="window.pwned=1">'), safe.html);
    check("no javascript: or file: link", safe.html.hrefs.every((h) => !/^(javascript|file):/i.test(h)) && safe.html.hrefs.includes("https://example.com"), safe.html.hrefs);


    await checkpoints.run(t);

    // benchmarks, through the same view: a 5,000-line diff card, then
    // 10,000 streamed chunks; the page reports each frame's time
    const bench = await c.newChat();
    await sleep(500);
    painted.length = 0;
    // real Go source: the first 5,000 lines of net/http/h2_bundle.go
    const lines = fs.readFileSync(process.env.DSH_E2E_SOURCE, "utf8").split("\n").slice(0, 5000);
    const hunkLines = [];
    lines.forEach((l, i) => {
      if ((i + 1) % 5 === 0) {
        hunkLines.push({ op: "-", text: l + "\n" }, { op: "+", text: l + " // changed\n" });
      } else hunkLines.push({ op: " ", text: l + "\n" });
    });
    const t0 = performance.now();
    bench.apply({
      sessionUpdate: "tool_call", toolCallId: "big", title: "Edit big.go", kind: "edit", status: "completed",
      _meta: { dsh: { version: 1, card: { card: "diff", title: "Edit big.go", diffs: [] },
        changes: [{ path: path.join(ws, "h2_bundle.go"), hunks: [{ oldStart: 1, oldLines: 5000, newStart: 1, newLines: 5000, lines: hunkLines }], truncated: false }] } },
    });
    await waitFor(async () => {
      const q = await ask({ op: "query" });
      const card = q.cards.find((x) => x.id === "big");
      return card && card.diffLines.length === hunkLines.length;
    }, 60000, "the whole diff card painted");
    const diffFrames = painted.map((p) => p.frameMs).sort((a, b) => a - b);
    result.bench.diff5000 = {
      lines: hunkLines.length,
      toFirstPaintMs: painted[0].at - t0,
      toCompleteMs: painted[painted.length - 1].at - t0,
      frames: diffFrames.length,
      p50FrameMs: diffFrames[Math.floor(diffFrames.length / 2)],
      maxFrameMs: diffFrames[diffFrames.length - 1],
      all: diffFrames.map((f) => Math.round(f * 10) / 10),
    };

    await c.newChat();
    const stream = c.current;
    await sleep(500);
    painted.length = 0;
    const t1 = performance.now();
    // real Markdown (the project's README: headings, lists, tables, code
    // fences), in 4-character chunks as a model streams them
    let prose = fs.readFileSync(process.env.DSH_E2E_PROSE, "utf8");
    while (prose.length < 40000) prose += "\n\n" + prose;
    for (let i = 0; i < 9999; i++) {
      stream.apply({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: prose.slice(i * 4, i * 4 + 4) } });
      if (i % 100 === 99) await new Promise((r) => setImmediate(r));
    }
    stream.apply({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: "\n\nEND-OF-STREAM" } });
    const streamed = performance.now() - t1;
    await waitFor(async () => (await ask({ op: "query" })).text.includes("END-OF-STREAM"), 30000, "the last chunk painted");
    const frames = painted.map((p) => p.frameMs).sort((a, b) => a - b);
    result.bench.chunks10000 = {
      applyMs: streamed,
      toLastPaintedMs: performance.now() - t1,
      frames: frames.length,
      p50FrameMs: frames[Math.floor(frames.length / 2)],
      p99FrameMs: frames[Math.floor(frames.length * 0.99)],
      maxFrameMs: frames[frames.length - 1],
      all: frames.map((f) => Math.round(f * 10) / 10),
    };

    // a crashed agent is reported in the view, with a Restart that works
    c.agent.child.kill("SIGKILL");
    const banner = await waitFor(async () => {
      const q = await ask({ op: "query" });
      return q.banner && /exited/.test(q.banner) ? q.banner : null;
    }, 10000, "the crash banner");
    check("crash reported in the view", /dsh-bridge exited \(SIGKILL\)/.test(banner), banner);
    await ask({ op: "click", selector: ".banner button.restart" });
    await waitFor(() => c.agent && !c.agent.exited && c.current && c.current.blocks.length >= 0 && c.view.isReady, 20000, "the restarted agent");
    const again = c.current;
    // what the prompt sends: its @ mentions as content blocks
    let sent;
    const prompt = c.agent.prompt.bind(c.agent);
    c.agent.prompt = (st, blocks) => ((sent = blocks), prompt(st, blocks));
    await ask({ op: "type", text: "after the restart, with @hello.txt and @notes.txt and @missing.txt" });
    await waitFor(async () => (await ask({ op: "query" })).cards.some((x) => x.buttons.length > 0) || again.blocks.some((b) => b.kind === "agent"), 20000, "a turn after the restart");
    check("a turn runs after the restart", again.blocks.some((b) => b.kind === "user" && b.text.startsWith("after the restart")), again.blocks.map((b) => b.kind));
    const uriOf = (b) => b.type === "resource" ? b.resource.uri : b.uri;
    const hello = sent?.find((b) => uriOf(b)?.endsWith("/hello.txt"));
    check("@ mentions are sent: an open file's text embedded, another as a resource_link, a missing one not at all",
      hello?.type === "resource" && hello.resource.text === fs.readFileSync(file, "utf8") &&
      sent.some((b) => (b.type === "resource_link" || b.type === "resource") && uriOf(b).endsWith("/notes.txt")) && !sent.some((b) => /missing/.test(uriOf(b) ?? "")),
      sent?.map((b) => `${b.type}:${uriOf(b) ?? ""}`));
    await c.cancel();
    await sleep(500);
    // Then the window reloads: the harness goes on in the new extension
    // host (reloaded), where the last chat must be back.
    // the chat shown last is the first one, its turn done
    c.chats.set(s.id, s);
    c.select(s);
    // another workspace's last chat, as a global memory would hold it: the
    // reload must bring back this workspace's
    await c.ctx.globalState.update("dshBridge.lastChat", { id: "a-chat-of-another-workspace", cwd: "/elsewhere" });
    await sleep(300);
    fs.writeFileSync(out + ".phase1", JSON.stringify({ result, lastId: s.id }));
    // (the command's promise is cancelled as this extension host ends)
    vscode.commands.executeCommand("workbench.action.reloadWindow").then(undefined, () => {});
    return;
  } catch (err) {
    result.errors.push(String(err && err.stack || err));
    result.ok = false;
  }
  fs.writeFileSync(out, JSON.stringify(result, null, 1));
}

module.exports = { activate, deactivate() {} };
