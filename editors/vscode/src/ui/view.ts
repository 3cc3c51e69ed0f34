// The chat view: a webview view in its own activity-bar container. Strict
// CSP with a nonce; nothing remote; every agent string reaches the page as
// data and is escaped there. Messages from the extension are batched (one
// post per 16 ms); the page draws them once per animation frame.
import * as vscode from "vscode";
import { randomBytes } from "node:crypto";
import type { FromWebview, ToWebview } from "./protocol.js";

export class ChatView implements vscode.WebviewViewProvider {
  static readonly id = "dshBridge.chat";
  private view: vscode.WebviewView | undefined;
  private queue: ToWebview[] = [];
  private timer: NodeJS.Timeout | undefined;
  private ready = false;

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly onMessage: (m: FromWebview) => void,
    private readonly onReady: () => void,
    private readonly testMode = false,
  ) {}

  resolveWebviewView(view: vscode.WebviewView): void {
    this.view = view;
    this.ready = false;
    const dist = vscode.Uri.joinPath(this.extensionUri, "dist");
    view.webview.options = { enableScripts: true, localResourceRoots: [dist] };
    view.webview.html = this.html(view.webview, dist);
    view.webview.onDidReceiveMessage((m: FromWebview) => {
      if (m?.type === "ready") {
        this.ready = true;
        this.postConfig();
        this.onReady();
      }
      this.onMessage(m);
    });
    // tabs in cards are as wide as in the editor
    const watch = vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration("editor.tabSize")) this.postConfig();
    });
    view.onDidDispose(() => {
      watch.dispose();
      this.view = undefined;
      this.ready = false;
    });
  }

  private postConfig(): void {
    const tabSize = vscode.workspace.getConfiguration("editor").get<number>("tabSize");
    this.post({ type: "config", tabSize: typeof tabSize === "number" && tabSize > 0 ? tabSize : 4 });
  }

  get visible(): boolean {
    return !!this.view?.visible;
  }

  /** post queues a message; a "reset" drops the block and header messages
   * queued before it (it carries their state), and only those: an answer
   * to the page (highlighted, mentions, test) still reaches it. */
  post(m: ToWebview): void {
    if (m.type === "reset") this.queue = this.queue.filter((q) => q.type !== "blocks" && q.type !== "header" && q.type !== "reset");
    this.queue.push(m);
    this.timer ??= setTimeout(() => this.flush(), 16);
  }

  private flush(): void {
    this.timer = undefined;
    if (!this.view || !this.ready || this.queue.length === 0) return;
    const batch = coalesce(this.queue);
    this.queue = [];
    void this.view.webview.postMessage({ type: "batch", messages: batch });
  }

  get isReady(): boolean {
    return this.ready;
  }

  show(): void {
    if (this.view) this.view.show(true);
    else void vscode.commands.executeCommand(`${ChatView.id}.focus`);
  }

  private html(webview: vscode.Webview, dist: vscode.Uri): string {
    const nonce = randomBytes(16).toString("base64");
    const script = webview.asWebviewUri(vscode.Uri.joinPath(dist, "webview.js"));
    const style = webview.asWebviewUri(vscode.Uri.joinPath(dist, "webview.css"));
    const csp = [
      "default-src 'none'",
      `style-src ${webview.cspSource}`,
      `script-src 'nonce-${nonce}'`,
      `img-src ${webview.cspSource}`,
      `font-src ${webview.cspSource}`,
    ].join("; ");
    return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" href="${style}">
<title>dsh-bridge</title>
</head>
<body data-test="${this.testMode ? "1" : ""}">
<div id="app"></div>
<script nonce="${nonce}" src="${script}"></script>
</body>
</html>`;
  }
}

/** coalesce keeps the last state of each block within a batch (a block
 * streamed 200 times in 16 ms is sent once), in first-seen order. */
export function coalesce(batch: ToWebview[]): ToWebview[] {
  const out: ToWebview[] = [];
  const slots = new Map<string, Map<number, number>>(); // session -> seq -> index in the merged message
  let merged: Extract<ToWebview, { type: "blocks" }> | undefined;
  for (const m of batch) {
    if (m.type !== "blocks") {
      merged = undefined;
      out.push(m);
      continue;
    }
    if (!merged || merged.sessionId !== m.sessionId) {
      merged = { type: "blocks", sessionId: m.sessionId, blocks: [] };
      out.push(merged);
      slots.set(m.sessionId, new Map());
    }
    const seen = slots.get(m.sessionId)!;
    for (const b of m.blocks) {
      const at = seen.get(b.seq);
      if (at === undefined) {
        seen.set(b.seq, merged.blocks.length);
        merged.blocks.push(b);
      } else merged.blocks[at] = b;
    }
  }
  return out;
}
