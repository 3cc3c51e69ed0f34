// The messages between the extension and its webview. Plain data only.
import type { CardView } from "../acp/cards.js";

export interface BlockView {
  seq: number;
  kind: "user" | "agent" | "thought" | "notice" | "tool";
  text?: string;
  severity?: string;
  /** a notice block's notices, each a line of its details */
  items?: Array<{ severity: string; title: string; description?: string }>;
  card?: CardView;
  /** a user message the agent can rewind to before ("Restore checkpoint") */
  restorable?: boolean;
}

/** The files the session changed, pinned above the prompt. */
export interface ChangesView {
  files: Array<{ path: string; label: string; added: number; removed: number; created: boolean }>;
  /** whether "Undo all" can rewind (the agent rewinds, the turn has an id) */
  undoAll: boolean;
}

export interface Picker {
  id: string; // "mode" uses session/set_mode; others set_config_option
  label: string;
  current: string;
  options: Array<{ value: string; name: string; description?: string }>;
}

export interface PlanView {
  id: string;
  entries: Array<{ content: string; status: string; priority?: string }>;
  markdown?: string;
  uri?: string;
}

/** A slash command the agent advertised; hint: what it takes after it. */
export interface CommandView {
  name: string;
  description: string;
  hint?: string;
}

export interface ChatItem {
  id: string;
  title: string;
}

export interface HeaderView {
  sessionId: string;
  title?: string;
  running: boolean;
  pickers: Picker[];
  usage?: string;
  attachments: string[];
  plans: PlanView[];
  commands: CommandView[];
  chats: ChatItem[];
  changes?: ChangesView;
}

export type ToWebview =
  | { type: "reset"; header: HeaderView | null; blocks: BlockView[]; chats: ChatItem[] }
  | { type: "blocks"; sessionId: string; blocks: BlockView[] }
  | { type: "header"; header: HeaderView }
  | { type: "agent"; state: "starting" | "ready" | "exited"; message?: string }
  | { type: "signin"; terminal: boolean }
  | { type: "config"; tabSize: number }
  | { type: "focus" }
  /** puts text in the prompt box (a restored message, to edit and resend) */
  | { type: "fill"; text: string }
  | { type: "mentions"; query: string; paths: string[] }
  | { type: "highlighted"; id: number; lines: Array<Array<{ s: number; e: number; c: string }>> | null }
  | { type: "test"; op: "click"; selector: string; id: number }
  | { type: "test"; op: "query"; id: number }
  | { type: "test"; op: "scroll"; selector: string; top: number; id: number }
  | { type: "test"; op: "measure"; id: number }
  | { type: "test"; op: "type"; text: string; id: number }
  | { type: "test"; op: "key"; text: string; key?: string; id: number }
  | { type: "test"; op: "drop"; uris: string[]; id: number };

export type FromWebview =
  | { type: "ready" }
  | { type: "send"; text: string }
  | { type: "cancel" }
  | { type: "permission"; toolCallId: string; optionId: string }
  | { type: "openDiff"; toolCallId: string }
  /** "Restore checkpoint" on the user message of that seq */
  | { type: "restore"; seq: number }
  | { type: "undoAll" }
  /** a changed file's diff, before the session → now */
  | { type: "openChange"; path: string }
  /** answer: the path is an answer's `path:line` reference (the model's
   * text), not a card's; column: 1-based, in characters */
  | { type: "openFile"; path: string; line?: number; answer?: boolean; column?: number }
  | { type: "openTerminal"; terminalId: string; title: string }
  | { type: "openLink"; href: string }
  | { type: "copy"; text: string }
  | { type: "attach"; uris: string[] }
  | { type: "mention"; query: string }
  | { type: "highlight"; id: number; lang: string; text: string }
  | { type: "insert"; text: string }
  | { type: "pick"; picker: string; value: string }
  | { type: "newChat" }
  | { type: "sessions" }
  | { type: "switchChat"; sessionId: string }
  | { type: "restart" }
  | { type: "signin"; how: "key" | "terminal" }
  | { type: "painted"; frameMs: number; blocks: number; firstChunk?: boolean }
  | { type: "test"; id: number; result: unknown };
