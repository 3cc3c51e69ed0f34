// Review in the editor: a proposed edit opened in VS Code's diff editor
// ("Open diff"), answered from that editor's title bar (Accept all,
// Reject, Apply selected) and, where the proposal has several hunks, per
// hunk from CodeLenses on the proposed side (Accept hunk, Reject hunk);
// closed once its call settles (its proposed side is no longer a
// proposal).
import * as vscode from "vscode";
import { proposedDiffs } from "./acp/cards.js";
import { HunkChoice, answerFor, offeredHunks } from "./acp/hunks.js";
import type { SessionState } from "./acp/session.js";
import { ProposedDocs, SCHEME } from "./proposed.js";

export class Review implements vscode.Disposable, vscode.CodeLensProvider {
  readonly proposed = new ProposedDocs();
  /** the proposed sides of the diff editors opened, per call */
  private readonly tabs = new Map<string, { session: SessionState; uris: string[] }>();
  /** the person's choice among a call's hunks, per call */
  private readonly choices = new Map<string, HunkChoice>();
  private readonly lensesChanged = new vscode.EventEmitter<void>();
  readonly onDidChangeCodeLenses = this.lensesChanged.event;
  private readonly lensReg = vscode.languages.registerCodeLensProvider({ scheme: SCHEME }, this);

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
    this.lensesChanged.fire();
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

  /** choiceOf is the choice among the hunks of the call uri shows, when
   * its pending request offers several (one is accepted or rejected whole). */
  private choiceOf(uri?: vscode.Uri) {
    const at = this.callOf(uri);
    const call = at && at.session.calls.get(at.toolCallId);
    const hunks = offeredHunks(call);
    if (!at || !call?.permission || hunks.length < 2) return undefined;
    let choice = this.choices.get(at.toolCallId);
    if (!choice || choice.count !== hunks.length) this.choices.set(at.toolCallId, (choice = new HunkChoice(hunks.length)));
    return { ...at, req: call.permission, hunks, choice };
  }

  provideCodeLenses(doc: vscode.TextDocument): vscode.CodeLens[] {
    const c = this.choiceOf(doc.uri);
    if (!c) return [];
    const out: vscode.CodeLens[] = [];
    for (const h of c.hunks) {
      const line = Math.min(h.anchor, Math.max(doc.lineCount - 1, 0));
      const range = new vscode.Range(line, 0, line, 0);
      const accepted = c.choice.accepted(h.index);
      const state = `Hunk ${h.index + 1} of ${c.hunks.length}: ${accepted ? "accepted" : "rejected"}`;
      out.push(new vscode.CodeLens(range, { title: state, command: "" }));
      out.push(
        accepted
          ? new vscode.CodeLens(range, { title: "Reject hunk", command: "dshBridge.rejectHunk", arguments: [doc.uri, h.index] })
          : new vscode.CodeLens(range, { title: "Accept hunk", command: "dshBridge.acceptHunk", arguments: [doc.uri, h.index] }),
      );
    }
    return out;
  }

  /** choose accepts or rejects one hunk of the proposal uri shows. False
   * when that proposal offers no choice of hunks. */
  choose(uri: vscode.Uri | undefined, index: number, accept: boolean): boolean {
    const c = this.choiceOf(uri);
    if (!c) return false;
    c.choice.set(index, accept);
    c.session.chooseHunks(c.toolCallId, c.hunks.map((h) => h.index).filter((i) => !c.choice.accepted(i)));
    this.lensesChanged.fire();
    return true;
  }

  /** answer gives the person's answer from the diff editor's title bar to
   * the call it shows: the first of the agent's options of that kind
   * (allow_once or reject_once), for the whole call. False when nothing
   * there is asked. */
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

  /** applySelected answers with the hunks chosen (answerFor): some
   * accepted, those only; all, the whole call; none, a rejection. A
   * proposal without a choice of hunks is accepted whole. */
  applySelected(uri?: vscode.Uri): boolean {
    const c = this.choiceOf(uri);
    if (!c) return this.answer("allow_once", uri);
    const a = answerFor(c.req, c.choice);
    if (!a) return false;
    c.req.respond(a.optionId, a.hunks);
    return true;
  }

  /** settled closes the diff editors of a call that has completed or failed. */
  async settled(toolCallId: string): Promise<void> {
    this.choices.delete(toolCallId);
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
    this.lensReg.dispose();
    this.lensesChanged.dispose();
    this.proposed.dispose();
  }
}
