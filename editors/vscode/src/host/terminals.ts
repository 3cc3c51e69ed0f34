// The terminal/* client methods over child_process, with no `vscode`
// import (the Pseudoterminal mirror subscribes through onOutput). Each
// command runs detached, in a process group of its own, so that kill and
// release end its children too. Output is kept within outputByteLimit,
// cut from the start at a character boundary.
import { spawn, type ChildProcess } from "node:child_process";
import type * as acp from "@agentclientprotocol/sdk";

export interface Terminal {
  id: string;
  command: string;
  args: string[];
  cwd?: string;
  output: Buffer;
  truncated: boolean;
  limit?: number;
  exit?: { exitCode: number | null; signal: string | null };
  proc: ChildProcess;
  waiters: Array<(e: { exitCode: number | null; signal: string | null }) => void>;
  killTimer?: NodeJS.Timeout;
  released: boolean;
}

export type OutputListener = (id: string, chunk: string | null, exit?: Terminal["exit"]) => void;

export class RequestError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

/** cut keeps the last `limit` bytes of buf, starting at a UTF-8 character. */
export function cut(buf: Buffer, limit: number | undefined): { buf: Buffer; cut: boolean } {
  if (limit === undefined || buf.length <= limit) return { buf, cut: false };
  let start = buf.length - limit;
  while (start < buf.length && (buf[start]! & 0xc0) === 0x80) start++;
  return { buf: buf.subarray(start), cut: true };
}

export class Terminals {
  private readonly live = new Map<string, Terminal>();
  private readonly kept = new Map<string, Terminal>(); // released, for display
  private readonly listeners = new Set<OutputListener>();
  private seq = 0;

  constructor(private readonly defaultCwd: string) {}

  onOutput(fn: OutputListener): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  /** get returns a terminal, released ones included. */
  get(id: string): Terminal | undefined {
    return this.live.get(id) ?? this.kept.get(id);
  }

  private lookup(id: string): Terminal {
    const t = this.live.get(id);
    if (!t) throw new RequestError(-32602, `unknown terminal ${JSON.stringify(id)}`);
    return t;
  }

  create(p: acp.CreateTerminalRequest): acp.CreateTerminalResponse {
    if (typeof p.command !== "string" || p.command === "") throw new RequestError(-32602, "command must be a non-empty string");
    if (p.cwd != null && !p.cwd.startsWith("/")) throw new RequestError(-32602, "cwd must be an absolute path");
    const env: NodeJS.ProcessEnv = { ...process.env };
    for (const e of p.env ?? []) env[e.name] = e.value;
    const id = `term_${++this.seq}`;
    const proc = spawn(p.command, p.args ?? [], { cwd: p.cwd ?? this.defaultCwd, env, detached: true, stdio: ["ignore", "pipe", "pipe"] });
    const t: Terminal = {
      id,
      command: p.command,
      args: p.args ?? [],
      cwd: p.cwd ?? undefined,
      output: Buffer.alloc(0),
      truncated: false,
      limit: p.outputByteLimit ?? undefined,
      proc,
      waiters: [],
      released: false,
    };
    const onData = (d: Buffer) => {
      const r = cut(Buffer.concat([t.output, d]), t.limit);
      t.output = r.buf;
      t.truncated ||= r.cut;
      this.emit(id, d.toString("utf8"));
    };
    proc.stdout!.on("data", onData);
    proc.stderr!.on("data", onData);
    proc.on("error", (err) => {
      onData(Buffer.from(`cannot start ${p.command}: ${err.message}\n`));
      this.finish(t, 127, null);
    });
    // "close" comes after the exit and after both pipes ended: the output
    // is complete when waiters hear of the exit.
    proc.on("close", (code, signal) => this.finish(t, code, signal));
    this.live.set(id, t);
    return { terminalId: id };
  }

  private finish(t: Terminal, code: number | null, signal: NodeJS.Signals | null): void {
    if (t.exit) return;
    if (t.killTimer) clearTimeout(t.killTimer);
    t.exit = { exitCode: signal ? null : code, signal: signal ?? null };
    for (const w of t.waiters) w(t.exit);
    t.waiters = [];
    this.emit(t.id, null, t.exit);
  }

  private emit(id: string, chunk: string | null, exit?: Terminal["exit"]): void {
    for (const fn of this.listeners) fn(id, chunk, exit);
  }

  output(p: acp.TerminalOutputRequest): acp.TerminalOutputResponse {
    const t = this.lookup(p.terminalId);
    return { output: t.output.toString("utf8"), truncated: t.truncated, ...(t.exit ? { exitStatus: t.exit } : {}) };
  }

  waitForExit(p: acp.WaitForTerminalExitRequest): Promise<acp.WaitForTerminalExitResponse> {
    const t = this.lookup(p.terminalId);
    if (t.exit) return Promise.resolve({ ...t.exit });
    return new Promise((resolve) => t.waiters.push((e) => resolve({ ...e })));
  }

  /** killGroup ends the command's whole group: SIGTERM, SIGKILL after 2 s. */
  private killGroup(t: Terminal): void {
    if (t.exit || t.proc.pid === undefined) return;
    const pid = t.proc.pid;
    try {
      process.kill(-pid, "SIGTERM");
    } catch {
      /* already gone */
    }
    t.killTimer ??= setTimeout(() => {
      try {
        process.kill(-pid, "SIGKILL");
      } catch {
        /* already gone */
      }
    }, 2000);
  }

  kill(p: acp.KillTerminalRequest): acp.KillTerminalResponse {
    this.killGroup(this.lookup(p.terminalId));
    return {};
  }

  release(p: acp.ReleaseTerminalRequest): acp.ReleaseTerminalResponse {
    const t = this.lookup(p.terminalId);
    this.killGroup(t);
    t.released = true;
    this.live.delete(t.id);
    this.kept.set(t.id, t);
    if (this.kept.size > 100) this.kept.delete(this.kept.keys().next().value!);
    return {};
  }

  /** killAll ends every running command (the agent went away). */
  killAll(): void {
    for (const t of this.live.values()) this.killGroup(t);
  }
}
