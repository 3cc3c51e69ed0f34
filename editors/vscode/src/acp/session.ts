// One session's state, folded from its session/update notifications: the
// transcript as blocks (messages, thoughts, tool calls, notices), and
// beside it the plans, the slash commands, the title, modes, config
// options, usage. Listeners hear which block changed (null: the state
// beside the transcript); the UI redraws that only. Unknown update kinds
// are ignored.
import type * as acp from "@agentclientprotocol/sdk";

/** A permission request waiting for the person. */
export interface PendingPermission {
  session: SessionState;
  toolCallId: string;
  options: acp.PermissionOption[];
  /** how many hunks the request lets the person choose among
   * (_meta.dsh.partialApproval.hunks); absent: the call is answered whole */
  hunks?: number;
  /** Answers the agent, at most once; undefined answers "cancelled".
   * hunks, with an allowing option, accepts those hunks only. */
  respond(optionId: string | undefined, hunks?: number[]): void;
}

export type Spans = Array<{ start: number; end: number; type: string }> | null;

export interface DshMeta {
  version?: number;
  card?: Record<string, any>;
  changes?: Array<Record<string, any>>;
  /** One list of spans per line, whichever form the bridge sent (unpackTokens). */
  tokens?: Spans[];
  terminal?: { output?: string; exitCode?: number | null; signal?: string | null };
  parentToolCallId?: string;
  /** a completed edit/write's language-server problems (docs/meta-dsh.md) */
  diagnostics?: unknown[];
}

export interface ToolCallBlock {
  kind: "tool";
  seq: number;
  id: string;
  title: string;
  toolKind?: string;
  status: string;
  content: acp.ToolCallContent[];
  locations: acp.ToolCallLocation[];
  rawInput?: unknown;
  dsh: DshMeta;
  parent?: string;
  terminalId?: string;
  permission?: PendingPermission;
  decision?: string;
  /** the hunks the person rejected of a pending proposal (hunks.ts) */
  rejectedHunks?: number[];
}

export interface TextBlock {
  kind: "user" | "agent" | "thought";
  seq: number;
  text: string;
  messageId?: string | null;
  /** a user message's text as typed (text adds its attachments' names) */
  input?: string;
}

/** One plan, pinned above the prompt: the v1 `plan` update's (id "") or
 * one of `plan_update`'s (its planId; items, Markdown or a file). Shapes:
 * @agentclientprotocol/sdk 2.4's unstable schema (PlanUpdate, PlanItems,
 * PlanMarkdown, PlanFile, PlanRemoved), read 2026-12-07. */
export interface Plan {
  id: string;
  entries: acp.PlanEntry[];
  markdown?: string;
  uri?: string;
}

/** Notices in a row (the session's start says where commands run, what
 * is on PATH, …): one block, drawn as one status line. */
export interface NoticeBlock {
  kind: "notice";
  seq: number;
  severity: string;
  text: string;
  items: Array<{ severity: string; title: string; description?: string }>;
}

export type Block = ToolCallBlock | TextBlock | NoticeBlock;

const SEVERITY = ["info", "warning", "error"];

export interface Usage {
  used: number;
  size: number;
  cost?: { amount: number; currency: string } | null;
}

export type Listener = (block: Block | null) => void;

const CHUNK: Record<string, TextBlock["kind"]> = {
  user_message_chunk: "user",
  agent_message_chunk: "agent",
  agent_thought_chunk: "thought",
};

/**
 * The spans of `_meta.dsh.packedTokens` (docs/meta-dsh.md), which the
 * extension asks for: per line, triples of (gap from the previous span's
 * end, length, index into types). What does not fit that shape is left
 * out, never thrown: tokens are decoration.
 */
