// The page's footer: the plan pinned above the prompt, the attachments,
// the prompt box with its slash-command completion and input hint, Send
// and Stop. Files dropped on it are attached; images are refused with a
// word, since the models behind dsh-bridge (DeepSeek's) do not take them.
import { mentionQuery, slashHint, slashMatches, slashQuery } from "../prompt.js";
import type { CommandView, FromWebview, HeaderView, PlanView } from "../protocol.js";
import { el } from "./dom.js";

type Post = (m: FromWebview) => void;

export interface Composer {
  footer: HTMLElement;
  input: HTMLTextAreaElement;
  stop: HTMLButtonElement;
  update(h: HeaderView | null): void;
  /** the workspace's files for an `@` query, as the extension found them */
  mentions(query: string, paths: string[]): void;
  fill(text: string): void;
  /** what the completion shows, for the test hooks */
  slashState(): { open: boolean; items: string[]; selected: number; hint: string | null; value: string; note: string | null };
}

const STATUS: Record<string, string> = { completed: "✓", in_progress: "◐", pending: "○" };
export const NO_IMAGES = "DeepSeek's models do not take images: describe what it shows, or attach the file it came from.";

export function composer(post: Post): Composer {
  const footer = el("footer", "footer");
  const pin = el("div", "plan-pin hidden");
  const attachments = el("div", "attachments");
  const box = el("div", "input-box");
  const popup = el("div", "slash hidden");
  popup.setAttribute("role", "listbox");
  const input = el("textarea", "input");
  input.placeholder = "Ask dsh-bridge… (/ for commands, Enter sends, Shift+Enter for a new line, Esc stops)";
  input.rows = 3;
  const hint = el("div", "slash-hint hidden");
  const note = el("div", "composer-note hidden");
  box.append(popup, input);
  const send = el("button", "send", "Send");
  const stop = el("button", "stop", "Stop");
  stop.disabled = true; // nothing to stop before a session runs a turn
  const actions = el("div", "actions");
  actions.append(send, stop);
  footer.append(pin, attachments, box, hint, note, actions);

  let commands: CommandView[] = [];
  /** what the list offers: a command (slash) or a file (mention) */
  interface Item {
    label: string;
    arg?: string;
    desc?: string;
    name: string;
    take(): string;
  }
  let items: Item[] = [];
  let files: { query: string; paths: string[] } = { query: "\u0000", paths: [] };
  let asked: string | undefined;
  let selected = 0;
  let attached = 0;
  // Plans a person folded stay folded across redraws.
  const folded = new Set<string>();

  function sendPrompt(): void {
    const text = input.value.trim();
    if (!text && attached === 0) return;
    post({ type: "send", text });
    input.value = "";
    refresh();
  }

  /** refresh opens, filters or closes the completion, and shows the hint. */
  function refresh(): void {
    const caret = input.selectionEnd ?? input.value.length;
    const q = slashQuery(input.value, caret);
    const m = q === undefined ? mentionQuery(input.value, caret) : undefined;
    if (q !== undefined) {
      items = slashMatches(commands, q).map((c) => ({ label: `/${c.name}`, arg: c.hint, desc: c.description, name: c.name, take: () => `/${c.name} ` }));
    } else if (m) {
      if (files.query !== m.query && asked !== m.query) {
        asked = m.query;
        post({ type: "mention", query: m.query });
      }
      const text = input.value;
      items = (files.query === m.query ? files.paths : []).map((p) => ({
        label: `@${p}`, name: p, take: () => `${text.slice(0, m.at)}@${p} ${text.slice(caret).replace(/^\S*\s?/, "")}`,
      }));
    } else items = [];
    if (selected >= items.length) selected = 0;
    popup.replaceChildren(
      ...items.map((c, i) => {
        const row = el("div", `slash-item${i === selected ? " selected" : ""}`);
        row.setAttribute("role", "option");
        row.dataset.name = c.name;
        row.append(el("span", "slash-name", c.label));
        if (c.arg) row.append(el("span", "slash-arg", c.arg));
        if (c.desc) row.append(el("span", "slash-desc", c.desc));
        row.addEventListener("mousedown", (e) => {
          e.preventDefault(); // keep the focus in the box
          accept(i);
        });
        return row;
      }),
    );
    popup.classList.toggle("hidden", items.length === 0);
    const h = slashHint(commands, input.value);
    hint.textContent = h ?? "";
    hint.classList.toggle("hidden", !h);
  }

  function accept(i: number): void {
    const c = items[i];
    if (!c) return;
    const before = input.value;
    input.value = c.take();
    const at = before.startsWith("/") ? input.value.length : input.value.indexOf(`@${c.name} `) + c.name.length + 2;
    input.setSelectionRange(at, at);
    input.focus();
    items = [];
    refresh();
  }

  function say(text: string | null): void {
    note.textContent = text ?? "";
    note.classList.toggle("hidden", !text);
  }

  send.addEventListener("click", sendPrompt);
  stop.addEventListener("click", () => post({ type: "cancel" }));
  input.addEventListener("input", () => {
    say(null);
    refresh();
  });
  input.addEventListener("keydown", (e) => {
    const open = items.length > 0;
    if (open && (e.key === "ArrowDown" || e.key === "ArrowUp")) {
      e.preventDefault();
      selected = (selected + (e.key === "ArrowDown" ? 1 : items.length - 1)) % items.length;
      refresh();
    } else if (open && (e.key === "Tab" || (e.key === "Enter" && !e.shiftKey && !e.isComposing))) {
      e.preventDefault();
      accept(selected);
    } else if (open && e.key === "Escape") {
      e.preventDefault();
      e.stopPropagation();
      items = [];
      popup.classList.add("hidden");
    } else if (e.key === "Enter" && !e.shiftKey && !e.isComposing) {
      e.preventDefault();
      sendPrompt();
    } else if (e.key === "Escape") {
      post({ type: "cancel" });
    }
  });
  // Images: said no to, rather than sent and failed.
  input.addEventListener("paste", (e) => {
    if ([...(e.clipboardData?.items ?? [])].some((i) => i.kind === "file" && i.type.startsWith("image/"))) {
      e.preventDefault();
      say(NO_IMAGES);
    }
  });
  footer.addEventListener("dragover", (e) => {
    e.preventDefault();
    footer.classList.add("dropping");
  });
  footer.addEventListener("dragleave", () => footer.classList.remove("dropping"));
  footer.addEventListener("drop", (e) => {
    e.preventDefault();
    footer.classList.remove("dropping");
    const dt = e.dataTransfer;
    if (!dt) return;
    const uris = (dt.getData("application/vnd.code.uri-list") || dt.getData("text/uri-list"))
      .split(/\r?\n/)
      .map((u) => u.trim())
      .filter((u) => u && !u.startsWith("#"));
    const images = [...dt.files].some((f) => f.type.startsWith("image/")) || uris.some((u) => /\.(png|jpe?g|gif|webp|bmp|svg)$/i.test(u));
    const files = uris.filter((u) => !/\.(png|jpe?g|gif|webp|bmp|svg)$/i.test(u));
    say(images ? NO_IMAGES : null);
    if (files.length > 0) post({ type: "attach", uris: files });
    else if (!images && dt.files.length > 0) say("Drop files from VS Code's Explorer (hold Shift while dropping) to attach them.");
  });

  function drawPlans(plans: PlanView[]): void {
    pin.replaceChildren();
    pin.classList.toggle("hidden", plans.length === 0);
    for (const p of plans) {
      const d = el("details", "plan-box");
      d.dataset.plan = p.id;
      d.open = !folded.has(p.id);
      d.addEventListener("toggle", () => (d.open ? folded.delete(p.id) : folded.add(p.id)));
      const done = p.entries.filter((e) => e.status === "completed").length;
      const now = p.entries.find((e) => e.status === "in_progress");
      const sum = el("summary", "plan-summary");
      sum.append(el("span", "plan-title", "Plan"), el("span", "plan-count", p.entries.length > 0 ? ` ${done}/${p.entries.length}` : ""));
      if (now) sum.append(el("span", "plan-now", ` · ${now.content}`));
      d.append(sum);
      if (p.entries.length > 0) {
        const ul = el("ul", "plan");
        for (const e of p.entries) {
          const li = el("li", `plan-${e.status}${e.priority === "high" ? " plan-high" : ""}`);
          const boxEl = el("input");
          boxEl.type = "checkbox";
          boxEl.disabled = true;
          boxEl.checked = e.status === "completed";
          boxEl.setAttribute("aria-label", e.status);
          li.append(boxEl, el("span", "plan-mark", STATUS[e.status] ?? "○"), el("span", "plan-text", e.content));
          ul.append(li);
        }
        d.append(ul);
      } else if (p.markdown !== undefined) d.append(el("pre", "plan-markdown", p.markdown));
      else if (p.uri) d.append(el("div", "meta", p.uri));
      pin.append(d);
    }
  }

  return {
    footer,
    input,
    stop,
    update(h) {
      stop.disabled = !h?.running;
      send.disabled = !!h?.running;
      attached = h?.attachments.length ?? 0;
      attachments.replaceChildren(...(h?.attachments ?? []).map((a) => el("span", "chip", a)));
      drawPlans(h?.plans ?? []);
      if (h) commands = h.commands;
      if (document.activeElement === input || items.length > 0) refresh();
    },
    mentions(query, paths) {
      files = { query, paths };
      asked = undefined;
      refresh();
    },
    fill(text) {
      input.value = text;
      input.focus();
      input.setSelectionRange(text.length, text.length);
      refresh();
    },
    slashState: () => ({
      open: !popup.classList.contains("hidden"),
      items: [...popup.querySelectorAll<HTMLElement>(".slash-item")].map((r) => r.textContent ?? ""),
      selected,
      hint: hint.classList.contains("hidden") ? null : hint.textContent,
      value: input.value,
      note: note.classList.contains("hidden") ? null : note.textContent,
    }),
  };
}
