// The extension's state: the agent process, its chats, the attachments of
// the next prompt, and what the view shows. Commands and webview messages
// land here.
import * as vscode from "vscode";
import type * as acp from "@agentclientprotocol/sdk";
import { AgentConnection, SignInRequired } from "./acp/connection.js";
import { cardView, proposedDiffs } from "./acp/cards.js";
import type { Block, NoticeBlock, PendingPermission, SessionState, TextBlock } from "./acp/session.js";
import { VscodeHost } from "./host/index.js";
import type { BlockView, FromWebview, HeaderView } from "./ui/protocol.js";
import { ChatView } from "./ui/view.js";
import { ProposedDocs } from "./proposed.js";
import { SECRET_KEY, agentCommand, agentEnv } from "./launch.js";

export { SECRET_KEY };

export class Controller implements vscode.Disposable {
  agent: AgentConnection | undefined;
  private starting: Promise<AgentConnection> | undefined;
  readonly chats = new Map<string, SessionState>();
  current: SessionState | undefined;
  private attachments: Array<{ label: string; block: acp.ContentBlock }> = [];
  /** the proposed sides of the diff editors opened per call */
  private readonly diffTabs = new Map<string, string[]>();
  readonly host: VscodeHost;
  readonly view: ChatView;
  readonly log: vscode.OutputChannel;
  readonly proposed = new ProposedDocs();
  private unsubscribe: (() => void) | undefined;
  /** Hooks for the end-to-end harness (never set otherwise). */
  onPainted: ((m: Extract<FromWebview, { type: "painted" }>) => void) | undefined;
  onTest: ((m: Extract<FromWebview, { type: "test" }>) => void) | undefined;

  constructor(private readonly ctx: vscode.ExtensionContext, testMode = false) {
    this.log = vscode.window.createOutputChannel("dsh-bridge");
    const cwd = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath ?? process.cwd();
    this.host = new VscodeHost(cwd);
    this.view = new ChatView(ctx.extensionUri, (m) => void this.onMessage(m), () => this.reset(), testMode);
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
    this.reset();
  }

  reset(): void {
    const s = this.current;
    const chats = [...this.chats.values()].map((c) => ({ id: c.id, title: c.title ?? `Chat ${c.id.slice(-6)}` }));
    this.view.post({ type: "reset", header: s ? this.header(s) : null, blocks: s ? s.blocks.map((b) => this.blockView(b)) : [], chats });
  }

  private blockChanged(s: SessionState, b: Block): void {
    if (b.kind === "tool" && (b.status === "completed" || b.status === "failed")) void this.closeDiffs(b.id);
    if (s === this.current) this.view.post({ type: "blocks", sessionId: s.id, blocks: [this.blockView(b)] });
  }

  /** closeDiffs closes the "proposed by dsh-bridge" diff editors of a
   * call once it has settled: their proposed side no longer is a proposal. */
  private async closeDiffs(toolCallId: string): Promise<void> {
    const uris = this.diffTabs.get(toolCallId);
    if (!uris) return;
    this.diffTabs.delete(toolCallId);
    const open = vscode.window.tabGroups.all
      .flatMap((g) => g.tabs)
      .filter((t) => t.input instanceof vscode.TabInputTextDiff && uris.includes(t.input.modified.toString()));
    if (open.length > 0) await vscode.window.tabGroups.close(open);
    this.proposed.forget(uris);
  }

  blockView(b: Block): BlockView {
    switch (b.kind) {
      case "tool":
        return { seq: b.seq, kind: "tool", card: cardView(b, (id) => { const t = this.host.terminals.get(id); return t && { output: t.output.toString("utf8") }; }) };
      case "plan":
        return { seq: b.seq, kind: "plan", entries: b.entries.map((e) => ({ content: e.content, status: e.status })) };
      case "notice":
        return { seq: b.seq, kind: "notice", text: b.text, severity: b.severity };
      default:
        return { seq: b.seq, kind: b.kind, text: b.text };
    }
  }

  header(s: SessionState): HeaderView {
    const pickers: HeaderView["pickers"] = [];
    for (const o of s.configOptions ?? []) {
      if (o.type !== "select") continue;
      const options: Array<{ value: string; name: string }> = [];
      for (const v of o.options as any[]) {
        if (Array.isArray(v?.options)) for (const g of v.options) options.push({ value: g.value, name: g.name });
        else options.push({ value: v.value, name: v.name });
      }
      pickers.push({ id: o.id, label: o.name, current: String(o.currentValue), options });
    }
    if (!pickers.some((p) => p.id === "mode") && s.modes)
      pickers.unshift({ id: "mode", label: "Mode", current: s.modes.currentModeId, options: s.modes.availableModes.map((m) => ({ value: m.id, name: m.name })) });
    let usage: string | undefined;
    if (s.usage) {
      usage = `${s.usage.used.toLocaleString("en")} / ${s.usage.size.toLocaleString("en")} tokens`;
      if (s.usage.cost) usage += ` · $${s.usage.cost.amount.toFixed(4)}`;
    }
    return { sessionId: s.id, title: s.title, running: s.running, pickers, usage, attachments: this.attachments.map((a) => a.label) };
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
    this.attachments = [];
    s.add<TextBlock>({ kind: "user", text: shown });
    try {
      const stop = await agent.prompt(s, blocks);
      if (stop !== "end_turn") s.add<NoticeBlock>({ kind: "notice", severity: "info", text: `turn ended: ${stop}` });
      return stop;
    } catch (err) {
      s.add<NoticeBlock>({ kind: "notice", severity: "error", text: `session/prompt: ${(err as Error).message}` });
      return undefined;
    }
  }

