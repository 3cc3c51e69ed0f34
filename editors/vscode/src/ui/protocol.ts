// The messages between the extension and its webview. Plain data only.
import type { CardView } from "../acp/cards.js";

export interface BlockView {
  seq: number;
  kind: "user" | "agent" | "thought" | "plan" | "notice" | "tool";
  text?: string;
  severity?: string;
  entries?: Array<{ content: string; status: string }>;
  card?: CardView;
}

export interface Picker {
  id: string; // "mode" uses session/set_mode; others set_config_option
  label: string;
  current: string;
  options: Array<{ value: string; name: string }>;
}

export interface HeaderView {
  sessionId: string;
  title?: string;
  running: boolean;
  pickers: Picker[];
  usage?: string;
  attachments: string[];
}

export type ToWebview =
  | { type: "reset"; header: HeaderView | null; blocks: BlockView[]; chats: Array<{ id: string; title: string }> }
  | { type: "blocks"; sessionId: string; blocks: BlockView[] }
  | { type: "header"; header: HeaderView }
  | { type: "agent"; state: "starting" | "ready" | "exited"; message?: string }
  | { type: "signin"; terminal: boolean }
  | { type: "config"; tabSize: number }
  | { type: "test"; op: "click"; selector: string; id: number }
  | { type: "test"; op: "query"; id: number }
  | { type: "test"; op: "scroll"; selector: string; top: number; id: number }
  | { type: "test"; op: "measure"; id: number }
  | { type: "test"; op: "type"; text: string; id: number };

export type FromWebview =
  | { type: "ready" }
  | { type: "send"; text: string }
  | { type: "cancel" }
  | { type: "permission"; toolCallId: string; optionId: string }
  | { type: "openDiff"; toolCallId: string }
  | { type: "openFile"; path: string; line?: number }
  | { type: "openTerminal"; terminalId: string; title: string }
  | { type: "openLink"; href: string }
  | { type: "pick"; picker: string; value: string }
  | { type: "newChat" }
  | { type: "sessions" }
  | { type: "switchChat"; sessionId: string }
  | { type: "restart" }
  | { type: "signin"; how: "key" | "terminal" }
  | { type: "painted"; frameMs: number; blocks: number; firstChunk?: boolean }
  | { type: "test"; id: number; result: unknown };