export function unpackTokens(p: unknown): Spans[] | undefined {
  if (!p || typeof p !== "object") return undefined;
  const { lines, types } = p as { lines?: unknown; types?: unknown };
  if (!Array.isArray(lines) || !Array.isArray(types)) return undefined;
  return lines.map((l): Spans => {
    if (!Array.isArray(l)) return null;
    const out: NonNullable<Spans> = [];
    let end = 0;
    for (let i = 0; i + 2 < l.length; i += 3) {
      const [gap, n, t] = [l[i], l[i + 1], l[i + 2]];
      if (!Number.isInteger(gap) || !Number.isInteger(n) || gap < 0 || n < 0 || typeof types[t] !== "string") break;
      const start = end + gap;
      end = start + n;
      out.push({ start, end, type: types[t] });
    }
    return out;
  });
}

function tokensOf(d: Record<string, any>): Spans[] | undefined {
  return d.packedTokens !== undefined ? unpackTokens(d.packedTokens) : d.tokens;
}

/** entries keeps the plan entries that have a text. */
function entries(list: unknown): acp.PlanEntry[] {
  if (!Array.isArray(list)) return [];
  return list
    .filter((e) => e && typeof e.content === "string")
    .map((e) => ({ content: e.content, status: ["pending", "in_progress", "completed"].includes(e.status) ? e.status : "pending", priority: ["high", "medium", "low"].includes(e.priority) ? e.priority : "medium" }));
}

function isCount(n: unknown): n is number {
  return typeof n === "number" && Number.isFinite(n) && n >= 0;
}

/** TITLE_MAX bounds a chat's title, in characters (the chat list and the
 * header show one line). */
const TITLE_MAX = 120;

/** oneLine is an agent's title as one line: control characters and runs
 * of white space become one space, and it is cut at TITLE_MAX. */
