// The page's messages, each routed to what answers it: the controller,
// the editor, the highlighter, the workspace's files.
import * as vscode from "vscode";
import { SignInRequired } from "./acp/connection.js";
import type { Controller } from "./controller.js";
import { codeSpans, insertAtCursor, openFile, openLink } from "./editor.js";
import { mentionable } from "./mentions.js";
import { openChange, rewindTo, undoAll } from "./checkpoints.js";
import type { FromWebview } from "./ui/protocol.js";

export async function route(c: Controller, m: FromWebview): Promise<void> {
  try {
    switch (m.type) {
      case "send":
        await c.send(m.text);
        break;
      case "cancel":
        await c.cancel();
        break;
      case "permission": {
        const call = c.current?.calls.get(m.toolCallId);
        call?.permission?.respond(m.optionId);
        break;
      }
      case "openDiff":
        await c.openDiff(m.toolCallId);
        break;
      case "restore":
        await rewindTo(c, m.seq, true);
        break;
      case "undoAll":
        await undoAll(c);
        break;
      case "openChange":
        await openChange(c.beforeDocs, c.current, m.path);
        break;
      case "openFile":
        await openFile(m.path, m.line, c.current?.cwd ?? c.cwd, m.answer === true, m.column);
        break;
      case "openTerminal":
        c.host.showTerminal(m.terminalId, m.title);
        break;
      case "openLink":
        await openLink(m.href);
        break;
      case "pick":
        await c.pick(m.picker, m.value);
        break;
      case "highlight":
        c.view.post({ type: "highlighted", id: m.id, lines: await codeSpans(c.highlighter, m.lang, m.text) });
        break;
      case "mention":
        c.view.post({ type: "mentions", query: m.query, paths: await mentionable(m.query) });
        break;
      case "attach":
        for (const u of m.uris) await c.attachFile(vscode.Uri.parse(u));
        break;
      case "copy":
        await vscode.env.clipboard.writeText(m.text);
        break;
      case "insert":
        await insertAtCursor(m.text);
        break;
      case "newChat":
        await c.newChat();
        break;
      case "sessions":
        await c.sessions();
        break;
      case "switchChat": {
        const s = c.chats.get(m.sessionId);
        if (s) c.select(s);
        break;
      }
      case "restart":
        await c.restart();
        break;
      case "signin":
        await c.signIn(m.how);
        break;
      case "painted":
        c.onPainted?.(m);
        break;
      case "test":
        c.onTest?.(m);
        break;
    }
  } catch (err) {
    if (err instanceof SignInRequired) return; // the sign-in panel is showing
    c.log.appendLine(`${m.type}: ${(err as Error).stack ?? err}`);
    void vscode.window.showErrorMessage(`dsh-bridge: ${(err as Error).message}`);
  }
}
