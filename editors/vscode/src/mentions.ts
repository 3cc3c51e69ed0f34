// `@` mentions in the prompt: the workspace's files that match what is
// typed, and the content blocks a prompt's mentions become — the text as
// an embedded resource when VS Code has the file open (unsaved edits
// included), else a resource_link the agent reads itself.
import * as vscode from "vscode";
import type * as acp from "@agentclientprotocol/sdk";
import { mime } from "./editor.js";
import { mentioned } from "./ui/prompt.js";

const EXCLUDE = "{**/node_modules/**,**/.git/**,**/dist/**,**/out/**}";

/** mentionable lists up to limit workspace paths (relative) that contain
 * the query, shortest first. */
export async function mentionable(query: string, limit = 12): Promise<string[]> {
  const q = query.replace(/[[\]{}*?!]/g, "");
  const found = await vscode.workspace.findFiles(q ? `**/*${q}*` : "**/*", EXCLUDE, 200);
  const paths = found.map((u) => vscode.workspace.asRelativePath(u, false));
  const lower = q.toLowerCase();
  const score = (p: string) => (p.toLowerCase().split("/").pop()!.startsWith(lower) ? 0 : 1);
  return paths.sort((a, b) => score(a) - score(b) || a.length - b.length || a.localeCompare(b)).slice(0, limit);
}

/** mentionBlocks turns the prompt's `@path` words that name a workspace
 * file into content blocks; other words stay text only. */
export async function mentionBlocks(text: string, cwd: string): Promise<acp.ContentBlock[]> {
  const out: acp.ContentBlock[] = [];
  for (const p of mentioned(text)) {
    const uri = p.startsWith("/") ? vscode.Uri.file(p) : vscode.Uri.joinPath(vscode.Uri.file(cwd), p);
    if (vscode.workspace.getWorkspaceFolder(uri) === undefined) continue; // outside the workspace: not attached
    let stat: vscode.FileStat;
    try {
      stat = await vscode.workspace.fs.stat(uri);
    } catch {
      continue;
    }
    if (stat.type & vscode.FileType.Directory) continue;
    const open = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString());
    if (open) out.push({ type: "resource", resource: { uri: uri.toString(), text: open.getText(), mimeType: mime(open.languageId) } });
    else out.push({ type: "resource_link", uri: uri.toString(), name: p.split("/").pop()!, size: stat.size });
  }
  return out;
}