export function oneLine(text: string): string {
  const t = text.replace(/[\s\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, " ").trim();
  return t.length > TITLE_MAX ? `${t.slice(0, TITLE_MAX - 1).trimEnd()}…` : t;
}

/** contentText renders one ContentBlock as text. */
export function contentText(c: acp.ContentBlock | undefined | null): string {
  if (!c) return "";
  switch (c.type) {
    case "text":
      return c.text;
    case "resource_link":
      return `[${c.title ?? c.name}](${c.uri})`;
    case "resource":
      return `[${c.resource.uri}]`;
    case "image":
      return "[image]";
    case "audio":
      return "[audio]";
    default:
      return "";
  }
}

export class SessionState {
  readonly blocks: Block[] = [];
  readonly calls = new Map<string, ToolCallBlock>();
  usage: Usage | undefined;
  title: string | undefined;
  updatedAt: string | undefined;
  running = false;
  commands: acp.AvailableCommand[] = [];
  /** The plans by id, in the order they came. */
  readonly plans = new Map<string, Plan>();
  private readonly listeners = new Set<Listener>();
  private seq = 0;

  constructor(
    readonly id: string,
    readonly cwd: string,
    public modes?: acp.SessionModeState,
    public configOptions?: acp.SessionConfigOption[],
  ) {}

  /** onChange subscribes; the returned function unsubscribes. */
  onChange(fn: Listener): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  private changed(b: Block | null): void {
    for (const fn of this.listeners) fn(b);
  }

  add<B extends Block>(b: Omit<B, "seq">): B {
    const block = { ...b, seq: ++this.seq } as B;
    this.blocks.push(block);
    this.changed(block);
    return block;
  }

  /** apply folds one update (never throws on malformed input). */
  apply(u: acp.SessionUpdate | Record<string, any>): void {
    if (!u || typeof u !== "object") return;
    const up = u as Record<string, any>;
    const k = up.sessionUpdate;
    if (typeof k !== "string") return;
    if (k in CHUNK) return this.chunk(CHUNK[k]!, up);
    switch (k) {
      case "tool_call":
      case "tool_call_update":
        return this.toolCall(up);
      case "plan":
        // the whole list each time; an empty one ends the plan
        if (Array.isArray(up.entries) && up.entries.length > 0) this.plans.set("", { id: "", entries: entries(up.entries) });
        else this.plans.delete("");
        return this.changed(null);
      case "plan_update": {
        const p = up.plan;
        if (!p || typeof p !== "object" || typeof p.planId !== "string") return;
        const plan: Plan = { id: p.planId, entries: p.type === "items" ? entries(p.entries) : [] };
        if (p.type === "markdown" && typeof p.content === "string") plan.markdown = p.content;
        else if (p.type === "file" && typeof p.uri === "string") plan.uri = p.uri;
        else if (p.type !== "items") return; // a kind this client does not know
        this.plans.set(plan.id, plan);
        return this.changed(null);
      }
      case "plan_removed":
        if (typeof up.planId === "string") this.plans.delete(up.planId);
        return this.changed(null);
      case "current_mode_update":
        if (this.modes) this.modes = { ...this.modes, currentModeId: up.currentModeId };
        return this.changed(null);
      case "config_option_update":
        if (Array.isArray(up.configOptions)) this.configOptions = up.configOptions;
        return this.changed(null);
      case "usage_update": {
        // numbers only: the header formats them
        if (!isCount(up.used) || !isCount(up.size)) return;
        const c = up.cost;
        const cost = c && typeof c === "object" && Number.isFinite(c.amount) ? { amount: c.amount, currency: String(c.currency ?? "") } : undefined;
        this.usage = { used: up.used, size: up.size, cost };
        return this.changed(null);
      }
      case "session_info_update":
        // partial: an absent field is kept, null clears it
        if (typeof up.title === "string" || up.title === null) this.title = oneLine(up.title ?? "") || undefined;
        if (typeof up.updatedAt === "string" || up.updatedAt === null) this.updatedAt = up.updatedAt ?? undefined;
        return this.changed(null);
      case "available_commands_update":
        this.commands = Array.isArray(up.availableCommands)
          ? up.availableCommands.filter((c: any) => c && typeof c.name === "string" && /^\S+$/.test(c.name))
          : [];
        return this.changed(null);
      case "notice":
        return this.notice(String(up.severity ?? "info"), String(up.title ?? ""), typeof up.description === "string" ? up.description : undefined);
      case "compaction_update":
        if (up.status === "completed" || up.status === "failed") this.notice("info", `context compacted (${up.status})`);
        return;
      default:
        return; // a kind this client does not know
    }
  }

  /** notice adds a notice, to the notices just before it if any. */
  notice(severity: string, title: string, description?: string): void {
    const item = { severity: SEVERITY.includes(severity) ? severity : "info", title, description };
    const last = this.blocks[this.blocks.length - 1];
    if (last?.kind === "notice") {
      last.items.push(item);
      if (SEVERITY.indexOf(item.severity) > SEVERITY.indexOf(last.severity)) last.severity = item.severity;
      last.text = last.items.map((i) => i.title).join(" · ");
      return this.changed(last);
    }
    this.add<NoticeBlock>({ kind: "notice", severity: item.severity, text: title, items: [item] });
  }

  private chunk(kind: TextBlock["kind"], up: Record<string, any>): void {
    const text = contentText(up.content);
    if (!text) return;
    const last = this.blocks[this.blocks.length - 1];
    const mid = up.messageId ?? undefined;
    if (last && last.kind === kind && (mid === undefined || (last as TextBlock).messageId === mid)) {
      (last as TextBlock).text += text;
      return this.changed(last);
    }
    this.add<TextBlock>({ kind, text, messageId: mid });
  }

  private toolCall(up: Record<string, any>): void {
    const id = up.toolCallId;
    if (typeof id !== "string") return;
    let call = this.calls.get(id);
    const isNew = !call;
    if (!call) {
      call = { kind: "tool", seq: 0, id, title: "", status: "pending", content: [], locations: [], dsh: {} };
      this.calls.set(id, call);
    }
    if (typeof up.title === "string") call.title = up.title;
    if (typeof up.kind === "string") call.toolKind = up.kind;
    if (typeof up.status === "string") call.status = up.status;
    if (Array.isArray(up.content)) call.content = up.content;
    if (Array.isArray(up.locations)) call.locations = up.locations;
    if (up.rawInput !== undefined) call.rawInput = up.rawInput;
    const d = up._meta?.dsh;
    if (d && typeof d === "object") {
      if (d.card !== undefined) {
        call.dsh = { ...call.dsh, card: d.card, changes: d.changes, terminal: d.terminal, tokens: tokensOf(d), diagnostics: Array.isArray(d.diagnostics) ? d.diagnostics : undefined };
      } else if (d.tokens !== undefined || d.packedTokens !== undefined) {
        call.dsh = { ...call.dsh, tokens: tokensOf(d) };
      }
      if (typeof d.parentToolCallId === "string") call.parent = d.parentToolCallId;
    }
    for (const c of call.content) if (c?.type === "terminal") call.terminalId = c.terminalId;
    if (isNew) {
      const added = this.add<ToolCallBlock>(call);
      this.calls.set(id, added);
    } else {
      this.changed(call);
    }
  }

  /** answered names the user message a prompt's answer said it was
   * (the bridge's _meta.dsh.userMessageId): the last user block, if it
   * has no id yet. */
  answered(messageId: unknown): void {
    if (typeof messageId !== "string" || messageId === "") return;
    for (let i = this.blocks.length - 1; i >= 0; i--) {
      const b = this.blocks[i]!;
      if (b.kind !== "user") continue;
      if (!b.messageId) {
        b.messageId = messageId;
        this.changed(b);
      }
      return;
    }
  }

  /** cut drops the blocks from index `from` up to (not including) `to`
   * (default: the end) and their calls: the turns a rewind removed. A
   * block added after `to` (a rewind's own conflict card) stays. */
  cut(from: number, to = this.blocks.length): void {
    if (from < 0 || from >= to) return;
    for (const b of this.blocks.splice(from, to - from)) if (b.kind === "tool") this.calls.delete(b.id);
    this.changed(null);
  }

  askPermission(req: PendingPermission): void {
    const call = this.calls.get(req.toolCallId);
    if (call) {
      call.permission = req;
      this.changed(call);
    }
  }

  settlePermission(toolCallId: string, optionId: string | undefined): void {
    const call = this.calls.get(toolCallId);
    if (call) {
      call.permission = undefined;
      call.decision = optionId;
      this.changed(call);
    }
  }

  /** chooseHunks records the hunks the person rejected so far of a
   * pending proposal, for its card. */
  chooseHunks(toolCallId: string, rejected: number[]): void {
    const call = this.calls.get(toolCallId);
    if (call) {
      call.rejectedHunks = rejected;
      this.changed(call);
    }
  }

  /** failPermissions answers every open request "cancelled". */
  failPermissions(): void {
    for (const call of this.calls.values()) call.permission?.respond(undefined);
  }

  /** settleCancelled marks unfinished calls cancelled (ACP asks it of clients). */
  settleCancelled(): void {
    for (const call of this.calls.values()) {
      if (call.status === "pending" || call.status === "in_progress") {
        call.status = "cancelled";
        this.changed(call);
      }
    }
  }

  setRunning(running: boolean): void {
    this.running = running;
    this.changed(null);
  }

  setModes(modes?: acp.SessionModeState, options?: acp.SessionConfigOption[]): void {
    if (modes) this.modes = modes;
    if (options) this.configOptions = options;
    this.changed(null);
  }

  setCurrentMode(id: string): void {
    if (this.modes) this.modes = { ...this.modes, currentModeId: id };
    this.changed(null);
  }

  configOption(category: string): acp.SessionConfigOption | undefined {
    return this.configOptions?.find((o) => o.category === category || o.id === category);
  }
}
