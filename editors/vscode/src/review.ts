// Review in the editor: a proposed edit opened in VS Code's diff editor
// ("Open diff"), answered from that editor's title bar (Accept, Reject),
// and closed once its call settles (its proposed side is no longer a
// proposal).
import * as vscode from "vscode";
import { proposedDiffs } from "./acp/cards.js";
import type { SessionState } from "./acp/session.js";
import { ProposedDocs } from "./proposed.js";

export class Review implements vscode.Disposable {
  readonly proposed = new ProposedDocs();
  /** the proposed sides of the diff editors opened, per call */
  private readonly tabs = new Map<string, { session: SessionState; uris: string[] }>();

  /** open shows each file of a call's proposal in a diff editor. */
  async open(s: SessionState, toolCallId: string, cwd: string): Promise<void> {
    const call = s.calls.get(toolCallId);
    if (!call) return;
    for (const d of proposedDiffs(call)) {
      const path = d.path.startsWith("/") ? d.path : `${cwd}/${d.path}`;
      const { left, right } = await this.proposed.pair(path, d.oldText, d.newText);
      const t = this.tabs.get(toolCallId) ?? { session: s, uris: [] };
      t.uris.push(right.toString());
      this.tabs.set(toolCallId, t);
      await vscode.commands.executeCommand("vscode.diff", left, right, `${path.split("/").pop()} (proposed by dsh-bridge)`, { preview: true });
    }
  }

  /** callOf is the call whose proposal uri shows (the diff editor's
   * modified side), else the active diff editor's. */
  callOf(uri?: vscode.Uri): { session: SessionState; toolCallId: string } | undefined {
    let key = uri?.toString();
    if (!key) {
      const input = vscode.window.tabGroups.activeTabGroup.activeTab?.input;
      if (input instanceof vscode.TabInputTextDiff) key = input.modified.toString();
    }
    if (!key) return undefined;
    for (const [toolCallId, t] of this.tabs) if (t.uris.includes(key)) return { session: t.session, toolCallId };
    return undefined;
  }

  /** answer gives the person's answer from the diff editor's title bar to
   * the call it shows: the first of the agent's options of that kind
   * (allow_once or reject_once). False when nothing there is asked. */
  answer(kind: "allow_once" | "reject_once", uri?: vscode.Uri): boolean {
    const at = this.callOf(uri);
    const req = at && at.session.calls.get(at.toolCallId)?.permission;
    const opt = req?.options.find((o) => o.kind === kind);
    if (!req || !opt) {
      void vscode.window.showInformationMessage("dsh-bridge: this change is not waiting for an answer.");
      return false;
    }
    req.respond(opt.optionId);
    return true;
  }

  /** settled closes the diff editors of a call that has completed or failed. */
  async settled(toolCallId: string): Promise<void> {
    const t = this.tabs.get(toolCallId);
    if (!t) return;
    this.tabs.delete(toolCallId);
    const open = vscode.window.tabGroups.all
      .flatMap((g) => g.tabs)
      .filter((tab) => tab.input instanceof vscode.TabInputTextDiff && t.uris.includes(tab.input.modified.toString()));
    if (open.length > 0) await vscode.window.tabGroups.close(open);
    this.proposed.forget(t.uris);
  }

  dispose(): void {
    this.proposed.dispose();
  }
}
