// What an answer's rendered Markdown gains in the page: Copy and Insert
// on each code block, and `path:line` references that open the file at
// the line. Applied to nodes markdown-it has just made (raw HTML off), so
// only the page's own elements are added, with text through textContent.
import { pathRefs } from "../prompt.js";
import type { FromWebview } from "../protocol.js";
import { el } from "./dom.js";

type Post = (m: FromWebview) => void;

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
