// The card model: a tool call's state turned into a plain, serialisable
// view (what the webview draws), by card type from `_meta.dsh` when the
// agent sends it (docs/meta-dsh.md) and from the plain ACP content
// otherwise. No `vscode` import.
import type * as acp from "@agentclientprotocol/sdk";
import { structuredPatch } from "diff";
import { contentText, type ToolCallBlock } from "./session.js";
import { diagnosticsOf, type DiagnosticView } from "./diagnostics.js";

export interface DiffLine {
  op: " " | "-" | "+";
  old?: number;
  new?: number;
  text: string;
}
export interface Hunk {
  header: string;
  lines: DiffLine[];
  /** a pending proposal's hunk the person rejected (not to be applied) */
  rejected?: boolean;
}
export interface DiffFile {
  path: string;
  isNew: boolean;
  hunks: Hunk[];
  truncated: boolean;
}
export interface Span {
  s: number; // UTF-16 offsets, as the agent sends them
  e: number;
  c: string; // a token class (see tokenClass)
}
export interface CardView {
  id: string;
  parent?: string;
  status: string;
  title: string;
  acpKind?: string;
  type: "diff" | "read" | "terminal" | "search" | "web" | "generic";
  /** The options asked; remembers: what an "always" option would remember
   * for the session, in words (its _meta.dsh.remembers; empty: this call
   * only; absent: the agent does not say). */
  awaiting?: Array<{ optionId: string; name: string; kind: string; remembers?: string[] }>;
  decision?: string;
  diff?: { files: DiffFile[]; proposed: Array<{ path: string; oldText: string | null; newText: string }> };
  read?: { path: string; offset: number; total?: number; lines: Array<{ n: number; text: string; spans: Span[] }> };
  terminal?: { terminalId?: string; command?: string; description?: string; cwd?: string; output?: string; exitCode?: number | null; signal?: string | null; stopped?: boolean };
  search?: { files: Array<{ path: string; matches: Array<{ line: number; text: string }> }>; paths?: string[]; truncated: boolean; total?: number };
  web?: { url?: string; status?: number; answer?: string; sources: Array<{ url: string; title?: string }> };
  text?: string;
  program?: { lang: string; lines: Array<{ text: string; spans: Span[] }> };
  /** a completed diff card's language-server problems */
  diagnostics?: DiagnosticView[];
}

/** tokenClass maps a chroma token type to one of the webview's colour
 * classes (longest prefix wins); undefined draws plain text. */
export function tokenClass(type: string): string | undefined {
  const rows: Array<[string, string]> = [
    ["KeywordType", "type"],
    ["KeywordConstant", "const"],
    ["Keyword", "kw"],
    ["NameFunction", "fn"],
    ["NameBuiltin", "builtin"],
    ["NameClass", "type"],
    ["NameConstant", "const"],
    ["NameDecorator", "pre"],
    ["NameTag", "tag"],
    ["NameAttribute", "attr"],
    ["NameProperty", "attr"],
    ["NameVariable", "var"],
    ["LiteralStringEscape", "esc"],
    ["LiteralString", "str"],
    ["LiteralNumber", "num"],
    ["Literal", "const"],
    ["OperatorWord", "kw"],
    ["Operator", "op"],
    ["Punctuation", "punct"],
    ["CommentPreproc", "pre"],
    ["Comment", "com"],
    ["GenericDeleted", "del"],
    ["GenericInserted", "ins"],
    ["GenericHeading", "head"],
    ["Error", "err"],
  ];
  for (const [prefix, cls] of rows) if (type.startsWith(prefix)) return cls;
  return undefined;
}

function spans(list: unknown): Span[] {
  if (!Array.isArray(list)) return [];
  const out: Span[] = [];
  for (const t of list) {
    const c = t && typeof t.type === "string" ? tokenClass(t.type) : undefined;
    if (c && Number.isInteger(t.start) && Number.isInteger(t.end) && t.end > t.start) out.push({ s: t.start, e: t.end, c });
  }
  return out;
}

const str = (v: unknown): string => (typeof v === "string" ? v : v == null ? "" : String(v));

