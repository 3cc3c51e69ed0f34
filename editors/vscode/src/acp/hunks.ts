// Choosing hunks of a proposal (docs/meta-dsh.md, partialApproval): the
// hunks a permission request offers, the person's accept/reject per hunk,
// and the answer that choice makes. No vscode here: the diff editor's
// CodeLens and title bar (review.ts) and the card draw from it.
import type { PendingPermission, ToolCallBlock } from "./session.js";

/** One hunk of a proposal, as the diff editor anchors it. */
export interface ProposedHunk {
  index: number;
  header: string;
  /** 0-based line of the proposed (new) text where the hunk's change
   * starts: its first added line, else the line its removal leaves next */
  anchor: number;
  added: number;
  removed: number;
}

/** offeredHunks is the hunks a call's pending permission request lets the
 * person choose among: those of its `_meta.dsh.changes`, in order across
 * the entries, when the request's `partialApproval.hunks` says as many;
 * else none (the proposal is taken or rejected whole). */
export function offeredHunks(call: ToolCallBlock | undefined): ProposedHunk[] {
  const offered = call?.permission?.hunks;
  const changes = call?.dsh.changes;
  if (!offered || !Array.isArray(changes)) return [];
  const out: ProposedHunk[] = [];
  for (const ch of changes)
    for (const h of Array.isArray(ch.hunks) ? ch.hunks : []) {
      const lines: Array<{ op: string }> = Array.isArray(h.lines) ? h.lines : [];
      const lead = lines.findIndex((l) => l.op !== " ");
      const added = lines.filter((l) => l.op === "+").length;
      const removed = lines.filter((l) => l.op === "-").length;
      const start = Math.max((Number(h.newStart) || 0) - 1, 0);
      out.push({
        index: out.length,
        header: `@@ -${h.oldStart},${h.oldLines} +${h.newStart},${h.newLines} @@`,
        anchor: start + Math.max(lead, 0),
        added,
        removed,
      });
    }
  return out.length === offered ? out : [];
}

/** HunkChoice is the person's choice among a proposal's hunks: every hunk
 * accepted until they reject it. */
export class HunkChoice {
  private readonly rejected = new Set<number>();
  constructor(readonly count: number) {}

  accepted(i: number): boolean {
    return !this.rejected.has(i);
  }
  set(i: number, accept: boolean): void {
    if (i < 0 || i >= this.count) return;
    if (accept) this.rejected.delete(i);
    else this.rejected.add(i);
  }
  toggle(i: number): void {
    this.set(i, !this.accepted(i));
  }
  /** the indices accepted, ascending */
  selection(): number[] {
    return Array.from({ length: this.count }, (_, i) => i).filter((i) => this.accepted(i));
  }
  /** summary says what the choice is, for the card and the title bar */
  summary(): string {
    const n = this.selection().length;
    if (n === this.count) return `all ${this.count} hunks accepted`;
    if (n === 0) return `all ${this.count} hunks rejected`;
    const off = this.count - n;
    return `${n} of ${this.count} hunks accepted, ${off} rejected`;
  }
}

/** The answer to a permission request: an option, and the hunks it
 * accepts when it accepts some only. */
export interface HunkAnswer {
  optionId: string;
  hunks?: number[];
}

/** answerFor is what applying choice answers req: every hunk accepted is
 * an approval of the whole call (allow_once, no list); none is a
 * rejection (reject_once); some is allow_once with their indices.
 * Undefined when req offers no such option. */
export function answerFor(req: PendingPermission, choice: HunkChoice): HunkAnswer | undefined {
  const sel = choice.selection();
  const kind = sel.length === 0 ? "reject_once" : "allow_once";
  const opt = req.options.find((o) => o.kind === kind);
  if (!opt) return undefined;
  if (sel.length === 0 || sel.length === choice.count) return { optionId: opt.optionId };
  return { optionId: opt.optionId, hunks: sel };
}
