// What the page is sent, built from a session's state: the header (chats,
// pickers, usage, plans, slash commands) and each block's view. Plain
// functions, no `vscode` import: tested in plain Node.
import { cardView } from "../acp/cards.js";
import type { Block, SessionState } from "../acp/session.js";
import { changedFiles, firstChangeTurn, rewindable } from "../acp/changes.js";
import type { BlockView, ChangesView, ChatItem, CommandView, HeaderView } from "./protocol.js";

/** chatTitle is the name a chat goes by: the agent's title, else its id's
 * end (a chat the agent has not named yet). */
export function chatTitle(s: Pick<SessionState, "id" | "title">): string {
  return s.title ?? `Chat ${s.id.slice(-6)}`;
}

export function chatItems(chats: Iterable<SessionState>): ChatItem[] {
  return [...chats].map((c) => ({ id: c.id, title: chatTitle(c) }));
}

/** The output of a terminal by id, for a command's card. */
export type TerminalOutput = (id: string) => { output: string } | undefined;

/** blockView draws a block; canRewind: the agent rewinds sessions, so a
 * user message with an id offers "Restore checkpoint". */
export function blockView(b: Block, terminal: TerminalOutput, canRewind = false): BlockView {
  switch (b.kind) {
    case "user":
      return { seq: b.seq, kind: b.kind, text: b.text, restorable: canRewind && rewindable(b) ? true : undefined };
    case "tool":
      return { seq: b.seq, kind: "tool", card: cardView(b, terminal) };
    case "notice":
      return { seq: b.seq, kind: "notice", text: b.text, severity: b.severity, items: b.items.map((i) => ({ ...i })) };
    default:
      return { seq: b.seq, kind: b.kind, text: b.text };
  }
}

export function commandViews(s: SessionState): CommandView[] {
  return s.commands.map((c) => {
    const hint = (c.input as { hint?: unknown } | null | undefined)?.hint;
    return { name: c.name, description: c.description ?? "", hint: typeof hint === "string" && hint !== "" ? hint : undefined };
  });
}

/** changesView is the changed-files list; rel names a path as the
 * person reads it. Undefined when the session changed no file. */
export function changesView(s: SessionState, canRewind: boolean, rel: (p: string) => string = (p) => p): ChangesView | undefined {
  const files = changedFiles(s.blocks, s.cwd);
  if (files.length === 0) return undefined;
  return { files: files.map((f) => ({ ...f, label: rel(f.path) })), undoAll: canRewind && firstChangeTurn(s.blocks, s.cwd) !== undefined };
}

/** relativeTo names a path relative to cwd when inside it. */
export function relativeTo(cwd: string): (p: string) => string {
  const root = cwd.replace(/[\\/]+$/, "");
  return (p) => (p.startsWith(root + "/") || p.startsWith(root + "\\") ? p.slice(root.length + 1) : p);
}

export function headerView(s: SessionState, attachments: string[], chats: ChatItem[], canRewind = false): HeaderView {
  const pickers: HeaderView["pickers"] = [];
  for (const o of s.configOptions ?? []) {
    if (o?.type !== "select" || !Array.isArray(o.options)) continue;
    const options: HeaderView["pickers"][number]["options"] = [];
    const opt = (v: any) => ({ value: v.value, name: v.name, description: typeof v.description === "string" ? v.description : undefined });
    for (const v of o.options as any[]) {
      if (Array.isArray(v?.options)) for (const g of v.options) options.push(opt(g));
      else options.push(opt(v));
    }
    pickers.push({ id: o.id, label: o.name, current: String(o.currentValue), options });
  }
  if (!pickers.some((p) => p.id === "mode") && s.modes)
    pickers.unshift({
      id: "mode",
      label: "Mode",
      current: s.modes.currentModeId,
      options: s.modes.availableModes.map((m) => ({ value: m.id, name: m.name, description: m.description ?? undefined })),
    });
  let usage: string | undefined;
  if (s.usage) {
    usage = `${s.usage.used.toLocaleString("en")} / ${s.usage.size.toLocaleString("en")} tokens`;
    if (s.usage.cost) usage += ` · $${s.usage.cost.amount.toFixed(4)}`;
  }
  const plans = [...s.plans.values()].map((p) => ({ id: p.id, entries: p.entries.map((e) => ({ content: e.content, status: e.status, priority: e.priority })), markdown: p.markdown, uri: p.uri }));
  return { sessionId: s.id, title: s.title, running: s.running, pickers, usage, attachments, plans, commands: commandViews(s), chats, changes: changesView(s, canRewind, relativeTo(s.cwd)) };
}

/** relativeTime says when an ISO time was, against now, as a person
 * reads it in their own time zone: "just now", "5 min ago", "3 h ago",
 * "yesterday 14:05", "Mon 09:12" within a week, else the local date. An
 * unreadable time is returned as it came. */
export function relativeTime(iso: string | null | undefined, now: Date = new Date()): string {
  if (!iso) return "";
  const t = new Date(iso);
  if (Number.isNaN(t.getTime())) return iso;
  const sec = Math.round((now.getTime() - t.getTime()) / 1000);
  const hm = `${String(t.getHours()).padStart(2, "0")}:${String(t.getMinutes()).padStart(2, "0")}`;
  if (sec < -60) return `${t.toLocaleDateString("en-CA")} ${hm}`; // the future: a clock off
  if (sec < 60) return "just now";
  if (sec < 3600) return `${Math.floor(sec / 60)} min ago`;
  const day = (d: Date) => new Date(d.getFullYear(), d.getMonth(), d.getDate()).getTime();
  const days = Math.round((day(now) - day(t)) / 86400000);
  if (days === 0) return `${Math.floor(sec / 3600)} h ago`;
  if (days === 1) return `yesterday ${hm}`;
  if (days < 7) return `${["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"][t.getDay()]} ${hm}`;
  return t.toLocaleDateString("en-CA"); // YYYY-MM-DD, local
}
