// Checkpoints in the chat: "Restore checkpoint" on a user message, and
// the changed-files list's "Undo all" and per-file diff. Both rewind
// through the agent's _dsh/session/rewind (docs/meta-dsh.md); after a
// rewind the chat drops the cut turns, and a restored message goes back
// into the prompt box.
import * as vscode from "vscode";
import { beforeSession, changedFiles, confirmText, firstChangeTurn, rewindScope } from "./acp/changes.js";
import type { SessionState } from "./acp/session.js";
import type { Controller } from "./controller.js";
import { relativeTo } from "./ui/present.js";

/** The scheme of a changed file's text before the session (the diff's
 * left side). */
export const BEFORE_SCHEME = "dsh-before";

export class BeforeDocs implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly docs = new Map<string, string>();
  private readonly reg = vscode.workspace.registerTextDocumentContentProvider(BEFORE_SCHEME, this);
  private seq = 0;

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.docs.get(uri.toString()) ?? "";
  }

  add(path: string, text: string): vscode.Uri {
    const uri = vscode.Uri.from({ scheme: BEFORE_SCHEME, path, query: String(++this.seq) });
    this.docs.set(uri.toString(), text);
    return uri;
  }

  dispose(): void {
    this.reg.dispose();
    this.docs.clear();
  }
}

/** rewindTo rewinds the current chat to before its user message of that
 * seq, after the person confirms (restoreText: the message goes back
 * into the prompt box). An error (an unknown id, a turn running) is
 * shown and changes nothing. True when the rewind happened. */
export async function rewindTo(c: Controller, seq: number, restoreText: boolean): Promise<boolean> {
  const s = c.current;
  const agent = c.agent;
  if (!s || !agent) return false;
  const at = s.blocks.findIndex((b) => b.seq === seq);
  const user = s.blocks[at];
  if (!user || user.kind !== "user" || !user.messageId) return false;
  if (s.running) {
    void vscode.window.showWarningMessage("dsh-bridge: a turn is running; stop it before restoring a checkpoint.");
    return false;
  }
  const scope = rewindScope(s.blocks, at, s.cwd);
  if (!(await c.confirmRewind(confirmText(user.text, scope, relativeTo(s.cwd))))) return false;
  const upTo = s.blocks.length;
  let r;
  try {
    r = await agent.rewind(s, user.messageId);
  } catch (err) {
    const msg = `Restore checkpoint failed: ${(err as Error).message}`;
    c.log.appendLine(msg);
    c.rewindError?.(msg);
    void vscode.window.showErrorMessage(`dsh-bridge: ${msg}`);
    return false;
  }
  if (r.cancelled) {
    s.notice("info", "Rewind cancelled: nothing was changed.");
    return false;
  }
  s.cut(at, upTo);
  const rel = relativeTo(s.cwd);
  const said = (head: string, paths: string[]) => (paths.length > 0 ? ` ${head}: ${paths.map(rel).join(", ")}.` : "");
  const left = said("Kept as you changed them", r.kept) + said("Not restorable", r.notRestorable) + said("Could not be restored", r.failed);
  if (left) s.notice("warning", `Rewound; some files were not put back.${left}`);
  c.reset();
  if (restoreText) c.view.post({ type: "fill", text: user.input ?? user.text });
  return true;
}

/** undoAll rewinds to before the first turn that changed a file. */
export async function undoAll(c: Controller): Promise<boolean> {
  const first = c.current && firstChangeTurn(c.current.blocks, c.current.cwd);
  if (!first) {
    void vscode.window.showInformationMessage("dsh-bridge: no file change of this chat can be undone.");
    return false;
  }
  return rewindTo(c, first.seq, false);
}

/** openChange opens a changed file's diff: its text before the session
 * (rebuilt from the cards) against the file now. Only a file the list
 * holds is opened (the page's message names it). */
export async function openChange(docs: BeforeDocs, s: SessionState | undefined, path: string): Promise<void> {
  if (!s || !changedFiles(s.blocks, s.cwd).some((f) => f.path === path)) return;
  const uri = vscode.Uri.file(path);
  let now: string | null;
  try {
    now = new TextDecoder().decode(await vscode.workspace.fs.readFile(uri));
  } catch {
    now = null;
  }
  const before = beforeSession(s.blocks, path, now, s.cwd);
  const name = path.split(/[\\/]/).pop();
  if (before === undefined) {
    void vscode.window.showInformationMessage(`dsh-bridge: ${name} changed since in a way the chat does not show; opening the file.`);
    if (now !== null) await vscode.window.showTextDocument(uri, { preview: true });
    return;
  }
  const right = now === null ? docs.add(path, "") : uri;
  await vscode.commands.executeCommand("vscode.diff", docs.add(path, before ?? ""), right, `${name} (before the session ↔ now)`, { preview: true });
}
