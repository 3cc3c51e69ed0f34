// dsh-bridge for VS Code: activation wires the controller, the chat view
// and the commands; deactivation kills the agent.
import * as vscode from "vscode";
import { SignInRequired } from "./acp/connection.js";
import { Controller } from "./controller.js";
import { mime } from "./editor.js";
import { ChatView } from "./ui/view.js";

let controller: Controller | undefined;

/** The API other extensions (the end-to-end harness) get from activate(). */
export interface Api {
  controller: Controller;
  activationMs: number;
}

export function activate(ctx: vscode.ExtensionContext): Api {
  const started = performance.now();
  // The page's test hooks answer only under the end-to-end harness.
  const c = new Controller(ctx, !!process.env.DSH_E2E_RESULT);
  controller = c;
  ctx.subscriptions.push(
    c,
    c.log,
    vscode.window.registerWebviewViewProvider(ChatView.id, c.view, { webviewOptions: { retainContextWhenHidden: true } }),
    vscode.commands.registerCommand("dshBridge.newChat", async () => {
      c.view.show();
      await c.newChat().catch((err) => {
        if (!(err instanceof SignInRequired)) throw err; // else the sign-in panel shows
      });
    }),
    vscode.commands.registerCommand("dshBridge.sessions", () => c.sessions()),
    vscode.commands.registerCommand("dshBridge.cancel", () => c.cancel()),
    vscode.commands.registerCommand("dshBridge.restart", () => c.restart()),
    vscode.commands.registerCommand("dshBridge.showLog", () => c.log.show()),
    vscode.commands.registerCommand("dshBridge.setApiKey", async () => {
      if (!(await c.setApiKey())) return;
      if (c.agent) {
        const r = await vscode.window.showInformationMessage("dsh-bridge: the key is stored. Restart the agent to use it?", "Restart");
        if (r === "Restart") await c.restart();
      }
    }),
    vscode.commands.registerCommand("dshBridge.addFile", async (uri?: vscode.Uri) => {
      const target = uri ?? vscode.window.activeTextEditor?.document.uri;
      if (!target) return;
      await c.attachFile(target);
      c.view.show();
    }),
    vscode.commands.registerCommand("dshBridge.focus", () => c.focus()),
    // the diff editor's title bar, on a proposal opened with "Open diff"
    vscode.commands.registerCommand("dshBridge.acceptProposal", (uri?: vscode.Uri) => c.review.answer("allow_once", uri)),
    vscode.commands.registerCommand("dshBridge.rejectProposal", (uri?: vscode.Uri) => c.review.answer("reject_once", uri)),
    vscode.commands.registerCommand("dshBridge.applySelectedHunks", (uri?: vscode.Uri) => c.review.applySelected(uri)),
    // the CodeLenses on a proposal's hunks
    vscode.commands.registerCommand("dshBridge.acceptHunk", (uri: vscode.Uri, i: number) => c.review.choose(uri, i, true)),
    vscode.commands.registerCommand("dshBridge.rejectHunk", (uri: vscode.Uri, i: number) => c.review.choose(uri, i, false)),
    vscode.commands.registerCommand("dshBridge.addSelection", () => {
      const ed = vscode.window.activeTextEditor;
      if (!ed || ed.selection.isEmpty) return;
      const { start, end } = ed.selection;
      const uri = `${ed.document.uri.toString()}#L${start.line + 1}-${end.line + 1}`;
      c.attach(`${vscode.workspace.asRelativePath(ed.document.uri)}:${start.line + 1}-${end.line + 1}`, {
        type: "resource",
        resource: { uri, text: ed.document.getText(ed.selection), mimeType: mime(ed.document.languageId) },
      });
      c.view.show();
    }),
  );
  const activationMs = performance.now() - started;
  c.log.appendLine(`activated in ${activationMs.toFixed(1)} ms`);
  return { controller: c, activationMs };
}

export function deactivate(): Promise<void> | undefined {
  const c = controller;
  controller = undefined;
  if (!c?.agent) return undefined;
  c.host.dispose();
  return c.agent.dispose(500);
}
