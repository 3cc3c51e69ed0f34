// A card drawn as DOM, by card type. Text goes in through textContent only.
import type { CardView, DiffLine, Span } from "../../acp/cards.js";
import { shellSpans } from "../../acp/shell.js";
import type { FromWebview } from "../protocol.js";
import { diagnosticsBody } from "./diagnostics.js";

type Post = (m: FromWebview) => void;

const ICON: Record<string, string> = { pending: "○", in_progress: "◐", completed: "✓", failed: "✗", cancelled: "⊘" };
const LABEL: Record<string, string> = {
  allow_once: "Allow once",
  allow_always: "Always allow",
  reject_once: "Reject",
  reject_always: "Always reject",
};
const ORDER = ["allow_once", "allow_always", "reject_once", "reject_always"];
// A read shows its first lines until asked for the rest.
const LIMIT = { read: 10, terminal: 40, search: 60, text: 40 };
/** The cards the person folded, by call id: kept across redraws. */
const folded = new Set<string>();

function el<K extends keyof HTMLElementTagNameMap>(tag: K, cls?: string, text?: string): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}

/** utf16 spans over text (JS strings are UTF-16: offsets index directly). */
function highlighted(text: string, spans: Span[]): HTMLElement {
  const code = el("span", "code");
  let at = 0;
  for (const s of [...spans].sort((a, b) => a.s - b.s)) {
    if (s.s < at || s.s > text.length) continue;
    if (s.s > at) code.append(text.slice(at, s.s));
    code.append(el("span", `tok-${s.c}`, text.slice(s.s, Math.min(s.e, text.length))));
    at = Math.min(s.e, text.length);
  }
  if (at < text.length) code.append(text.slice(at));
  return code;
}

/** more adds a "show all" toggle when rows were cut. */
function more(body: HTMLElement, hidden: number, expand: () => void): void {
  if (hidden <= 0) return;
  const b = el("button", "more", `… ${hidden} more line${hidden === 1 ? "" : "s"}`);
  b.addEventListener("click", expand);
  body.append(b);
}

/** Rows of a big diff are built a slice per animation frame, so that no
 * frame takes longer than a few milliseconds; a slice that is off screen
 * is not laid out (content-visibility). */
const SLICE = 250;
export const slicer = { pending: 0, onSlice: (_ms: number) => {} };

function diffRows(lines: DiffLine[], into: HTMLElement): void {
  let at = 0;
  const build = () => {
    const t0 = performance.now();
    const slice = el("div", "diff-slice");
    const first = at;
    const end = Math.min(at + SLICE, lines.length);
    for (; at < end; at++) {
      const l = lines[at]!;
      const row = el("div", `diff-line ${l.op === "+" ? "add" : l.op === "-" ? "del" : "ctx"}`);
      row.append(el("span", "ln", l.old ? String(l.old) : ""), el("span", "ln", l.new ? String(l.new) : ""), el("span", "op", l.op), el("span", "code", l.text));
      slice.append(row);
    }
    slice.style.setProperty("contain-intrinsic-size", `auto ${(end - first) * 1.4}em`);
    into.append(slice);
    if (at < lines.length) {
      slicer.pending++;
      requestAnimationFrame(() => {
        slicer.pending--;
        build();
      });
    }
    slicer.onSlice(performance.now() - t0);
  };
  build();
}

function diffBody(v: CardView, post: Post): HTMLElement {
  const body = el("div", "diff");
  for (const f of v.diff!.files) {
    const path = el("a", "path", f.path + (f.isNew ? "  (new file)" : ""));
    path.href = "#";
    path.addEventListener("click", (e) => {
      e.preventDefault();
      e.stopPropagation();
      post({ type: "openFile", path: f.path, line: f.hunks[0]?.lines.find((l) => l.new)?.new });
    });
    body.append(path);
    for (const h of f.hunks) {
      body.append(el("div", h.rejected ? "hunk rejected" : "hunk", h.rejected ? `${h.header}  (rejected: not to be applied)` : h.header));
      const table = el("div", h.rejected ? "diff-lines rejected" : "diff-lines");
      diffRows(h.lines, table);
      body.append(table);
    }
    if (f.truncated) body.append(el("div", "meta", "… the diff is longer than shown"));
  }
  if (v.diff!.proposed.length > 0) {
    const open = el("button", "secondary open-diff", "Open diff");
    open.addEventListener("click", () => post({ type: "openDiff", toolCallId: v.id }));
    body.append(open);
  }
  return body;
}