  async cancel(): Promise<void> {
    if (this.current && this.agent) await this.agent.cancel(this.current);
  }

  attach(label: string, block: acp.ContentBlock): void {
    this.attachments.push({ label, block });
    if (this.current) this.view.post({ type: "header", header: this.header(this.current) });
  }

  async openDiff(toolCallId: string): Promise<void> {
    const call = this.current?.calls.get(toolCallId);
    if (!call) return;
    for (const d of proposedDiffs(call)) {
      const path = d.path.startsWith("/") ? d.path : `${this.cwd}/${d.path}`;
      const { left, right } = await this.proposed.pair(path, d.oldText, d.newText);
      this.diffTabs.set(toolCallId, [...(this.diffTabs.get(toolCallId) ?? []), right.toString()]);
      await vscode.commands.executeCommand("vscode.diff", left, right, `${path.split("/").pop()} (proposed by dsh-bridge)`, { preview: true });
    }
  }

  async sessions(): Promise<SessionState | undefined> {
    const agent = await this.ensureAgent();
    const list = await agent.listSessions(this.cwd);
    if (list.length === 0) {
      void vscode.window.showInformationMessage("dsh-bridge: no stored sessions for this folder.");
      return undefined;
    }
    const pick = await vscode.window.showQuickPick(
      list.map((s) => ({ label: s.title ?? s.sessionId, description: s.updatedAt ?? "", id: s.sessionId, cwd: s.cwd })),
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

  private async onMessage(m: FromWebview): Promise<void> {
    try {
      switch (m.type) {
        case "send":
          await this.send(m.text);
          break;
        case "cancel":
          await this.cancel();
          break;
        case "permission": {
          const call = this.current?.calls.get(m.toolCallId);
          call?.permission?.respond(m.optionId);
          break;
        }
        case "openDiff":
          await this.openDiff(m.toolCallId);
          break;
        case "openFile": {
          const path = m.path.startsWith("/") ? m.path : `${this.current?.cwd ?? this.cwd}/${m.path}`;
          const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(path));
          const line = Math.max((m.line ?? 1) - 1, 0);
          await vscode.window.showTextDocument(doc, { selection: new vscode.Range(line, 0, line, 0), preview: true });
          break;
        }
        case "openTerminal":
          this.host.showTerminal(m.terminalId, m.title);
          break;
        case "openLink": {
          // Agent text is untrusted: only web and mail links go to the
          // system (markdown-it already drops javascript:, file: and data:
          // links; a message forged by the page is refused here too).
          const uri = vscode.Uri.parse(m.href);
          if (["http", "https", "mailto"].includes(uri.scheme)) await vscode.env.openExternal(uri);
          break;
        }
        case "pick":
          if (this.current && this.agent) {
            if (m.picker === "mode" && !this.current.configOption("mode")) await this.agent.setMode(this.current, m.value);
            else await this.agent.setConfigOption(this.current, m.picker, m.value);
          }
          break;
        case "newChat":
          await this.newChat();
          break;
        case "sessions":
          await this.sessions();
          break;
        case "switchChat": {
          const s = this.chats.get(m.sessionId);
          if (s) this.select(s);
          break;
        }
        case "restart":
          await this.restart();
          break;
        case "signin":
          await this.signIn(m.how);
          break;
        case "painted":
          this.onPainted?.(m);
          break;
        case "test":
          this.onTest?.(m);
          break;
      }
    } catch (err) {
      if (err instanceof SignInRequired) return; // the sign-in panel is showing
      this.log.appendLine(`${m.type}: ${(err as Error).stack ?? err}`);
      void vscode.window.showErrorMessage(`dsh-bridge: ${(err as Error).message}`);
    }
  }

  /** setApiKey asks for a key and stores it in the secret storage ("" removes
   * it); false when the person cancelled. */
  async setApiKey(): Promise<boolean> {
    const key = await vscode.window.showInputBox({ prompt: "The API key dsh-bridge passes to the model (DSH_API_KEY)", password: true, ignoreFocusOut: true });
    if (key === undefined) return false;
    if (key === "") await this.ctx.secrets.delete(SECRET_KEY);
    else await this.ctx.secrets.store(SECRET_KEY, key);
    return true;
  }

  /** signIn answers the sign-in panel: a key for the secret storage (the
   * agent restarts with it), or the agent's terminal auth method
   * (`dsh-bridge login`) in a terminal, after whose success the same agent
   * opens the chat with the key it stored. */
  async signIn(how: "key" | "terminal"): Promise<void> {
    if (how === "key") {
      if (await this.setApiKey()) await this.restart();
      return;
    }
    const args = this.agent?.terminalLogin() ?? ["login"];
    const term = vscode.window.createTerminal({ name: "dsh-bridge login", shellPath: this.command(), shellArgs: args, env: vscode.workspace.getConfiguration("dshBridge").get<Record<string, string>>("env") ?? {} });
    term.show();
    const code = await new Promise<number | undefined>((resolve) => {
      const sub = vscode.window.onDidCloseTerminal((t) => {
        if (t !== term) return;
        sub.dispose();
        resolve(t.exitStatus?.code);
      });
    });
    if (code === 0) await this.newChat();
  }

  dispose(): void {
    this.unsubscribe?.();
    this.host.dispose();
    void this.agent?.dispose(500);
    this.proposed.dispose();
  }
}
