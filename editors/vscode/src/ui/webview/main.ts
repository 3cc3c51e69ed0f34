// The chat page. Draws what the extension sends, once per animation frame;
// every agent string goes in as text (textContent) or through markdown-it
// with raw HTML off, and links open through VS Code.
import MarkdownIt from "markdown-it";
import type { BlockView, FromWebview, HeaderView, ToWebview } from "../protocol.js";
import { renderCard, slicer } from "./cards.js";
import { testHooks } from "./testhooks.js";

declare function acquireVsCodeApi(): { postMessage(m: FromWebview): void };
const vscode = acquireVsCodeApi();
const post = (m: FromWebview) => vscode.postMessage(m);
const md = new MarkdownIt({ html: false, linkify: true, breaks: false });

function el<K extends keyof HTMLElementTagNameMap>(tag: K, cls?: string, text?: string): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}

const app = document.getElementById("app")!;
const header = el("header", "header");
const banner = el("div", "banner hidden");
// The scroller shows its bottom by itself (column-reverse): following the
// stream needs no scroll writes, so no frame forces a layout.
const scroller = el("main", "scroller");
const transcript = el("div", "transcript");
scroller.append(transcript);
const footer = el("footer", "footer");
const attachments = el("div", "attachments");
const input = el("textarea", "input");
input.placeholder = "Ask dsh-bridge… (Enter sends, Shift+Enter for a new line, Esc stops)";
input.rows = 3;
const send = el("button", "send", "Send");
const stop = el("button", "stop", "Stop");
stop.disabled = true; // nothing to stop before a session runs a turn
footer.append(attachments, input, el("div", "actions"));
footer.lastElementChild!.append(send, stop);
app.append(header, banner, scroller, footer);

let current: HeaderView | null = null;
const test = testHooks({ post, input, transcript, scroller, banner, stop });
const nodes = new Map<number, HTMLElement>();
let queue: ToWebview[] = [];
let scheduled = false;
let sawChunk = false;

function sendPrompt(): void {
  const text = input.value.trim();
  if (!text && !(current?.attachments.length ?? 0)) return;
  post({ type: "send", text });
  input.value = "";
}
send.addEventListener("click", sendPrompt);
stop.addEventListener("click", () => post({ type: "cancel" }));
input.addEventListener("keydown", (e) => {
  if (e.key === "Enter" && !e.shiftKey && !e.isComposing) {
    e.preventDefault();
    sendPrompt();
  } else if (e.key === "Escape") {
    post({ type: "cancel" });
  }
});
document.addEventListener("keydown", (e) => {
  if (e.key === "Escape" && current?.running) post({ type: "cancel" });
});
// Links in agent text open through VS Code, never in the page.
document.addEventListener("click", (e) => {
  const a = (e.target as HTMLElement).closest("a");
  if (a) {
    e.preventDefault();
    const href = a.getAttribute("href");
    if (href) post({ type: "openLink", href });
  }
});

function drawHeader(h: HeaderView | null, chats?: Array<{ id: string; title: string }>): void {
  current = h;
  header.replaceChildren();
  const row = el("div", "header-row");
  if (chats) header.dataset.chats = JSON.stringify(chats);
  const list: Array<{ id: string; title: string }> = JSON.parse(header.dataset.chats ?? "[]");
  const chatSel = el("select", "chats");
  chatSel.title = "Chats";
  for (const c of list) {
    const o = el("option", undefined, c.title);
    o.value = c.id;
    o.selected = c.id === h?.sessionId;
    chatSel.append(o);
  }
  chatSel.addEventListener("change", () => post({ type: "switchChat", sessionId: chatSel.value }));
  const newBtn = el("button", "icon", "+");
  newBtn.title = "New chat";
  newBtn.addEventListener("click", () => post({ type: "newChat" }));
  const histBtn = el("button", "icon", "⟲");
  histBtn.title = "Stored sessions";
  histBtn.addEventListener("click", () => post({ type: "sessions" }));
  row.append(chatSel, newBtn, histBtn);
  header.append(row);
  stop.disabled = !h?.running;
  if (!h) return;
  const pickers = el("div", "header-row pickers");
  for (const p of h.pickers) {
    const s = el("select", "picker");
    s.title = p.label;
    s.dataset.picker = p.id;
    for (const o of p.options) {
      const opt = el("option", undefined, o.name);
      opt.value = o.value;
      opt.selected = o.value === p.current;
      s.append(opt);
    }
    s.addEventListener("change", () => post({ type: "pick", picker: p.id, value: s.value }));
    const label = el("label", "picker-label", p.label);
    label.append(s);
    pickers.append(label);
  }
  const usage = el("span", "usage", h.usage ?? "");
  pickers.append(usage);
  header.append(pickers);
  stop.disabled = !h.running;
  send.disabled = h.running;
  attachments.replaceChildren(...h.attachments.map((a) => el("span", "chip", a)));
}

function drawBlock(b: BlockView): HTMLElement {
  const node = el("section", `block ${b.kind}`);
  node.dataset.seq = String(b.seq);
  switch (b.kind) {
    case "user": {
      node.append(el("div", "who", "You"), el("div", "text", b.text ?? ""));
      break;
    }
    case "agent": {
      const t = el("div", "markdown");
      t.innerHTML = md.render(b.text ?? ""); // html: false — raw HTML is escaped
      node.append(t);
      break;
    }
    case "thought": {
      const d = el("details", "thought");
      d.append(el("summary", undefined, "Thinking"), el("div", "text", b.text ?? ""));
      node.append(d);
      break;
    }
    case "plan": {
      node.append(el("div", "who", "Plan"));
      const ul = el("ul", "plan");
      for (const e of b.entries ?? []) {
        const li = el("li", `plan-${e.status}`);
        const box = el("input");
        box.type = "checkbox";
        box.disabled = true;
        box.checked = e.status === "completed";
        li.append(box, el("span", undefined, e.content));
        ul.append(li);
      }
      node.append(ul);
      break;
    }
    case "notice":
      node.append(el("div", `notice ${b.severity ?? "info"}`, b.text ?? ""));
      break;
    case "tool":
      node.append(renderCard(b.card!, post));
      break;
  }
  return node;
}

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
const streamed = new Map<number, Streamed>();
const FRAME_BUDGET_MS = 6;

