// The ACP connection to a dsh-bridge process, built on the official SDK
// (@agentclientprotocol/sdk 2.x: its client app API; the ClientSideConnection
// class of 1.x was removed in 2.0). No `vscode` import: this layer runs in
// plain Node against the real binary. It takes the SDK's "unstable" entry:
// the SDK checks each session/update against the schema of the entry it
// was imported from, and the stable one (2.4) drops plan_update and
// plan_removed as invalid params, which this client asks for.
import { spawn, type ChildProcess } from "node:child_process";
import { Readable, Writable } from "node:stream";
import * as acp from "@agentclientprotocol/sdk/unstable";
import { SessionState, type PendingPermission } from "./session.js";

/** The client methods the editor serves; the host implements them. */
export interface ClientHost {
  readTextFile(p: acp.ReadTextFileRequest): Promise<acp.ReadTextFileResponse>;
  writeTextFile(p: acp.WriteTextFileRequest): Promise<acp.WriteTextFileResponse>;
  createTerminal(p: acp.CreateTerminalRequest): Promise<acp.CreateTerminalResponse>;
  terminalOutput(p: acp.TerminalOutputRequest): Promise<acp.TerminalOutputResponse>;
  waitForTerminalExit(p: acp.WaitForTerminalExitRequest): Promise<acp.WaitForTerminalExitResponse>;
  killTerminal(p: acp.KillTerminalRequest): Promise<acp.KillTerminalResponse>;
  releaseTerminal(p: acp.ReleaseTerminalRequest): Promise<acp.ReleaseTerminalResponse>;
}

export interface StartOptions {
  command: string;
  args?: string[];
  env?: NodeJS.ProcessEnv;
  cwd: string;
  host: ClientHost;
  /** Asked for every permission request autoApprove did not settle. */
  decide(req: PendingPermission): void;
  /** ACP tool kinds allowed once without asking. */
  autoApprove?: string[];
  onStderr?(text: string): void;
  onExit?(code: number | null, signal: NodeJS.Signals | null): void;
  clientName?: string;
}

/** The client capabilities initialize sends. */
export const CAPABILITIES: acp.ClientCapabilities = {
  fs: { readTextFile: true, writeTextFile: true },
  terminal: true,
  // The sign-in panel runs the agent's terminal auth method (dsh-bridge
  // login) in a VS Code terminal.
  auth: { terminal: true },
  // Cards are drawn from _meta.dsh (docs/meta-dsh.md): the bridge then
  // sends a read's or a search's text once, in the card, and syntax tokens
  // packed (a sixth of the bytes; unpackTokens).
  _meta: { dsh: { version: 1, packedTokens: true } },
  // plan_update / plan_removed, each plan by its id, pinned above the
  // prompt (ACP plan operations, stabilised November 2026; the SDK 2.4's
  // unstable ClientCapabilities.plan: "{} means the client can receive
  // both update types", read 2026-12-07).
  plan: {},
};

/** What _dsh/session/rewind answers (docs/meta-dsh.md): paths. */
export interface RewindResult {
  restored: string[];
  kept: string[];
  notRestorable: string[];
  failed: string[];
  cancelled: boolean;
}

/** ACP's auth_required error code. */
export const AUTH_REQUIRED = -32000;

/** SignInRequired: the agent has no API key (auth_required); terminalArgs
 * are the arguments of its terminal auth method, if it offers one. */
export class SignInRequired extends Error {
  constructor(message: string, readonly terminalArgs: string[] | undefined) {
    super(message);
    this.name = "SignInRequired";
  }
}

export class AgentConnection {
  readonly sessions = new Map<string, SessionState>();
  readonly child: ChildProcess;
  private readonly conn: acp.ClientConnection;
  agentInfo: acp.Implementation | null | undefined;
  /** The initialize answer's authentication methods. */
  authMethods: acp.AuthMethod[] = [];
  capabilities: acp.AgentCapabilities | undefined;
  exited = false;
  private stopping = false;

