// The chat page. Draws what the extension sends, once per animation frame;
// every agent string goes in as text (textContent) or through markdown-it
// with raw HTML off, and links open through VS Code.
import type { BlockView, ChatItem, FromWebview, HeaderView, ToWebview } from "../protocol.js";
import { renderCard, slicer } from "./cards.js";
import { highlighted } from "./answer.js";
import { composer } from "./composer.js";
import { changesPin } from "./changes.js";
import { el } from "./dom.js";
import { renderer, streamer } from "./stream.js";
import { testHooks } from "./testhooks.js";

declare function acquireVsCodeApi(): { postMessage(m: FromWebview): void };
const vscode = acquireVsCodeApi();
const post = (m: FromWebview) => vscode.postMessage(m);
const { renderInto } = renderer(post);
const stream = streamer(post);

const app = document.getElementById("app")!;
const header = el("header", "header");
const banner = el("div", "banner hidden");
// The scroller shows its bottom by itself (column-reverse): following the
// stream needs no scroll writes, so no frame forces a layout.
const scroller = el("main", "scroller");
const transcript = el("div", "transcript");
scroller.append(transcript);
const box = composer(post);
const changes = changesPin(post);
box.footer.prepend(changes.node);
app.append(header, banner, scroller, box.footer);

/** What an empty chat offers: what the agent does, and prompts to start
 * from (a click puts one in the box). */
const EXAMPLES = [
  "Explain how this project is organised, and where to start reading.",
  "Find the tests for the file I have open and run them.",
  "/review",
];
const empty = el("div", "empty");
empty.append(
  el("div", "empty-title", "dsh-bridge works in this folder"),
  el("div", "empty-what", "It reads and searches your files, edits them (you see the diff and approve it), runs commands (asking first) and keeps a plan for longer work. Type / for its commands."),
);
for (const ex of EXAMPLES) {
  const b = el("button", "secondary example", ex);
  b.addEventListener("click", () => box.fill(ex));
  empty.append(b);
}

let current: HeaderView | null = null;
const test = testHooks({ post, input: box.input, transcript, scroller, banner, stop: box.stop, composer: box });
const nodes = new Map<number, HTMLElement>();
let queue: ToWebview[] = [];
let scheduled = false;
let sawChunk = false;

/** The empty chat's offer shows, below its notices, until something is
 * said; the scroller stacks from the bottom, so it goes before the
 * transcript. */
let said = false;
function showEmpty(): void {
  if (!said && current && !empty.isConnected) scroller.prepend(empty);
  else if ((said || !current) && empty.isConnected) empty.remove();
}

document.addEventListener("keydown", (e) => {
  if (e.key === "Escape" && current?.running) post({ type: "cancel" });
});
// Links in agent text open through VS Code, never in the page; a
// `path:line` reference opens the file at the line.
document.addEventListener("click", (e) => {
  const a = (e.target as HTMLElement).closest("a");
  if (!a) return;
  e.preventDefault();
  if (a.dataset.path) {
    post({ type: "openFile", path: a.dataset.path, line: Number(a.dataset.line) || undefined, answer: true });
    return;
  }
  const href = a.getAttribute("href");
  if (href && href !== "#") post({ type: "openLink", href });
});

/** drawHeader draws one compact row: the chats, new chat, history, the
 * mode and model pickers (each option's description as its tooltip), and
 * a ⋯ menu with the other pickers and the usage. */
let moreOpen = false;
function drawHeader(h: HeaderView | null, chats?: ChatItem[]): void {
  current = h;
  header.replaceChildren();
  const row = el("div", "header-row");
  const list: ChatItem[] = h?.chats ?? chats ?? [];
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
  box.update(h);
  changes.draw(h?.changes);
  showEmpty();
  if (!h) return;
  const menu = el("div", "header-menu");
  for (const p of h.pickers) {
    const s = el("select", "picker");
    s.dataset.picker = p.id;
    for (const o of p.options) {
      const opt = el("option", undefined, o.name);
      opt.value = o.value;
      opt.selected = o.value === p.current;
      if (o.description) opt.title = o.description;
      s.append(opt);
    }
    const now = p.options.find((o) => o.value === p.current);
    s.title = `${p.label}: ${now?.name ?? p.current}${now?.description ? ` — ${now.description}` : ""}`;
    s.addEventListener("change", () => post({ type: "pick", picker: p.id, value: s.value }));
    (p.id === "mode" || p.id === "model" ? row : menu).append(s);
  }
  if (h.usage) menu.append(el("span", "usage", h.usage));
  if (menu.childElementCount > 0) {
    const more = el("details", "header-more");
    more.open = moreOpen;
    more.addEventListener("toggle", () => (moreOpen = more.open));
    const sum = el("summary", "icon", "⋯");
    sum.title = "More settings";
    more.append(sum, menu);
    row.append(more);
  }
}

function drawBlock(b: BlockView): HTMLElement {
  const node = el("section", `block ${b.kind}`);
  node.dataset.seq = String(b.seq);
  switch (b.kind) {
    case "user": {
      const who = el("div", "who", "You");
      if (b.restorable) {
        const restore = el("button", "secondary restore", "Restore checkpoint");
        restore.title = "Undo this turn and the later ones (their file changes too), and put this message back in the box";
        restore.addEventListener("click", () => post({ type: "restore", seq: b.seq }));
        who.append(restore);
      }
      node.append(who, el("div", "text", b.text ?? ""));
      break;
    }
    case "agent": {
      const t = el("div", "markdown");
      renderInto(t, b.text ?? "");
      node.append(t);
      break;
    }
    case "thought": {
      const d = el("details", "thought");
      d.append(el("summary", undefined, "Thinking"), el("div", "text", b.text ?? ""));
      node.append(d);
      break;
    }
    case "notice": {
      // notices in a row are one status line; their details on demand
      const d = el("details", `notice ${b.severity ?? "info"}`);
      d.append(el("summary", "notice-line", b.text ?? ""));
      for (const it of b.items ?? []) {
        const row = el("div", `notice-item ${it.severity}`);
        row.append(el("strong", undefined, it.title));
        if (it.description) row.append(el("div", "notice-desc", it.description));
        d.append(row);
      }
      node.append(d);
      break;
    }
    case "tool":
      node.append(renderCard(b.card!, post));
      break;
  }
  return node;
}

function upsert(b: BlockView): void {
  if (b.kind !== "notice" && !said) {
    said = true;
    empty.remove();
  }
  if (b.kind === "agent" || b.kind === "user" || b.kind === "thought") sawChunk = true;
  if (b.kind === "agent") {
    const old = nodes.get(b.seq);
    const node = stream.streamAgent(b, old);
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
      stream.clear();
      said = false;
      drawHeader(m.header, m.chats);
      for (const b of m.blocks) upsert(b);
      showEmpty();
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
    case "focus":
      box.input.focus();
      break;
    case "fill":
      box.fill(m.text);
      break;
    case "highlighted":
      highlighted(m.id, m.lines);
      break;
    case "mentions":
      box.mentions(m.query, m.paths);
      break;
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