function renderInto(box: HTMLElement, text: string): Node[] {
  const tmp = document.createElement("div");
  tmp.innerHTML = md.render(text); // html: false — raw HTML is escaped
  const nodes = [...tmp.childNodes];
  box.append(...nodes);
  return nodes;
}

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

function upsert(b: BlockView): void {
  if (b.kind === "agent" || b.kind === "user" || b.kind === "thought") sawChunk = true;
  if (b.kind === "agent") {
    const old = nodes.get(b.seq);
    const node = streamAgent(b, old);
    if (node !== old) {
      if (old) old.replaceWith(node);
      else transcript.append(node);
      nodes.set(b.seq, node);
    }
    return;
  }
  const fresh = drawBlock(b);
  const old = nodes.get(b.seq);
  if (old) {
    // a details element keeps its open state across redraws
    const wasOpen = old.querySelector("details")?.open;
    if (wasOpen) fresh.querySelector("details")?.setAttribute("open", "");
    const out = old.querySelector<HTMLElement>(".terminal-output");
    const pinned = out && out.scrollTop + out.clientHeight >= out.scrollHeight - 2;
    const top = out?.scrollTop ?? 0;
    old.replaceWith(fresh);
    // a command's output keeps its place: followed at the end, else where
    // the person left it
    const next = fresh.querySelector<HTMLElement>(".terminal-output");
    if (next && out) next.scrollTop = pinned ? next.scrollHeight : top;
  } else {
    transcript.append(fresh);
    const next = fresh.querySelector<HTMLElement>(".terminal-output");
    if (next) next.scrollTop = next.scrollHeight;
  }
  nodes.set(b.seq, fresh);
}

function apply(m: ToWebview): void {
  switch (m.type) {
    case "reset":
      transcript.replaceChildren();
      nodes.clear();
      streamed.clear();
      drawHeader(m.header, m.chats);
      for (const b of m.blocks) upsert(b);
      break;
    case "blocks":
      if (m.sessionId === current?.sessionId) for (const b of m.blocks) upsert(b);
      break;
    case "header":
      if (m.header.sessionId === current?.sessionId || !current) drawHeader(m.header);
      break;
    case "agent":
      banner.replaceChildren();
      banner.className = `banner ${m.state === "exited" ? "error" : m.state === "starting" ? "" : "hidden"}`;
      if (m.state === "starting") banner.textContent = "Starting dsh-bridge…";
      if (m.state === "exited") {
        const restart = el("button", "restart", "Restart");
        restart.addEventListener("click", () => post({ type: "restart" }));
        banner.append(el("span", undefined, m.message ?? "The agent exited."), restart);
      }
      break;
    case "signin": {
      // One panel: store a key, or run the agent's terminal sign-in.
      banner.replaceChildren();
      banner.className = "banner signin";
      const key = el("button", "signin-key", "Enter an API key");
      key.addEventListener("click", () => post({ type: "signin", how: "key" }));
      banner.append(el("strong", undefined, "Sign in to dsh-bridge"),
        el("span", undefined, "It needs an API key for DeepSeek or another OpenAI-compatible endpoint."), key);
      if (m.terminal) {
        const term = el("button", "signin-terminal", "Sign in in a terminal");
        term.addEventListener("click", () => post({ type: "signin", how: "terminal" }));
        banner.append(term);
      }
      break;
    }
    case "config":
      document.documentElement.style.setProperty("--dsh-tab-size", String(m.tabSize));
      break;
    case "test":
      test(m);
      break;
  }
}

function flush(): void {
  scheduled = false;
  const t0 = performance.now();
  const batch = queue;
  queue = [];
  const hadChunk = sawChunk;
  let blocks = 0;
  // the last state of each block in this frame is the one drawn
  const last = new Map<string, BlockView>();
  for (const m of batch) if (m.type === "blocks") for (const b of m.blocks) last.set(`${m.sessionId}/${b.seq}`, b);
  for (const m of batch) {
    if (m.type === "blocks") {
      if (m.sessionId !== current?.sessionId) continue;
      for (const b of m.blocks)
        if (last.get(`${m.sessionId}/${b.seq}`) === b) {
          upsert(b);
          blocks++;
        }
      continue;
    }
    apply(m);
    if (m.type === "reset") blocks += m.blocks.length;
  }
  if (blocks > 0) post({ type: "painted", frameMs: performance.now() - t0, blocks, firstChunk: !hadChunk && sawChunk });
}

window.addEventListener("message", (e: MessageEvent) => {
  const data = e.data as { type: string; messages?: ToWebview[] };
  if (data?.type !== "batch" || !Array.isArray(data.messages)) return;
  queue.push(...data.messages);
  if (!scheduled) {
    scheduled = true;
    requestAnimationFrame(flush);
  }
});

// each later slice of a big card is a frame of its own
slicer.onSlice = (ms) => post({ type: "painted", frameMs: ms, blocks: 0 });

post({ type: "ready" });
