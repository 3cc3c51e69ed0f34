// Streamed Markdown in the page: an answer rendered a paragraph at a time
// as its chunks arrive, within a frame budget.
import MarkdownIt from "markdown-it";
import type { BlockView, FromWebview } from "../protocol.js";
import { decorate } from "./answer.js";
import { el } from "./dom.js";

type Post = (m: FromWebview) => void;

/** Streaming Markdown: paragraphs that end before a blank line (outside a
 * code fence) are rendered once and kept; only the open tail is rendered
 * again as chunks arrive. A burst larger than a frame can take is rendered
 * a few milliseconds per animation frame, so no frame runs long. */
interface Streamed {
  text: string;
  stable: number; // text[0:stable] is rendered into fixed nodes
  inFence: boolean; // whether text[0:stable] leaves a code fence open
  box: HTMLElement;
  tail: Node[];
  scheduled: boolean;
}
const FRAME_BUDGET_MS = 6;

/** The page's Markdown renderer, with what answers gain (decorate). */
export function renderer(post: Post): { md: MarkdownIt; renderInto(box: HTMLElement, text: string): Node[] } {
  const md = new MarkdownIt({ html: false, linkify: true, breaks: false });
  return {
    md,
    renderInto(box, text) {
      const tmp = document.createElement("div");
      tmp.innerHTML = md.render(text); // html: false — raw HTML is escaped
      const nodes = [...tmp.childNodes];
      box.append(...nodes);
      decorate(nodes, post);
      return nodes;
    },
  };
}

export function streamer(post: Post) {
  const { renderInto } = renderer(post);
  const streamed = new Map<number, Streamed>();

  /** step renders whole paragraphs until the budget is spent, then the tail
   * once every paragraph is in; it reschedules itself when it ran out. */
  function step(st: Streamed): void {
    const t0 = performance.now();
    for (const n of st.tail) n.parentNode?.removeChild(n);
    st.tail = [];
    const text = st.text;
    let from = st.stable;
    let fence = st.inFence;
    let cut = st.stable;
    for (;;) {
      const nl = text.indexOf("\n\n", from);
      if (nl < 0) break;
      const fences = text.slice(from, nl).split("```").length - 1;
      fence = fences % 2 === 1 ? !fence : fence;
      from = nl + 2;
      if (!fence) cut = from; // a boundary outside any fence
      if (cut > st.stable && (cut - st.stable > 1024 || performance.now() - t0 > FRAME_BUDGET_MS)) break;
    }
    if (cut > st.stable) {
      const fences = text.slice(st.stable, cut).split("```").length - 1;
      st.inFence = fences % 2 === 1 ? !st.inFence : st.inFence;
      renderInto(st.box, text.slice(st.stable, cut));
      st.stable = cut;
    }
    const more = text.indexOf("\n\n", st.stable) >= 0 && stableAhead(st);
    if (more && performance.now() - t0 > FRAME_BUDGET_MS / 3) {
      if (!st.scheduled) {
        st.scheduled = true;
        requestAnimationFrame(() => {
          const t1 = performance.now();
          st.scheduled = false;
          step(st);
          post({ type: "painted", frameMs: performance.now() - t1, blocks: 0 });
        });
      }
      return;
    }
    if (more) return step(st);
    st.tail = renderInto(st.box, text.slice(st.stable));
  }

  /** stableAhead reports whether a boundary outside a fence follows stable. */
  function stableAhead(st: Streamed): boolean {
    let from = st.stable;
    let fence = st.inFence;
    for (;;) {
      const nl = st.text.indexOf("\n\n", from);
      if (nl < 0) return false;
      const fences = st.text.slice(from, nl).split("```").length - 1;
      fence = fences % 2 === 1 ? !fence : fence;
      if (!fence) return true;
      from = nl + 2;
    }
  }

  function streamAgent(b: BlockView, node: HTMLElement | undefined): HTMLElement {
    const text = b.text ?? "";
    let st = streamed.get(b.seq);
    if (!st || !node || !text.startsWith(st.text)) {
      node = el("section", "block agent");
      node.dataset.seq = String(b.seq);
      st = { text: "", stable: 0, inFence: false, box: el("div", "markdown"), tail: [], scheduled: false };
      node.append(st.box);
      streamed.set(b.seq, st);
    }
    st.text = text;
    if (!st.scheduled) step(st);
    return node;
  }

  return { streamAgent, clear: () => streamed.clear() };
}
