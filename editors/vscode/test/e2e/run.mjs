#!/usr/bin/env node
// The real-VS Code test: code-server (VS Code 1.100 on Node 20) with
// Debian's headless Chromium as the browser. Installs the packaged VSIX
// and the harness extension (test/e2e/harness), opens a scratch workspace,
// lets the harness drive a scripted session through the chat view, takes a
// PNG of the window after the turn (Chrome DevTools Protocol), and fails
// unless every check of the harness passed.
//
//   node test/e2e/run.mjs --code-server DIR --vsix FILE --out DIR
// DIR holds node_modules/.bin/code-server (see the Makefile's
// code-server target). Writes OUT/chat.png (then chat-dark.png and
// chat-hc.png, the same view in a dark and a high-contrast theme) and
// OUT/result.json; chat-slash.png is the new chat with its slash
// completion open.
import { execFileSync, spawn } from "node:child_process";
import { createRequire } from "node:module";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const ext = path.resolve(here, "../..");
const args = Object.fromEntries(process.argv.slice(2).reduce((acc, a, i, all) => (a.startsWith("--") ? [...acc, [a.slice(2), all[i + 1]]] : acc), []));
for (const k of ["code-server", "vsix", "out"]) if (!args[k]) throw new Error(`--${k} is required`);
const csDir = path.resolve(args["code-server"]);
const codeServer = path.join(csDir, "node_modules", ".bin", "code-server");
const out = path.resolve(args.out);
fs.mkdirSync(out, { recursive: true });
const WebSocket = createRequire(path.join(csDir, "node_modules", "code-server", "package.json"))("ws");

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "dsh-e2e-"));
const dirs = { ext: path.join(tmp, "extensions"), data: path.join(tmp, "data"), ws: path.join(tmp, "workspace"), chrome: path.join(tmp, "chrome") };
for (const d of Object.values(dirs)) fs.mkdirSync(d, { recursive: true });
// The greeting on line 6: a pending edit's card must say so (-3,7 +3,7).
fs.writeFileSync(path.join(dirs.ws, "hello.txt"), "# hi\n\none\ntwo\nthree\nhello world\nfour\nfive\nsix\nend\n");
// The second edit (two hunks: beta and omega) is answered from the diff
// editor: its omega hunk rejected by its CodeLens, the rest applied from
// the title bar.
fs.writeFileSync(path.join(dirs.ws, "notes.txt"), "alpha\nbeta\nx1\nx2\nx3\nx4\nx5\nx6\nx7\nx8\nomega\nend\n");
// Go with tabs and an underscore: the read card must show both right.
fs.writeFileSync(path.join(dirs.ws, "main.go"), "package main\n\nfunc main() {\n\tfor _, p := range []string{\"a\"} {\n\t\tprintln(p)\n\t}\n}\n");
// A workspace that tries to choose the binary, its environment and the
// approvals: each setting is the person's (scope machine), so all of it
// must be ignored. The harness's checks fail otherwise: the agent would
// not start, the script would be missing, or the edit's permission
// buttons would never show.
fs.mkdirSync(path.join(dirs.ws, ".vscode"), { recursive: true });
fs.writeFileSync(
  path.join(dirs.ws, ".vscode", "settings.json"),
  JSON.stringify({
    "dshBridge.path": "/nonexistent/evil-dsh-bridge",
    "dshBridge.env": { DSH_MAX_TURN_REQUESTS: "1" },
    "dshBridge.autoApprove": ["read", "search", "fetch", "edit", "delete", "move", "execute", "think", "other"],
  }),
);
fs.mkdirSync(path.join(dirs.data, "User"), { recursive: true });
fs.writeFileSync(
  path.join(dirs.data, "User", "settings.json"),
  JSON.stringify({
    "dshBridge.model": `script:${path.join(ext, "test", "scripts", "e2e.jsonl")}`,
    "dshBridge.env": { DSH_STATE_DIR: path.join(tmp, "state"), DSH_LOG_LEVEL: "warn" },
    "workbench.startupEditor": "none",
    // not CSS's default (8) nor the page's (4): the cards must take it
    "editor.tabSize": 3,
    "security.workspace.trust.enabled": false,
    "telemetry.telemetryLevel": "off",
    "workbench.tips.enabled": false,
    "extensions.autoCheckUpdates": false,
    "extensions.autoUpdate": false,
    "window.commandCenter": false,
  }),
);
const result = path.join(tmp, "result.json");
const log = (...a) => console.log("e2e:", ...a);
const children = [];
function start(cmd, argv, env = {}) {
  const p = spawn(cmd, argv, { detached: true, stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, ...env } });
  const lines = [];
  for (const s of [p.stdout, p.stderr]) s.on("data", (d) => lines.push(d.toString()));
  children.push({ p, lines, cmd });
  return p;
}
function cleanup() {
  for (const { p } of children) {
    try {
      process.kill(-p.pid, "SIGKILL");
    } catch {}
  }
}
process.on("exit", cleanup);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
async function waitFor(cond, ms, what) {
  const end = Date.now() + ms;
  for (;;) {
    const v = await cond();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}
const freePort = () =>
  new Promise((resolve) => {
    const s = net.createServer().listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });

async function screenshot(debugPort, file) {
  const targets = await (await fetch(`http://127.0.0.1:${debugPort}/json`)).json();
  const page = targets.find((t) => t.type === "page");
  const ws = new WebSocket(page.webSocketDebuggerUrl);
  await new Promise((r, j) => (ws.once("open", r), ws.once("error", j)));
  const data = await new Promise((resolve, reject) => {
    ws.on("message", (m) => {
      const msg = JSON.parse(m.toString());
      if (msg.id === 1) (msg.result ? resolve(msg.result.data) : reject(new Error(JSON.stringify(msg.error))));
    });
    ws.send(JSON.stringify({ id: 1, method: "Page.captureScreenshot", params: { format: "png" } }));
  });
  ws.close();
  fs.writeFileSync(file, Buffer.from(data, "base64"));
}

let code = 1;
try {
  const vsce = path.join(ext, "node_modules", ".bin", "vsce");
  const harness = path.join(tmp, "harness.vsix");
  execFileSync(vsce, ["package", "--no-dependencies", "--allow-missing-repository", "--out", harness], { cwd: path.join(here, "harness"), stdio: "pipe" });
  for (const vsix of [path.resolve(args.vsix), harness])
    execFileSync(codeServer, ["--extensions-dir", dirs.ext, "--user-data-dir", dirs.data, "--install-extension", vsix], { stdio: "pipe" });
  // The installed extension carries the bridge and, next to it, the
  // helpers it starts: the highlighter (syntax tokens), Code Mode's
  // runner and the HTML converter; all four must run.
  const installed = fs.readdirSync(dirs.ext).find((d) => d.startsWith("dsh-bridge.dsh-bridge-"));
  if (!installed) throw new Error(`the extension is not installed in ${dirs.ext}`);
  const bin = path.join(dirs.ext, installed, "bin");
  if (!/^dsh-bridge /.test(execFileSync(path.join(bin, "dsh-bridge"), ["version"], { encoding: "utf8" })))
    throw new Error("the packaged dsh-bridge does not run");
  if (execFileSync(path.join(bin, "dsh-highlight"), { input: "", encoding: "utf8" }) !== "dsh-highlight 1\n")
    throw new Error("the packaged dsh-highlight does not speak its protocol");
  const run = JSON.stringify({ run: { code: "return 6 * 7", names: [], timeoutMs: 5000, maxOutputBytes: 1024, heapHeadroom: 0 } }) + "\n";
  const ran = execFileSync(path.join(bin, "dsh-code"), { input: run, encoding: "utf8" }).split("\n");
  if (ran[0] !== "dsh-code 1" || JSON.stringify(JSON.parse(ran[1])) !== JSON.stringify({ outcome: { result: 42 } }))
    throw new Error(`the packaged dsh-code does not run a program: ${ran.join(" | ")}`);
  const md = execFileSync(path.join(bin, "dsh-markdown"), { input: "<h1>Hi</h1>", encoding: "utf8" });
  if (md !== "# Hi")
    throw new Error(`the packaged dsh-markdown does not convert a page: ${JSON.stringify(md)}`);
  const port = await freePort();
  const started = Date.now();
  start(codeServer, ["--bind-addr", `127.0.0.1:${port}`, "--auth", "none", "--disable-telemetry", "--disable-update-check", "--disable-workspace-trust",
    "--extensions-dir", dirs.ext, "--user-data-dir", dirs.data, dirs.ws], {
    DSH_E2E_RESULT: result,
    DSH_E2E_SOURCE: path.join(execFileSync("go", ["env", "GOROOT"], { encoding: "utf8" }).trim(), "src", "net", "http", "h2_bundle.go"),
    DSH_E2E_PROSE: path.resolve(ext, "..", "..", "README.md"),
  });
  await waitFor(async () => (await fetch(`http://127.0.0.1:${port}/healthz`).catch(() => null))?.ok, 60000, "code-server");
  const debugPort = await freePort();
  start("chromium", ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", `--remote-debugging-port=${debugPort}`,
    `--user-data-dir=${dirs.chrome}`, "--window-size=1400,900", `http://127.0.0.1:${port}/?folder=${encodeURIComponent(dirs.ws)}`]);
  log(`code-server on ${port}, chromium debugging on ${debugPort}`);
  // the harness asks for screenshots by name (a marker file), then finishes
  for (;;) {
    await waitFor(() => fs.existsSync(result + ".screenshot") || fs.existsSync(result), 180000, "the harness");
    if (!fs.existsSync(result + ".screenshot")) break;
    const name = fs.readFileSync(result + ".screenshot", "utf8").trim();
    fs.rmSync(result + ".screenshot");
    await sleep(500);
    await screenshot(debugPort, path.join(out, `${name}.png`));
    fs.writeFileSync(result + ".shot", "done");
  }
  const r = JSON.parse(fs.readFileSync(result, "utf8"));
  r.wallMs = Date.now() - started;
  fs.writeFileSync(path.join(out, "result.json"), JSON.stringify(r, null, 1));
  for (const [name, c] of Object.entries(r.checks)) log(`${c.ok ? "ok  " : "FAIL"} ${name}`);
  log("bench", JSON.stringify(r.bench));
  if (!r.ok) log("errors:\n  " + r.errors.join("\n  "));
  code = r.ok && fs.existsSync(path.join(out, "chat.png")) ? 0 : 1;
} catch (err) {
  console.error("e2e:", err);
  for (const c of children) console.error(`--- ${c.cmd} ---\n${c.lines.join("").slice(-3000)}`);
} finally {
  cleanup();
  fs.rmSync(tmp, { recursive: true, force: true });
}
process.exit(code);
