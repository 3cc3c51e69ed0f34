// Helpers of the plain-Node tests: the real dsh-bridge binary (built once
// unless DSH_BRIDGE_BIN names one), scratch workspaces, and a Node host
// (files on disk, the extension's own Terminals) in place of VS Code's.
import { execFileSync } from "node:child_process";
import { mkdtempSync, mkdirSync, readFileSync, realpathSync, writeFileSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import * as acp from "../dist/test/acp.mjs";

export const here = path.dirname(fileURLToPath(import.meta.url));
export const root = path.resolve(here, "../../..");

let built;
export function bin() {
  if (process.env.DSH_BRIDGE_BIN) return process.env.DSH_BRIDGE_BIN;
  if (!built) {
    built = path.join(tmpdir(), "dsh-bridge-vscode-test", "dsh-bridge");
    // The helpers go next to the bridge, where it finds them.
    execFileSync("go", ["build", "-o", path.dirname(built) + "/", "./cmd/dsh-bridge", "./cmd/dsh-highlight", "./cmd/dsh-code", "./cmd/dsh-markdown"], { cwd: root, stdio: "inherit", env: { ...process.env, CGO_ENABLED: "0" } });
  }
  return built;
}

export function script(name) {
  return path.join(here, "scripts", name);
}

export function workspace(files = {}) {
  const dir = realpathSync(mkdtempSync(path.join(tmpdir(), "dsh-vscode-")));
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    writeFileSync(path.join(dir, name), text);
  }
  return dir;
}

export const read = (p) => (existsSync(p) ? readFileSync(p, "utf8") : undefined);

/** nodeHost serves the client methods from disk and real terminals. */
export function nodeHost(cwd) {
  const terminals = new acp.Terminals(cwd);
  return {
    terminals,
    // the extension's own slicing, so the fake answers as the editor does
    readTextFile: async (p) => ({ content: acp.slice(readFileSync(p.path, "utf8"), p.line, p.limit) }),
    async writeTextFile(p) {
      mkdirSync(path.dirname(p.path), { recursive: true });
      writeFileSync(p.path, p.content);
      return {};
    },
    createTerminal: async (p) => terminals.create(p),
    terminalOutput: async (p) => terminals.output(p),
    waitForTerminalExit: (p) => terminals.waitForExit(p),
    killTerminal: async (p) => terminals.kill(p),
    releaseTerminal: async (p) => terminals.release(p),
  };
}

/** start runs the agent on a script in dir; decide answers permissions. */
export async function start(dir, scriptName, decide, extra = {}) {
  const host = nodeHost(dir);
  const agent = await acp.AgentConnection.start({
    command: bin(),
    args: ["--model", `script:${script(scriptName)}`],
    env: { ...process.env, DSH_STATE_DIR: path.join(dir, ".state"), DSH_LOG_LEVEL: "warn", TMPDIR: "/tmp" }, // the notice names the temp folder
    cwd: dir,
    host,
    decide: decide ?? ((req) => req.respond(req.options.find((o) => o.kind === "allow_once")?.optionId)),
    ...extra,
  });
  return { agent, host };
}

/** pids lists processes whose command line matches re. */
export function pids(re) {
  try {
    return execFileSync("pgrep", ["-f", re], { encoding: "utf8" }).trim().split("\n").filter(Boolean);
  } catch {
    return [];
  }
}

export async function waitFor(cond, ms = 10000, what = "a condition") {
  const end = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

export { acp };
