// The prompt box's completions, as plain functions of its text (no DOM):
// slash commands while the first word is typed, and `path:line`
// references in answers. The page and the plain-Node tests share them.
import type { CommandView } from "./protocol.js";

/** slashQuery is what follows "/" up to the caret while the prompt is one
 * word starting with "/"; undefined otherwise (the completion is closed:
 * taking one would replace what follows the name). */
export function slashQuery(text: string, caret = text.length): string | undefined {
  if (!text.startsWith("/") || /\s/.test(text)) return undefined;
  return text.slice(1, caret);
}

/** SLASH_MAX bounds the completion's list (the page draws each row on
 * every key; an agent may advertise thousands). */
export const SLASH_MAX = 50;

/** slashMatches lists up to limit commands for a query: names that start
 * with it first, then names and descriptions that contain it;
 * case-insensitive. */
export function slashMatches(commands: CommandView[], query: string, limit = SLASH_MAX): CommandView[] {
  const q = query.toLowerCase();
  const starts = commands.filter((c) => c.name.toLowerCase().startsWith(q));
  const inside = commands.filter((c) => !starts.includes(c) && q !== "" && (c.name.toLowerCase().includes(q) || c.description.toLowerCase().includes(q)));
  return [...starts, ...inside].slice(0, limit);
}

/** slashHint is the input hint of the command the prompt names, once its
 * name is typed in full and followed by a space with nothing after it. */
export function slashHint(commands: CommandView[], text: string): string | undefined {
  const m = /^\/(\S+)\s(.*)$/s.exec(text);
  if (!m || m[2]!.trim() !== "") return undefined;
  return commands.find((c) => c.name === m[1])?.hint;
}

/** A `path:line` reference found in text: [start, end) and its parts. */
export interface PathRef {
  start: number;
  end: number;
  path: string;
  line: number;
}

// A path has a slash or a dot-extension (so "note:3" or "12:30" is not
// one), then :line, optionally :column.
const REF = /(?<![\w/.:-])((?:\.{0,2}\/)?(?:[\w.@+-]+\/)*[\w@+-][\w.@+-]*\.[A-Za-z][A-Za-z0-9]{0,9}):(\d{1,7})(?::\d{1,5})?(?![\w:])/g;

/** pathRefs finds `path:line` (and `path:line:col`) references. */
export function pathRefs(text: string): PathRef[] {
  const out: PathRef[] = [];
  for (const m of text.matchAll(REF)) {
    const line = Number(m[2]);
    if (line < 1) continue;
    out.push({ start: m.index!, end: m.index! + m[0].length, path: m[1]!, line });
  }
  return out;
}

/** mentionQuery is the `@word` being typed at the caret: where its "@"
 * is and what follows it; undefined when the caret is not in one. An "@"
 * inside a word (a mail address) starts none. */
export function mentionQuery(text: string, caret = text.length): { at: number; query: string } | undefined {
  const m = /(^|\s)@([^\s@]*)$/.exec(text.slice(0, caret));
  if (!m) return undefined;
  return { at: m.index + m[1]!.length, query: m[2]! };
}

/** mentioned lists the `@path` words of a prompt, once each, in order
 * (trailing punctuation is not part of the path). */
export function mentioned(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(/(?:^|\s)@([^\s@]+)/g)) {
    const p = m[1]!.replace(/[.,;:!?)]+$/, "");
    if (p && !out.includes(p)) out.push(p);
  }
  return out;
}