function readBody(v: CardView, post: Post, all: boolean, redraw: () => void): HTMLElement {
  const r = v.read!;
  const body = el("div", "read");
  const path = el("a", "path", `${r.path}  lines ${r.offset}–${r.offset + Math.max(r.lines.length - 1, 0)}${r.total ? ` of ${r.total}` : ""}`);
  path.href = "#";
  path.addEventListener("click", (e) => {
    e.preventDefault();
    post({ type: "openFile", path: r.path, line: r.offset });
  });
  body.append(path);
  const n = all ? r.lines.length : Math.min(r.lines.length, LIMIT.read);
  const pre = el("div", "lines");
  for (const l of r.lines.slice(0, n)) {
    const row = el("div", "line");
    row.append(el("span", "ln", String(l.n)), highlighted(l.text, l.spans));
    pre.append(row);
  }
  body.append(pre);
  more(body, r.lines.length - n, redraw);
  return body;
}

function terminalBody(v: CardView, post: Post, all: boolean, redraw: () => void): HTMLElement {
  const t = v.terminal!;
  const body = el("div", "terminal");
  // Asked about, the whole command is shown (the title is cut to a line).
  if (v.awaiting && t.command) {
    if (t.description) body.append(el("div", "command-description", t.description));
    body.append(shellCommand(t.command));
  }
  if (t.cwd) body.append(el("div", "meta", `in ${t.cwd}`));
  const lines = (t.output ?? "").replace(/\x1b\[[\d;?]*[A-Za-z@]/g, "").replace(/\r/g, "").split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  const n = all ? lines.length : Math.min(lines.length, LIMIT.terminal);
  if (lines.length > n) {
    const b = el("button", "more", `… ${lines.length - n} earlier lines`);
    b.addEventListener("click", redraw);
    body.append(b);
  }
  body.append(el("pre", "terminal-output", lines.slice(lines.length - n).join("\n")));
  if (t.stopped) body.append(el("div", "exit stopped", "⊘ stopped"));
  else if (t.signal) body.append(el("div", "exit bad", `killed by ${t.signal}`));
  else if (t.exitCode != null) body.append(el("div", `exit ${t.exitCode === 0 ? "good" : "bad"}`, `exit ${t.exitCode}`));
  if (t.terminalId) {
    const open = el("button", "secondary", "Open terminal");
    open.addEventListener("click", () => post({ type: "openTerminal", terminalId: t.terminalId!, title: v.title }));
    body.append(open);
  }
  if (v.text) body.append(el("pre", "text", v.text));
  return body;
}

/** shellCommand draws a command with its words classed as shell. */
function shellCommand(cmd: string): HTMLElement {
  const pre = el("pre", "command");
  let at = 0;
  for (const s of shellSpans(cmd)) {
    if (s.s > at) pre.append(cmd.slice(at, s.s));
    pre.append(el("span", `sh-${s.c}`, cmd.slice(s.s, s.e)));
    at = s.e;
  }
  if (at < cmd.length) pre.append(cmd.slice(at));
  return pre;
}

function searchBody(v: CardView, post: Post, all: boolean, redraw: () => void): HTMLElement {
  const s = v.search!;
  const body = el("div", "search");
  let budget = all ? Infinity : LIMIT.search;
  let total = 0;
  const link = (text: string, path: string, line?: number, cls = "path") => {
    const a = el("a", cls, text);
    a.href = "#";
    a.addEventListener("click", (e) => {
      e.preventDefault();
      post({ type: "openFile", path, line });
    });
    return a;
  };
  if (s.paths) {
    for (const p of s.paths) {
      total++;
      if (budget-- > 0) body.append(link(p, p));
    }
  } else {
    for (const f of s.files) {
      if (budget > 0) body.append(link(f.path, f.path));
      for (const m of f.matches) {
        total++;
        if (budget-- > 0) {
          const row = el("div", "match");
          row.append(link(String(m.line), f.path, m.line, "ln"), el("span", "code", m.text));
          body.append(row);
        }
      }
    }
  }
  const shown = all ? total : Math.min(total, LIMIT.search);
  more(body, total - shown, redraw);
  if (s.truncated) body.append(el("div", "meta", `results truncated (${s.total ?? "more"} in all)`));
  return body;
}

function textBody(v: CardView): HTMLElement {
  const body = el("div", "generic");
  if (v.program) {
    const pre = el("div", "lines");
    for (const l of v.program.lines.slice(0, LIMIT.text)) {
      const row = el("div", "line");
      row.append(highlighted(l.text, l.spans));
      pre.append(row);
    }
    body.append(pre);
  }
  if (v.web) {
    if (v.web.url) body.append(el("div", "path", `${v.web.url}  ${v.web.status ?? ""}`));
    if (v.web.answer) body.append(el("div", "text", v.web.answer));
    for (const s of v.web.sources) body.append(el("div", "source", `${s.title ?? s.url}  ${s.url}`));
  }
  if (v.text) body.append(el("pre", "text", v.text));
  return body;
}

/** asking says what the approval is for, by card. */
function asking(v: CardView): string {
  if (v.type === "diff") {
    const files = v.diff?.files ?? [];
    const news = files.length > 0 && files.every((f) => f.isNew);
    return `dsh-bridge asks to ${news ? "create" : "edit"} ${files.length === 1 ? "this file" : `${files.length} files`}.`;
  }
  if (v.type === "terminal") return "dsh-bridge asks to run this command.";
  if (v.acpKind === "fetch") return "dsh-bridge asks to fetch this.";
  if (v.acpKind === "delete") return "dsh-bridge asks to delete this.";
  if (v.acpKind === "move") return "dsh-bridge asks to move this.";
  if (v.acpKind === "read" || v.acpKind === "search") return "dsh-bridge asks to read this.";
  return "dsh-bridge asks to run this.";
}

function permission(v: CardView, post: Post): HTMLElement {
  const bar = el("div", "permission-bar");
  bar.append(el("span", "ask", asking(v)));
  const opts = [...v.awaiting!].sort((a, b) => ORDER.indexOf(a.kind) - ORDER.indexOf(b.kind));
  for (const o of opts) {
    const b = el("button", `permission ${o.kind.startsWith("allow") ? "allow" : "reject"}`, LABEL[o.kind] ?? o.name);
    b.dataset.kind = o.kind;
    b.title = o.name;
    b.addEventListener("click", () => {
      for (const x of bar.querySelectorAll("button")) x.disabled = true;
      post({ type: "permission", toolCallId: v.id, optionId: o.optionId });
    });
    bar.append(b);
    // what "always" would remember, beside its button
    if (o.remembers) {
      const r = el("span", "remembers", o.remembers.length > 0 ? `remembers ${o.remembers.join("; ")}` : "this call only");
      r.dataset.kind = o.kind;
      bar.append(r);
    }
  }
  return bar;
}

/** renderCard draws a card; its "more" buttons redraw it in full. */
export function renderCard(v: CardView, post: Post, all = false): HTMLElement {
  const card = el("div", `card ${v.type} status-${v.status}${v.parent ? " nested" : ""}`);
  card.dataset.id = v.id;
  card.dataset.type = v.type;
  card.dataset.status = v.status;
  const head = el("div", "card-head");
  const fold = el("button", "fold", "▾");
  fold.title = "Fold or unfold the card";
  fold.setAttribute("aria-expanded", "true");
  head.append(fold, el("span", `icon status-${v.status}`, ICON[v.status] ?? "•"), el("span", "title", v.title));
  head.title = v.title;
  card.append(head);
  // an approval is never folded away
  const isFolded = folded.has(v.id) && !v.awaiting;
  card.classList.toggle("folded", isFolded);
  fold.textContent = isFolded ? "▸" : "▾";
  fold.setAttribute("aria-expanded", String(!isFolded));
  fold.addEventListener("click", (e) => {
    e.stopPropagation();
    if (v.awaiting) return;
    const now = !card.classList.contains("folded");
    if (now) folded.add(v.id);
    else folded.delete(v.id);
    card.classList.toggle("folded", now);
    fold.textContent = now ? "▸" : "▾";
    fold.setAttribute("aria-expanded", String(!now));
  });
  const redraw = () => card.replaceWith(renderCard(v, post, true));
  switch (v.type) {
    case "diff":
      card.append(diffBody(v, post));
      if (v.diagnostics) card.append(diagnosticsBody(v.diagnostics, post));
      break;
    case "read":
      card.append(readBody(v, post, all, redraw));
      break;
    case "terminal":
      card.append(terminalBody(v, post, all, redraw));
      break;
    case "search":
      card.append(searchBody(v, post, all, redraw));
      break;
    default:
      card.append(textBody(v));
  }
  if (v.awaiting) card.append(permission(v, post));
  return card;
}
