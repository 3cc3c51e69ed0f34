// The extension's state: the agent process, its chats, the attachments of
// the next prompt, and what the view shows. Commands and webview messages
// land here.
import * as vscode from "vscode";
import type * as acp from "@agentclientprotocol/sdk";
import { AgentConnection, SignInRequired } from "./acp/connection.js";
import type { Block, PendingPermission, SessionState, TextBlock } from "./acp/session.js";
import { VscodeHost } from "./host/index.js";
import type { BlockView, FromWebview, HeaderView } from "./ui/protocol.js";
import { blockView, chatItems, headerView, relativeTime } from "./ui/present.js";
import { ChatView } from "./ui/view.js";
import { Review } from "./review.js";
import { SECRET_KEY, agentCommand, agentEnv, askApiKey, helperNextTo, terminalLogin } from "./launch.js";
import { mime } from "./editor.js";
import { route } from "./messages.js";
import { Highlighter } from "./host/highlighter.js";
import { mentionBlocks } from "./mentions.js";
import { BeforeDocs } from "./checkpoints.js";

/** The workspace state key of the chat shown last: it comes back after a
 * reload. */
export const LAST_CHAT = "dshBridge.lastChat";

export { SECRET_KEY };

export class Controller implements vscode.Disposable {
  agent: AgentConnection | undefined;
  private starting: Promise<AgentConnection> | undefined;
  readonly chats = new Map<string, SessionState>();
  current: SessionState | undefined;
  private attachments: Array<{ label: string; block: acp.ContentBlock }> = [];
  readonly host: VscodeHost;
  readonly view: ChatView;
  readonly log: vscode.OutputChannel;
  readonly review = new Review();
  /** the cards' highlighter (dsh-highlight, next to the agent), for answers' code */
  readonly highlighter = new Highlighter(() => helperNextTo(this.command(), "dsh-highlight"));
  private unsubscribe: (() => void) | undefined;
  private restoring: Promise<SessionState | undefined> | undefined;
  /** why the last chat did not come back, if it did not */
  restoreError: string | undefined;
  /** Asks before a mode that approves everything; the harness replaces it. */
  confirmBypass = async (): Promise<boolean> =>
    (await vscode.window.showWarningMessage(
      "Bypass permissions: dsh-bridge will edit files and run commands without asking you.",
      { modal: true },
      "Switch",
    )) === "Switch";
  /** Asks before a rewind ("Restore checkpoint", "Undo all"); the harness replaces it. */
  confirmRewind = async (text: string): Promise<boolean> =>
    (await vscode.window.showWarningMessage(text, { modal: true }, "Restore")) === "Restore";
  /** the left sides of the changed files' diffs */
  readonly beforeDocs = new BeforeDocs();
  /** Hooks for the end-to-end harness (never set otherwise). */
  rewindError: ((message: string) => void) | undefined;
  onPainted: ((m: Extract<FromWebview, { type: "painted" }>) => void) | undefined;
  onTest: ((m: Extract<FromWebview, { type: "test" }>) => void) | undefined;

  constructor(private readonly ctx: vscode.ExtensionContext, testMode = false) {
    this.log = vscode.window.createOutputChannel("dsh-bridge");
    const cwd = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath ?? process.cwd();
    this.host = new VscodeHost(cwd);
    this.view = new ChatView(ctx.extensionUri, (m) => void route(this, m), () => this.viewReady(), testMode);
    // a command's output redraws its card, in the chat on screen (the
    // others draw it when shown)
    this.host.terminals.onOutput((id) => {
      const s = this.current;
      if (s) for (const call of s.calls.values()) if (call.terminalId === id) this.blockChanged(s, call);
    });
  }

  get cwd(): string {
    return vscode.workspace.workspaceFolders?.[0]?.uri.fsPath ?? process.cwd();
  }

  private command(): string {
    return agentCommand(this.ctx.extensionUri);
  }

  private env(): Promise<NodeJS.ProcessEnv> {
    return agentEnv(this.ctx.secrets);
  }

  /** ensureAgent starts the agent once (concurrent callers share it). */
  ensureAgent(): Promise<AgentConnection> {
    if (this.agent && !this.agent.exited) return Promise.resolve(this.agent);
    this.starting ??= (async () => {
      this.view.post({ type: "agent", state: "starting" });
      try {
        let command: string;
        try {
          command = this.command();
        } catch (err) {
          const msg = (err as Error).message;
          this.log.appendLine(msg);
          this.view.post({ type: "agent", state: "exited", message: msg });
          void vscode.window.showErrorMessage(msg);
          throw err;
        }
        this.log.appendLine(`starting ${command}`);
        const agent = await AgentConnection.start({
          command,
          cwd: this.cwd,
          env: await this.env(),
          host: this.host,
          autoApprove: vscode.workspace.getConfiguration("dshBridge").get<string[]>("autoApprove") ?? [],
          decide: (req) => this.decide(req),
          onStderr: (t) => this.log.append(t),
          onExit: (code, signal) => this.exited(agent, code, signal),
        });
        this.agent = agent;
        this.view.post({ type: "agent", state: "ready" });
        return agent;
      } finally {
        this.starting = undefined;
      }
    })();
    return this.starting;
  }