  private constructor(private readonly opts: StartOptions) {
    this.child = spawn(opts.command, opts.args ?? [], {
      cwd: opts.cwd,
      env: opts.env ?? process.env,
      stdio: ["pipe", "pipe", "pipe"],
    });
    this.child.stderr?.setEncoding("utf8");
    this.child.stderr?.on("data", (d: string) => opts.onStderr?.(d));
    this.child.on("exit", (code, signal) => {
      this.exited = true;
      for (const s of this.sessions.values()) s.failPermissions();
      opts.onExit?.(code, signal);
    });
    // A failed spawn is reported through "error" and then "exit" never
    // comes: report it as an exit.
    this.child.on("error", (err) => {
      if (this.exited) return;
      this.exited = true;
      opts.onStderr?.(`cannot start ${opts.command}: ${err.message}\n`);
      opts.onExit?.(null, null);
    });
    const stream = acp.ndJsonStream(
      Writable.toWeb(this.child.stdin!) as WritableStream<Uint8Array>,
      Readable.toWeb(this.child.stdout!) as ReadableStream<Uint8Array>,
    );
    const h = opts.host;
    const app = acp
      .client({ name: opts.clientName ?? "dsh-bridge for VS Code" })
      .onNotification(acp.methods.client.session.update, (ctx) => {
        this.sessions.get(ctx.params.sessionId)?.apply(ctx.params.update);
      })
      .onRequest(acp.methods.client.session.requestPermission, (ctx) => this.permission(ctx.params))
      .onRequest(acp.methods.client.fs.readTextFile, (ctx) => h.readTextFile(ctx.params))
      .onRequest(acp.methods.client.fs.writeTextFile, (ctx) => h.writeTextFile(ctx.params))
      .onRequest(acp.methods.client.terminal.create, (ctx) => h.createTerminal(ctx.params))
      .onRequest(acp.methods.client.terminal.output, (ctx) => h.terminalOutput(ctx.params))
      .onRequest(acp.methods.client.terminal.waitForExit, (ctx) => h.waitForTerminalExit(ctx.params))
      .onRequest(acp.methods.client.terminal.kill, (ctx) => h.killTerminal(ctx.params))
      .onRequest(acp.methods.client.terminal.release, (ctx) => h.releaseTerminal(ctx.params));
    this.conn = app.connect(stream);
  }

  /** Spawns the agent and initializes the connection. */
  static async start(opts: StartOptions): Promise<AgentConnection> {
    const c = new AgentConnection(opts);
    const exited = new Promise<never>((_, reject) =>
      c.child.once("exit", (code, signal) => reject(new Error(`the agent exited (${signal ?? `code ${code}`})`))),
    );
    const init = await Promise.race([
      c.conn.agent.request(acp.methods.agent.initialize, {
        protocolVersion: acp.PROTOCOL_VERSION,
        clientCapabilities: CAPABILITIES,
        clientInfo: { name: "dsh-bridge-vscode", title: "dsh-bridge for VS Code", version: "0.1.0" },
      }),
      exited,
    ]);
    exited.catch(() => {});
    c.agentInfo = init.agentInfo;
    c.authMethods = init.authMethods ?? [];
    c.capabilities = init.agentCapabilities;
    return c;
  }

  private permission(p: acp.RequestPermissionRequest): Promise<acp.RequestPermissionResponse> {
    const session = this.sessions.get(p.sessionId);
    if (!session || p.options.length === 0) return Promise.resolve({ outcome: { outcome: "cancelled" } });
    session.apply({ sessionUpdate: "tool_call_update", ...p.toolCall });
    return new Promise((resolve) => {
      let done = false;
      const offered = (p._meta as any)?.dsh?.partialApproval?.hunks;
      const req: PendingPermission = {
        session,
        toolCallId: p.toolCall.toolCallId,
        options: p.options,
        hunks: Number.isInteger(offered) && offered > 0 ? offered : undefined,
        respond: (optionId, hunks) => {
          if (done) return;
          done = true;
          session.settlePermission(p.toolCall.toolCallId, optionId);
          if (optionId === undefined) return resolve({ outcome: { outcome: "cancelled" } });
          const answer: acp.RequestPermissionResponse = { outcome: { outcome: "selected", optionId } };
          // docs/meta-dsh.md, partialApproval: the hunks accepted
          if (hunks && req.hunks) answer._meta = { dsh: { hunks } };
          resolve(answer);
        },
      };
      session.askPermission(req);
      // The ACP tool kind (read, edit, execute, …): the request's own, else
      // the call's as its updates told it.
      const kind = p.toolCall.kind ?? session.calls.get(p.toolCall.toolCallId)?.toolKind;
      if (kind && this.opts.autoApprove?.includes(kind)) {
        const once = p.options.find((o) => o.kind === "allow_once");
        if (once) return req.respond(once.optionId);
      }
      this.opts.decide(req);
    });
  }

  private track(s: SessionState): SessionState {
    this.sessions.set(s.id, s);
    return s;
  }

  /** Opens a session; SignInRequired when the agent has no API key. */
  async newSession(cwd: string): Promise<SessionState> {
    let r: acp.NewSessionResponse;
    try {
      r = await this.conn.agent.request(acp.methods.agent.session.new, { cwd, mcpServers: [] });
    } catch (err) {
      if ((err as { code?: number })?.code === AUTH_REQUIRED) throw new SignInRequired((err as Error).message, this.terminalLogin());
      throw err;
    }
    return this.track(new SessionState(r.sessionId, cwd, r.modes ?? undefined, r.configOptions ?? undefined));
  }

