// The host: the client methods over VS Code (files) and child_process
// (terminals, mirrored into VS Code terminals on demand).
import * as vscode from "vscode";
import type { ClientHost } from "../acp/connection.js";
import { readTextFile, writeTextFile } from "./fs.js";
import { MirrorPty } from "./pty.js";
import { RequestError, Terminals } from "./terminals.js";

export { MirrorPty, RequestError, Terminals };

/** wrap turns a RequestError into the JSON-RPC error the SDK answers with. */
async function wrap<T>(f: () => T | Promise<T>): Promise<T> {
  try {
    return await f();
  } catch (err) {
    if (err instanceof RequestError) {
      const e = new Error(err.message) as Error & { code: number };
      e.code = err.code;
      throw Object.assign(e, { data: undefined });
    }
    throw err;
  }
}

export class VscodeHost implements ClientHost {
  readonly terminals: Terminals;
  private readonly mirrors = new Map<string, { pty: MirrorPty; terminal?: vscode.Terminal }>();

  constructor(cwd: string) {
    this.terminals = new Terminals(cwd);
    this.terminals.onOutput((id, chunk, exit) => {
      const m = this.mirrors.get(id);
      if (!m) return;
      if (chunk !== null) m.pty.write(chunk);
      else if (exit) m.pty.write(exitLine(exit));
    });
  }

  readTextFile = (p: Parameters<ClientHost["readTextFile"]>[0]) => wrap(() => readTextFile(p));
  writeTextFile = (p: Parameters<ClientHost["writeTextFile"]>[0]) => wrap(() => writeTextFile(p));
  createTerminal = (p: Parameters<ClientHost["createTerminal"]>[0]) => wrap(() => this.terminals.create(p));
  terminalOutput = (p: Parameters<ClientHost["terminalOutput"]>[0]) => wrap(() => this.terminals.output(p));
  waitForTerminalExit = (p: Parameters<ClientHost["waitForTerminalExit"]>[0]) => wrap(() => this.terminals.waitForExit(p));
  killTerminal = (p: Parameters<ClientHost["killTerminal"]>[0]) => wrap(() => this.terminals.kill(p));
  releaseTerminal = (p: Parameters<ClientHost["releaseTerminal"]>[0]) => wrap(() => this.terminals.release(p));

  /** showTerminal opens a command's output in a VS Code terminal: what it
   * printed so far (the terminal's bounded output), then what follows.
   * The mirror is made on demand, so an unshown command buffers nothing
   * beyond its own output limit. */
  showTerminal(id: string, name: string): void {
    let m = this.mirrors.get(id);
    if (!m) {
      const t = this.terminals.get(id);
      if (!t) return;
      m = { pty: new MirrorPty() };
      m.pty.write(`$ ${[t.command, ...t.args].join(" ")}\n`);
      m.pty.write(t.output.toString("utf8"));
      if (t.exit) m.pty.write(exitLine(t.exit));
      this.mirrors.set(id, m);
    }
    m.terminal ??= vscode.window.createTerminal({ name: `dsh: ${name}`, pty: m.pty });
    m.terminal.show(true);
  }

  dispose(): void {
    this.terminals.killAll();
    for (const m of this.mirrors.values()) m.terminal?.dispose();
  }
}

function exitLine(exit: { exitCode: number | null; signal: string | null }): string {
  return `\n[${exit.signal ? `killed by ${exit.signal}` : `exit ${exit.exitCode}`}]\n`;
}