  private exited(agent: AgentConnection | undefined, code: number | null, signal: string | null): void {
    if (agent && agent !== this.agent) return;
    this.host.terminals.killAll();
    const stopping = agent?.isStopping;
    this.agent = undefined;
    if (stopping) return;
    const msg = `dsh-bridge exited (${signal ?? `code ${code}`}).`;
    this.log.appendLine(msg);
    this.view.post({ type: "agent", state: "exited", message: msg });
    void vscode.window.showErrorMessage(msg, "Restart", "Show Log").then((choice) => {
      if (choice === "Restart") void this.restart();
      if (choice === "Show Log") this.log.show();
    });
  }

  async restart(): Promise<void> {
    await this.agent?.dispose();
    this.agent = undefined;
    this.chats.clear();
    this.current = undefined;
    await this.newChat();
  }

  async newChat(): Promise<SessionState> {
    const agent = await this.ensureAgent();
    let s: SessionState;
    try {
      s = await agent.newSession(this.cwd);
    } catch (err) {
      if (err instanceof SignInRequired) {
        this.log.appendLine(`session/new: ${err.message}`);
        this.view.post({ type: "signin", terminal: err.terminalArgs !== undefined });
      }
      throw err;
    }
    this.chats.set(s.id, s);
    this.select(s);
    return s;
  }

  select(s: SessionState): void {
    this.unsubscribe?.();
    this.current = s;
    this.unsubscribe = s.onChange((b) => (b ? this.blockChanged(s, b) : this.view.post({ type: "header", header: this.header(s) })));
    void this.ctx.workspaceState.update(LAST_CHAT, { id: s.id, cwd: s.cwd });
    this.reset();
  }

  reset(): void {
    const s = this.current;
    const chats = chatItems(this.chats.values());
    this.view.post({ type: "reset", header: s ? this.header(s) : null, blocks: s ? s.blocks.map((b) => this.blockView(b)) : [], chats });
  }

  /** viewReady draws the page, and brings back the chat shown last (in
   * this workspace) when none is open: after a reload, the last chat is
   * there as it was. */
  private viewReady(): void {
    this.reset();
    void this.restoreLast();
  }

  /** restoreLast loads the chat shown last, once; a chat that cannot be
   * loaded (never written, deleted) is forgotten. */
  restoreLast(): Promise<SessionState | undefined> {
    this.restoring ??= (async () => {
      const last = this.ctx.workspaceState.get<{ id: string; cwd: string }>(LAST_CHAT);
      if (this.current || !last?.id) return undefined;
      try {
        return await this.load(last.id, last.cwd);
      } catch (err) {
        this.restoreError = (err as Error).message;
        this.log.appendLine(`the last chat ${last.id} did not come back: ${this.restoreError}`);
        // the empty chat the load opened goes, and so does the memory of it
        // (this.current was set by the load's select, whatever TS narrowed)
        if ((this.current as SessionState | undefined)?.id === last.id) {
          this.unsubscribe?.();
          this.chats.delete(last.id);
          this.current = undefined;
          this.reset();
        }
        if (!this.current) void this.ctx.workspaceState.update(LAST_CHAT, undefined);
        return undefined;
      }
    })();
    return this.restoring;
  }

  private blockChanged(s: SessionState, b: Block): void {
    if (b.kind === "tool" && (b.status === "completed" || b.status === "failed")) void this.review.settled(b.id);
    if (s !== this.current) return;
    this.view.post({ type: "blocks", sessionId: s.id, blocks: [this.blockView(b)] });
    // a completed edit or write changes the changed-files list
    if (b.kind === "tool" && b.status === "completed") this.view.post({ type: "header", header: this.header(s) });
  }

  blockView(b: Block): BlockView {
    return blockView(b, (id) => {
      const t = this.host.terminals.get(id);
      return t && { output: t.output.toString("utf8") };
    }, this.canRewind);
  }

  header(s: SessionState): HeaderView {
    return headerView(s, this.attachments.map((a) => a.label), chatItems(this.chats.values()), this.canRewind);
  }

  /** whether the agent rewinds sessions (it advertised the method) */
  get canRewind(): boolean {
    return !!this.agent?.rewindMethod;
  }

  private decide(req: PendingPermission): void {
    if (!this.view.visible) {
      const title = req.session.calls.get(req.toolCallId)?.title ?? "a tool call";
      void vscode.window.showInformationMessage(`dsh-bridge asks to run: ${title}`, "Show").then((c) => {
        if (c === "Show") this.view.show();
      });
    }
  }

