// How the agent is started: which binary, with which environment.
import * as vscode from "vscode";
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { findProgram } from "./acp/program.js";

export const SECRET_KEY = "dshBridge.apiKey";

/**
 * agentCommand resolves the binary: the setting, the bundled one, PATH
 * outside the workspace's folders and the temp folder (findProgram).
 */
export function agentCommand(extensionUri: vscode.Uri): string {
  const configured = vscode.workspace.getConfiguration("dshBridge").get<string>("path");
  if (configured) return configured;
  const exe = process.platform === "win32" ? "dsh-bridge.exe" : "dsh-bridge";
  const bundled = vscode.Uri.joinPath(extensionUri, "bin", exe).fsPath;
  if (existsSync(bundled)) return bundled;
  const folders = (vscode.workspace.workspaceFolders ?? []).map((f) => f.uri.fsPath);
  const found = findProgram("dsh-bridge", folders);
  if (!found) {
    throw new Error(
      "dsh-bridge is not on PATH outside the workspace and the temp folder, where the agent's commands may write: set dshBridge.path to its full path",
    );
  }
  return found;
}

/** agentEnv is the agent's environment: the settings' env, the stored
 * key, and the base URL and model settings. */
export async function agentEnv(secrets: vscode.SecretStorage): Promise<NodeJS.ProcessEnv> {
  const cfg = vscode.workspace.getConfiguration("dshBridge");
  const env: NodeJS.ProcessEnv = { ...process.env, ...(cfg.get<Record<string, string>>("env") ?? {}) };
  const key = await secrets.get(SECRET_KEY);
  if (key) env.DSH_API_KEY = key;
  const base = cfg.get<string>("baseUrl");
  if (base) env.DSH_BASE_URL = base;
  const model = cfg.get<string>("model");
  if (model) env.DSH_MODEL = model;
  return env;
}

/** askApiKey asks for a key and stores it in the secret storage ("" removes
 * it); false when the person cancelled. */
export async function askApiKey(secrets: vscode.SecretStorage): Promise<boolean> {
  const key = await vscode.window.showInputBox({ prompt: "The API key dsh-bridge passes to the model (DSH_API_KEY)", password: true, ignoreFocusOut: true });
  if (key === undefined) return false;
  if (key === "") await secrets.delete(SECRET_KEY);
  else await secrets.store(SECRET_KEY, key);
  return true;
}

/** terminalLogin runs the agent's terminal auth method (`dsh-bridge
 * login`) in a VS Code terminal; true once it exited 0. */
export async function terminalLogin(command: string, args: string[]): Promise<boolean> {
  const term = vscode.window.createTerminal({ name: "dsh-bridge login", shellPath: command, shellArgs: args, env: vscode.workspace.getConfiguration("dshBridge").get<Record<string, string>>("env") ?? {} });
  term.show();
  const code = await new Promise<number | undefined>((resolve) => {
    const sub = vscode.window.onDidCloseTerminal((t) => {
      if (t !== term) return;
      sub.dispose();
      resolve(t.exitStatus?.code);
    });
  });
  return code === 0;
}

/** helperNextTo is the helper program installed beside the agent's
 * binary (as the bridge finds its own), undefined when there is none. */
export function helperNextTo(command: string, name: string): string | undefined {
  const exe = join(dirname(command), process.platform === "win32" ? `${name}.exe` : name);
  return existsSync(exe) ? exe : undefined;
}