  /** The arguments of the agent's terminal auth method (undefined: none). */
  terminalLogin(): string[] | undefined {
    const m = this.authMethods.find((a) => (a as { type?: string }).type === "terminal") as { args?: string[] } | undefined;
    return m ? (m.args ?? []) : undefined;
  }

  /** Loads a stored session; its replayed updates reach the returned state
   * (subscribe in onState, before the replay starts). */
  async loadSession(sessionId: string, cwd: string, onState?: (s: SessionState) => void): Promise<SessionState> {
    const s = this.track(new SessionState(sessionId, cwd));
    onState?.(s);
    const r = await this.conn.agent.request(acp.methods.agent.session.load, { sessionId, cwd, mcpServers: [] });
    s.setModes(r?.modes ?? undefined, r?.configOptions ?? undefined);
    return s;
  }

  async listSessions(cwd?: string): Promise<acp.SessionInfo[]> {
    const all: acp.SessionInfo[] = [];
    let cursor: string | undefined;
    do {
      const r = await this.conn.agent.request(acp.methods.agent.session.list, cursor ? { cwd, cursor } : { cwd });
      all.push(...r.sessions);
      cursor = r.nextCursor ?? undefined;
    } while (cursor);
    return all;
  }

  async prompt(s: SessionState, prompt: acp.ContentBlock[]): Promise<acp.StopReason> {
    s.setRunning(true);
    try {
      const r = await this.conn.agent.request(acp.methods.agent.session.prompt, { sessionId: s.id, prompt });
      if (r.stopReason === "cancelled") s.settleCancelled();
      // the id the bridge gave the user message (docs/meta-dsh.md)
      s.answered((r._meta as { dsh?: { userMessageId?: unknown } } | null | undefined)?.dsh?.userMessageId);
      return r.stopReason;
    } finally {
      s.setRunning(false);
    }
  }

  /** The agent's rewind method, when it advertises one
   * (agentCapabilities._meta.dsh.sessionRewind, docs/meta-dsh.md). */
  get rewindMethod(): string | undefined {
    const m = (this.capabilities?._meta as { dsh?: { sessionRewind?: { method?: unknown } } } | null | undefined)?.dsh?.sessionRewind?.method;
    return typeof m === "string" && m.startsWith("_") ? m : undefined;
  }

  /** rewind asks the agent to rewind the session to before the turn of a
   * message ({sessionId, toMessageId}); the session runs meanwhile (a
   * conflict asks through a permission request). Rejects with the
   * agent's error (an unknown id, a turn in progress). */
  async rewind(s: SessionState, toMessageId: string): Promise<RewindResult> {
    const method = this.rewindMethod;
    if (!method) throw new Error("this agent cannot rewind a session");
    // a rewind asked during a turn (the agent refuses it) leaves the turn running
    const was = s.running;
    if (!was) s.setRunning(true);
    try {
      const r = await this.conn.agent.request<Partial<RewindResult>>(method as `_${string}`, { sessionId: s.id, toMessageId });
      const list = (v: unknown) => (Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : []);
      return { restored: list(r?.restored), kept: list(r?.kept), notRestorable: list(r?.notRestorable), failed: list(r?.failed), cancelled: r?.cancelled === true };
    } finally {
      if (!was) s.setRunning(false);
    }
  }

  /** Cancels the turn; open permission requests are answered cancelled. */
  async cancel(s: SessionState): Promise<void> {
    s.failPermissions();
    await this.conn.agent.notify(acp.methods.agent.session.cancel, { sessionId: s.id });
  }

  async setMode(s: SessionState, modeId: string): Promise<void> {
    await this.conn.agent.request(acp.methods.agent.session.setMode, { sessionId: s.id, modeId });
    s.setCurrentMode(modeId);
  }

  async setConfigOption(s: SessionState, configId: string, value: string): Promise<void> {
    const r = await this.conn.agent.request(acp.methods.agent.session.setConfigOption, {
      sessionId: s.id,
      configId,
      value,
    });
    s.setModes(undefined, r.configOptions);
  }

  /** Ends the agent: stdin closed (it exits on EOF), killed after graceMs. */
  dispose(graceMs = 2000): Promise<void> {
    if (this.exited) return Promise.resolve();
    this.stopping = true;
    return new Promise((resolve) => {
      const t = setTimeout(() => this.child.kill("SIGKILL"), graceMs);
      this.child.once("exit", () => {
        clearTimeout(t);
        resolve();
      });
      this.conn.close();
      this.child.stdin?.end();
    });
  }

  get isStopping(): boolean {
    return this.stopping;
  }
}
