// One session's state, folded from its session/update notifications: the
// transcript as blocks (messages, thoughts, tool calls, the plan, notices),
// modes, config options, usage. Listeners hear which block changed; the UI
// redraws that block only. Unknown update kinds are ignored.
import type * as acp from "@agentclientprotocol/sdk";

/** A permission request waiting for the person. */
export interface PendingPermission {
  session: SessionState;
  toolCallId: string;
  options: acp.PermissionOption[];
  /** Answers the agent, at most once; undefined answers "cancelled". */
  respond(optionId: string | undefined): void;
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
}

export interface TextBlock {
  kind: "user" | "agent" | "thought";
  seq: number;
  text: string;
  messageId?: string | null;
}

export interface PlanBlock {
  kind: "plan";
  seq: number;
  entries: acp.PlanEntry[];
}

export interface NoticeBlock {
  kind: "notice";
  seq: number;
  severity: string;
  text: string;
}

export type Block = ToolCallBlock | TextBlock | PlanBlock | NoticeBlock;

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
  running = false;
  commands: acp.AvailableCommand[] = [];
  private plan: PlanBlock | undefined;
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
      case "plan": {
        const entries = Array.isArray(up.entries) ? up.entries : [];
        if (this.plan) {
          this.plan.entries = entries;
          return this.changed(this.plan);
        }
        this.plan = this.add<PlanBlock>({ kind: "plan", entries });
        return;
      }
      case "current_mode_update":
        if (this.modes) this.modes = { ...this.modes, currentModeId: up.currentModeId };
        return this.changed(null);
      case "config_option_update":
        if (Array.isArray(up.configOptions)) this.configOptions = up.configOptions;
        return this.changed(null);
      case "usage_update":
        this.usage = { used: up.used, size: up.size, cost: up.cost };
        return this.changed(null);
      case "session_info_update":
        if (typeof up.title === "string") this.title = up.title;
        return this.changed(null);
      case "available_commands_update":
        this.commands = Array.isArray(up.availableCommands) ? up.availableCommands : [];
        return;
      case "notice":
        this.add<NoticeBlock>({
          kind: "notice",
          severity: String(up.severity ?? "info"),
          text: String(up.title ?? "") + (typeof up.description === "string" ? `: ${up.description}` : ""),
        });
        return;
      case "compaction_update":
        if (up.status === "completed" || up.status === "failed")
          this.add<NoticeBlock>({ kind: "notice", severity: "info", text: `context compacted (${up.status})` });
        return;
      default:
        return; // a kind this client does not know
    }
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
        call.dsh = { ...call.dsh, card: d.card, changes: d.changes, terminal: d.terminal, tokens: tokensOf(d) };
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
