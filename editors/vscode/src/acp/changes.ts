// Checkpoints as the chat sees them: which user messages a rewind can
// go back to, which files the session changed (from its edit and write
// cards), what a rewind would undo, and a file's text before the
// session, rebuilt from the cards. Plain functions over a session's
// blocks, no `vscode` import: tested in plain Node.
import { hunksOf, proposedDiffs } from "./cards.js";
import type { Block, TextBlock, ToolCallBlock } from "./session.js";

/** One file the session changed: the lines its completed calls added
 * and removed (summed over the calls, not netted), and whether the
 * first of them created it. */
export interface ChangedFile {
  path: string;
  added: number;
  removed: number;
  created: boolean;
}

/** A call's file changes: those of an edit or write that completed (a
 * rejected, failed or pending one changed nothing), where a side differs.
 * ACP's diff content names absolute paths; a card's may be as the model
 * wrote them, so those are taken from cwd. */
function changesOf(b: Block, cwd: string): Array<{ path: string; oldText: string | null; newText: string }> {
  if (b.kind !== "tool" || b.status !== "completed") return [];
  const call = b as ToolCallBlock;
  const content = call.content.filter((c) => c?.type === "diff").map((c: any) => ({ path: String(c.path ?? ""), oldText: typeof c.oldText === "string" ? c.oldText : null, newText: String(c.newText ?? "") }));
  const diffs = content.length > 0 ? content : proposedDiffs(call).map((d) => ({ ...d, path: absolute(d.path, cwd) }));
  return diffs.filter((d) => d.path !== "" && d.oldText !== d.newText);
}

/** absolute takes a relative path from cwd. */
export function absolute(p: string, cwd: string): string {
  if (p === "" || cwd === "" || p.startsWith("/") || /^[A-Za-z]:[\\/]/.test(p) || p.startsWith("\\\\")) return p;
  return `${cwd.replace(/[\\/]+$/, "")}/${p.replace(/^\.[\\/]/, "")}`;
}

/** changedFiles lists the files the session's blocks changed, in the
 * order first changed. */
export function changedFiles(blocks: readonly Block[], cwd = ""): ChangedFile[] {
  const byPath = new Map<string, ChangedFile>();
  for (const b of blocks) {
    for (const d of changesOf(b, cwd)) {
      let f = byPath.get(d.path);
      if (!f) {
        f = { path: d.path, added: 0, removed: 0, created: d.oldText === null };
        byPath.set(d.path, f);
      }
      for (const h of hunksOf(d.oldText ?? "", d.newText))
        for (const l of h.lines) {
          if (l.op === "+") f.added++;
          else if (l.op === "-") f.removed++;
        }
    }
  }
  return [...byPath.values()];
}

/** rewindable says whether a rewind can go back to before a block: a
 * user message the agent named (messageId). */
export function rewindable(b: Block): b is TextBlock & { messageId: string } {
  return b.kind === "user" && typeof (b as TextBlock).messageId === "string" && (b as TextBlock).messageId !== "";
}

/** firstChangeTurn is the user message of the first turn that changed a
 * file: the one "Undo all" rewinds to before. Undefined when no file was
 * changed, or the turn's message has no id. */
export function firstChangeTurn(blocks: readonly Block[], cwd = ""): (TextBlock & { messageId: string }) | undefined {
  let user: Block | undefined;
  for (const b of blocks) {
    if (b.kind === "user") user = b;
    else if (changesOf(b, cwd).length > 0) return user && rewindable(user) ? user : undefined;
  }
  return undefined;
}

/** What a rewind to before the user message at index `at` undoes: the
 * turns it drops (that one and every later one) and the files they
 * changed. */
export function rewindScope(blocks: readonly Block[], at: number, cwd = ""): { turns: number; files: string[] } {
  const rest = blocks.slice(at);
  return { turns: rest.filter((b) => b.kind === "user").length, files: changedFiles(rest, cwd).map((f) => f.path) };
}

/** confirmText is what the person is asked before a rewind. */
export function confirmText(message: string, scope: { turns: number; files: string[] }, rel: (p: string) => string = (p) => p): string {
  const quoted = message.length > 60 ? `${message.slice(0, 59).trimEnd()}…` : message;
  const turns = scope.turns === 1 ? "this turn" : `this turn and the ${scope.turns - 1} after it`;
  const files = scope.files.length === 0 ? "No file is changed back." : `Files put back: ${scope.files.map(rel).join(", ")}.`;
  return `Restore the checkpoint before "${quoted}"? It removes ${turns} from the chat. ${files}`;
}

/** beforeSession rebuilds a file's text from before the session, from
 * its text now (null: it does not exist): each completed change is
 * undone, newest first, where its new text is found once. null: the
 * file did not exist before; undefined: the cards do not tell (the file
 * changed since in a way they do not show). */
export function beforeSession(blocks: readonly Block[], path: string, now: string | null, cwd = ""): string | null | undefined {
  const steps: Array<{ oldText: string | null; newText: string }> = [];
  for (const b of blocks) for (const d of changesOf(b, cwd)) if (d.path === path) steps.push(d);
  if (steps.length === 0) return now;
  let text = now;
  for (let i = steps.length - 1; i >= 0; i--) {
    const { oldText, newText } = steps[i]!;
    if (text === null) return undefined;
    if (oldText === null) {
      // a write of the whole file (it was created): before it, nothing
      if (text !== newText) return undefined;
      text = null;
      continue;
    }
    if (newText === text) {
      text = oldText;
      continue;
    }
    const at = newText === "" ? -1 : text.indexOf(newText);
    if (at < 0 || text.indexOf(newText, at + 1) >= 0) return undefined;
    text = text.slice(0, at) + oldText + text.slice(at + newText.length);
  }
  return text;
}