/** hunksOf computes unified hunks (3 lines of context), with line numbers. */
export function hunksOf(oldText: string, newText: string): Hunk[] {
  const patch = structuredPatch("a", "b", oldText, newText, "", "", { context: 3 });
  return patch.hunks.map((h) => {
    let o = h.oldStart;
    let n = h.newStart;
    const lines: DiffLine[] = [];
    for (const raw of h.lines) {
      if (raw.startsWith("\\")) continue; // "\ No newline at end of file"
      const op = raw[0] as DiffLine["op"];
      const text = raw.slice(1);
      if (op === "-") lines.push({ op, old: o++, text });
      else if (op === "+") lines.push({ op, new: n++, text });
      else lines.push({ op: " ", old: o++, new: n++, text });
    }
    // diff -u names the line before an empty side; jsdiff the line after
    const os = h.oldLines === 0 ? h.oldStart - 1 : h.oldStart;
    const ns = h.newLines === 0 ? h.newStart - 1 : h.newStart;
    return { header: `@@ -${os},${h.oldLines} +${ns},${h.newLines} @@`, lines };
  });
}

function fromChanges(changes: Array<Record<string, any>>): DiffFile[] {
  return changes.map((ch) => {
    const hunks: Hunk[] = (Array.isArray(ch.hunks) ? ch.hunks : []).map((h: any) => {
      let o = h.oldStart || 0;
      let n = h.newStart || 0;
      if (h.oldLines > 0 && o === 0) o = 1;
      if (h.newLines > 0 && n === 0) n = 1;
      const lines: DiffLine[] = [];
      for (const l of Array.isArray(h.lines) ? h.lines : []) {
        const text = str(l.text).replace(/\r?\n$/, "");
        if (l.op === "-") lines.push({ op: "-", old: o++, text });
        else if (l.op === "+") lines.push({ op: "+", new: n++, text });
        else lines.push({ op: " ", old: o++, new: n++, text });
      }
      return { header: `@@ -${h.oldStart},${h.oldLines} +${h.newStart},${h.newLines} @@`, lines };
    });
    const only = hunks.length === 1 ? ch.hunks[0] : undefined;
    return {
      path: str(ch.path),
      isNew: !!only && only.oldStart === 0 && only.oldLines === 0,
      hunks,
      truncated: !!ch.truncated,
    };
  });
}

/** awaitingOption is a permission option as the card shows it. */
function awaitingOption(o: acp.PermissionOption): NonNullable<CardView["awaiting"]>[number] {
  const out: NonNullable<CardView["awaiting"]>[number] = { optionId: o.optionId, name: o.name, kind: o.kind };
  const r = (o._meta as { dsh?: { remembers?: unknown } } | null | undefined)?.dsh?.remembers;
  if (Array.isArray(r)) out.remembers = r.filter((x): x is string => typeof x === "string").map((x) => x.slice(0, 500));
  return out;
}

/** proposedDiffs returns the files a call would change: from the dsh diff
 * card, else from ACP diff content. */
export function proposedDiffs(call: ToolCallBlock): Array<{ path: string; oldText: string | null; newText: string }> {
  const card = call.dsh.card;
  if (card?.card === "diff" && Array.isArray(card.diffs))
    return card.diffs.map((d: any) => ({ path: str(d.path), oldText: typeof d.oldText === "string" ? d.oldText : null, newText: str(d.newText) }));
  const out: Array<{ path: string; oldText: string | null; newText: string }> = [];
  for (const c of call.content) if (c?.type === "diff") out.push({ path: c.path, oldText: c.oldText ?? null, newText: c.newText });
  return out;
}

/** REMEMBERS starts the sentence a permission request's content carries
 * for clients that draw no _meta (docs/meta-dsh.md, `remembers`); this
 * one shows the options' _meta.dsh.remembers beside the buttons instead. */
const REMEMBERS = '"Always" remembers, for this session: ';

function isRemembersText(c: acp.ContentBlock | undefined): boolean {
  return c?.type === "text" && c.text.startsWith(REMEMBERS);
}

function plainText(call: ToolCallBlock): string {
  const parts: string[] = [];
  for (const c of call.content) if (c?.type === "content" && !isRemembersText(c.content)) parts.push(contentText(c.content));
  const card = call.dsh.card;
  if (parts.length === 0 && Array.isArray(card?.content)) for (const c of card.content) parts.push(contentText(c));
  return parts.filter(Boolean).join("\n");
}

const ABORTED = /^(Error: )?command aborted\.?$/;

/** unfence takes the text out of a single ``` fence around all of it. */
export function unfence(text: string): string {
  const m = /^```[\w-]*\n([\s\S]*?)\n?```\s*$/.exec(text.trim());
  return m ? m[1]! : text;
}