  /** send starts a turn with the text and the pending attachments. */
  async send(text: string): Promise<acp.StopReason | undefined> {
    const s = this.current ?? (await this.newChat());
    if (s.running) {
      void vscode.window.showWarningMessage("dsh-bridge: a turn is running; stop it first.");
      return undefined;
    }
    const agent = await this.ensureAgent();
    const blocks: acp.ContentBlock[] = [{ type: "text", text }];
    let shown = text;
    for (const a of this.attachments) {
      blocks.push(a.block);
      shown += `\n[${a.label}]`;
    }
    blocks.push(...(await mentionBlocks(text, this.cwd)));
    this.attachments = [];
    s.add<TextBlock>({ kind: "user", text: shown, input: text });
    try {
      const stop = await agent.prompt(s, blocks);
      if (stop !== "end_turn") s.notice("info", `turn ended: ${stop}`);
      return stop;
    } catch (err) {
      s.notice("error", `session/prompt: ${(err as Error).message}`);
      return undefined;
    }
  }

  async cancel(): Promise<void> {
    if (this.current && this.agent) await this.agent.cancel(this.current);
  }

  /** attachFile attaches a file to the next prompt: its text as an
   * embedded resource (the open document's, unsaved edits included). */
  async attachFile(target: vscode.Uri): Promise<void> {
    if (target.scheme !== "file") return;
    const open = vscode.workspace.textDocuments.find((d) => d.uri.toString() === target.toString());
    const text = open ? open.getText() : new TextDecoder().decode(await vscode.workspace.fs.readFile(target));
    this.attach(vscode.workspace.asRelativePath(target), { type: "resource", resource: { uri: target.toString(), text, mimeType: mime(open?.languageId) } });
  }

  attach(label: string, block: acp.ContentBlock): void {
    this.attachments.push({ label, block });
    if (this.current) this.view.post({ type: "header", header: this.header(this.current) });
  }

  async openDiff(toolCallId: string): Promise<void> {
    if (this.current) await this.review.open(this.current, toolCallId, this.cwd);
  }

  async sessions(): Promise<SessionState | undefined> {
    const agent = await this.ensureAgent();
    const list = await agent.listSessions(this.cwd);
    if (list.length === 0) {
      void vscode.window.showInformationMessage("dsh-bridge: no stored sessions for this folder.");
      return undefined;
    }
    const pick = await vscode.window.showQuickPick(
      list.map((s) => ({
        label: s.title || `Chat ${s.sessionId.slice(-6)}`,
        description: relativeTime(s.updatedAt),
        detail: s.updatedAt ? new Date(s.updatedAt).toLocaleString() : undefined,
        id: s.sessionId,
        cwd: s.cwd,
      })),
      { placeHolder: "Open a stored dsh-bridge session" },
    );
    if (!pick) return undefined;
    return this.load(pick.id, pick.cwd);
  }

  async load(id: string, cwd: string): Promise<SessionState> {
    const agent = await this.ensureAgent();
    const s = await agent.loadSession(id, cwd, (st) => {
      this.chats.set(st.id, st);
      this.select(st);
    });
    this.reset();
    return s;
  }

  /** pick sets a picker's value; a mode that approves everything is asked
   * about first (declined, the picker shows the mode still in force). */
  async pick(picker: string, value: string): Promise<void> {
    const s = this.current;
    if (!s || !this.agent) return;
    if (picker === "mode" && value === "bypassPermissions" && !(await this.confirmBypass())) {
      this.view.post({ type: "header", header: this.header(s) });
      return;
    }
    if (picker === "mode" && !s.configOption("mode")) await this.agent.setMode(s, value);
    else await this.agent.setConfigOption(s, picker, value);
  }

  /** focus shows the chat and puts the caret in its prompt box. */
  focus(): void {
    this.view.show();
    this.view.post({ type: "focus" });
  }

  /** setApiKey asks for a key and stores it (false: the person cancelled). */
  setApiKey(): Promise<boolean> {
    return askApiKey(this.ctx.secrets);
  }

  /** signIn answers the sign-in panel: a key (the agent restarts with
   * it), or the agent's terminal auth method in a terminal, after whose
   * success the same agent opens the chat with the key it stored. */
  async signIn(how: "key" | "terminal"): Promise<void> {
    if (how === "key") {
      if (await this.setApiKey()) await this.restart();
      return;
    }
    if (await terminalLogin(this.command(), this.agent?.terminalLogin() ?? ["login"])) await this.newChat();
  }

  dispose(): void {
    this.unsubscribe?.();
    this.host.dispose();
    void this.agent?.dispose(500);
    this.review.dispose();
    this.beforeDocs.dispose();
    this.highlighter.dispose();
  }
}
