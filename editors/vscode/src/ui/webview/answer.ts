// What an answer's rendered Markdown gains in the page: Copy and Insert
// on each code block, its colours from the cards' highlighter (asked of
// the extension, kept per text so a re-rendered block is not asked for
// again), and `path:line` references that open the file at the line. Applied to nodes markdown-it has just made (raw HTML off), so
// only the page's own elements are added, with text through textContent.
import { pathRefs } from "../prompt.js";
import type { FromWebview } from "../protocol.js";
import { el } from "./dom.js";

type Post = (m: FromWebview) => void;
type Lines = Array<Array<{ s: number; e: number; c: string }>>;

const known = new Map<string, Lines | null>(); // lang + text -> spans
const asked = new Map<number, { key: string; codes: Set<HTMLElement> }>();
const askedKey = new Map<string, number>();
let nextId = 0;

function paint(code: HTMLElement, lines: Lines): void {
  const text = code.textContent ?? "";
  const rows = text.split("\n");
  const frag = document.createDocumentFragment();
  rows.forEach((row, i) => {
    if (i > 0) frag.append("\n");
    let at = 0;
    for (const sp of lines[i] ?? []) {
      if (sp.s < at || sp.e > row.length) continue;
      if (sp.s > at) frag.append(row.slice(at, sp.s));
      frag.append(el("span", `tok-${sp.c}`, row.slice(sp.s, sp.e)));
      at = sp.e;
    }
    if (at < row.length) frag.append(row.slice(at));
  });
  code.replaceChildren(frag);
  code.classList.add("highlighted");
}

function highlight(code: HTMLElement, lang: string, post: Post): void {
  const text = code.textContent ?? "";
  const key = `${lang}\u0000${text}`;
  const have = known.get(key);
  if (have) return paint(code, have);
  if (have === null) return;
  const pending = askedKey.get(key);
  if (pending !== undefined) {
    asked.get(pending)!.codes.add(code);
    return;
  }
  const id = ++nextId;
  asked.set(id, { key, codes: new Set([code]) });
  askedKey.set(key, id);
  post({ type: "highlight", id, lang, text });
}

/** highlighted paints the blocks waiting for an answer that came. */
export function highlighted(id: number, lines: Lines | null): void {
  const a = asked.get(id);
  if (!a) return;
  asked.delete(id);
  askedKey.delete(a.key);
  known.set(a.key, lines);
  if (lines) for (const code of a.codes) if (code.isConnected) paint(code, lines);
}

/** decorate adds the actions and the references to the nodes. */
export function decorate(nodes: Node[], post: Post): void {
  for (const n of nodes) {
    if (!(n instanceof HTMLElement)) continue;
    const blocks = n.matches("pre") ? [n] : [...n.querySelectorAll("pre")];
    for (const pre of blocks) codeActions(pre, post);
    linkRefs(n);
  }
}

function codeActions(pre: HTMLElement, post: Post): void {
  const code = pre.querySelector("code");
  if (!code || pre.parentElement?.classList.contains("codeblock")) return;
  const box = el("div", "codeblock");
  const bar = el("div", "code-actions");
  const lang = /language-(\S+)/.exec(code.className)?.[1];
  if (lang) bar.append(el("span", "code-lang", lang));
  const text = () => code.textContent ?? "";
  const copy = el("button", "secondary copy-code", "Copy");
  copy.title = "Copy the code";
  copy.addEventListener("click", () => {
    post({ type: "copy", text: text() });
    copy.textContent = "Copied";
    setTimeout(() => (copy.textContent = "Copy"), 1500);
  });
  const insert = el("button", "secondary insert-code", "Insert");
  insert.title = "Insert the code at the cursor of the editor";
  insert.addEventListener("click", () => post({ type: "insert", text: text() }));
  bar.append(copy, insert);
  pre.replaceWith(box);
  box.append(bar, pre);
  if (lang) highlight(code, lang, post);
}

/** linkRefs turns `path:line` in text and inline code into links (never
 * inside a code block or a link). */
function linkRefs(root: HTMLElement): void {
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  const texts: Text[] = [];
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const p = n.parentElement;
    if (p?.closest("pre, a, .code-actions")) continue;
    if (n.textContent && n.textContent.includes(":")) texts.push(n as Text);
  }
  for (const t of texts) {
    const s = t.textContent!;
    const refs = pathRefs(s);
    if (refs.length === 0) continue;
    const frag = document.createDocumentFragment();
    let at = 0;
    for (const r of refs) {
      if (r.start > at) frag.append(s.slice(at, r.start));
      const a = el("a", "ref", s.slice(r.start, r.end));
      a.href = "#";
      a.dataset.path = r.path;
      a.dataset.line = String(r.line);
      a.title = `Open ${r.path} at line ${r.line}`;
      frag.append(a);
      at = r.end;
    }
    if (at < s.length) frag.append(s.slice(at));
    t.replaceWith(frag);
  }
}