/** cardView draws a call. terminals gives a live terminal's output. */
export function cardView(call: ToolCallBlock, terminals?: (id: string) => { output: string } | undefined): CardView {
  const card = call.dsh.card;
  const type = card?.card as string | undefined;
  const v: CardView = {
    id: call.id,
    parent: call.parent,
    status: call.status,
    title: call.title || call.toolKind || "tool call",
    acpKind: call.toolKind,
    type: "generic",
    decision: call.decision,
  };
  if (call.permission) v.awaiting = call.permission.options.map(awaitingOption);
  const proposed = proposedDiffs(call);
  if (type === "diff" || (type === undefined && proposed.length > 0)) {
    v.type = "diff";
    const files = Array.isArray(call.dsh.changes)
      ? fromChanges(call.dsh.changes)
      : proposed.map((d) => ({ path: d.path, isNew: d.oldText === null, hunks: hunksOf(d.oldText ?? "", d.newText), truncated: false }));
    v.diff = { files, proposed };
    if (call.permission && call.rejectedHunks?.length) {
      // the person's choice so far, numbered as the request offered them
      let k = 0;
      for (const f of files) for (const h of f.hunks) h.rejected = call.rejectedHunks.includes(k++);
    }
    v.diagnostics = diagnosticsOf(call.dsh, card);
  } else if (type === "read") {
    v.type = "read";
    const lines = Array.isArray(card!.lines) ? card!.lines : [];
    const tokens = call.dsh.tokens;
    v.read = {
      path: str(card!.path),
      offset: Number(card!.offset) || 1,
      total: typeof card!.totalLines === "number" ? card!.totalLines : undefined,
      lines: lines.map((l: any, i: number) => ({ n: Number(l.number) || i + 1, text: str(l.text), spans: spans(tokens?.[i]) })),
    };
  } else if (type === "terminal" || (type === undefined && call.terminalId) || (call.terminalId && type === "generic")) {
    v.type = "terminal";
    const t = call.dsh.terminal;
    const live = call.terminalId ? terminals?.(call.terminalId) : undefined;
    v.terminal = {
      terminalId: call.terminalId,
      command: type === "terminal" ? str(card!.title) : undefined,
      cwd: typeof card?.cwd === "string" ? card.cwd : undefined,
      description: type === "terminal" && typeof card?.description === "string" ? card.description : undefined,
      output: t?.output ?? (typeof card?.output === "string" ? card.output : live?.output),
      exitCode: t?.exitCode ?? card?.exitCode,
      signal: t?.signal ?? card?.signal,
    };
    if (type === "generic") {
      // a command that ended without its card: its text is the tool's
      // error in a console fence; a stopped command shows as stopped
      const text = unfence(plainText(call));
      if (ABORTED.test(text)) {
        v.terminal.stopped = true;
        v.status = "cancelled";
      } else v.text = text;
    } else if (call.status === "cancelled") v.terminal.stopped = true;
  } else if (type === "search") {
    v.type = "search";
    v.search = {
      files: (Array.isArray(card!.files) ? card!.files : []).map((f: any) => ({
        path: str(f.path),
        matches: (Array.isArray(f.matches) ? f.matches : []).map((m: any) => ({ line: Number(m.lineNumber) || 1, text: str(m.line) })),
      })),
      paths: card!.shape === "paths" && Array.isArray(card!.paths) ? card!.paths.map(str) : undefined,
      truncated: !!card!.truncated,
      total: typeof card!.total === "number" ? card!.total : undefined,
    };
  } else if (type === "web") {
    v.type = "web";
    v.web = {
      url: typeof card!.url === "string" ? card!.url : undefined,
      status: typeof card!.statusCode === "number" ? card!.statusCode : undefined,
      answer: typeof card!.answer === "string" ? card!.answer : undefined,
      sources: (Array.isArray(card!.sources) ? card!.sources : []).map((s: any) => ({ url: str(s.url), title: typeof s.title === "string" ? s.title : undefined })),
    };
  } else {
    const raw = card?.rawInput as any;
    if (type === "generic" && typeof card?.lang === "string" && typeof raw?.code === "string") {
      const toks = call.dsh.tokens;
      v.program = { lang: card.lang, lines: raw.code.split("\n").map((text: string, i: number) => ({ text, spans: spans(toks?.[i]) })) };
    }
    v.text = plainText(call);
  }
  return v;
}
