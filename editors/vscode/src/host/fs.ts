// fs/read_text_file and fs/write_text_file over VS Code: an open document
// is the truth (its unsaved edits win); a write to it is one WorkspaceEdit
// (undoable) followed by a save; other files go through workspace.fs.
import * as vscode from "vscode";
import type * as acp from "@agentclientprotocol/sdk";
import { RequestError } from "./terminals.js";
import { slice } from "./text.js";

function absolute(path: unknown): string {
  if (typeof path !== "string" || !path.startsWith("/")) throw new RequestError(-32602, `path must be absolute, got ${JSON.stringify(path)}`);
  return path;
}

function openDocument(path: string): vscode.TextDocument | undefined {
  return vscode.workspace.textDocuments.find((d) => d.uri.scheme === "file" && d.uri.fsPath === path);
}

export async function readTextFile(p: acp.ReadTextFileRequest): Promise<acp.ReadTextFileResponse> {
  const path = absolute(p.path);
  for (const [name, v] of [["line", p.line], ["limit", p.limit]] as const)
    if (v != null && (!Number.isInteger(v) || v < 0)) throw new RequestError(-32602, `${name} must be a non-negative integer`);
  const doc = openDocument(path);
  if (doc) return { content: slice(doc.getText(), p.line, p.limit) };
  let bytes: Uint8Array;
  try {
    bytes = await vscode.workspace.fs.readFile(vscode.Uri.file(path));
  } catch (err) {
    const code = err instanceof vscode.FileSystemError && err.code === "FileNotFound" ? -32002 : -32603;
    throw new RequestError(code, `cannot read ${path}: ${(err as Error).message}`);
  }
  return { content: slice(new TextDecoder().decode(bytes), p.line, p.limit) };
}

export async function writeTextFile(p: acp.WriteTextFileRequest): Promise<acp.WriteTextFileResponse> {
  const path = absolute(p.path);
  if (typeof p.content !== "string") throw new RequestError(-32602, "content must be a string");
  const doc = openDocument(path);
  if (doc) {
    const edit = new vscode.WorkspaceEdit();
    const all = new vscode.Range(doc.positionAt(0), doc.positionAt(doc.getText().length));
    edit.replace(doc.uri, all, p.content);
    if (!(await vscode.workspace.applyEdit(edit))) throw new RequestError(-32603, `the edit of ${path} was refused`);
    if (!(await doc.save())) throw new RequestError(-32603, `${path} was changed but could not be saved`);
    return {};
  }
  const uri = vscode.Uri.file(path);
  await vscode.workspace.fs.createDirectory(vscode.Uri.file(path.slice(0, path.lastIndexOf("/")) || "/"));
  await vscode.workspace.fs.writeFile(uri, new TextEncoder().encode(p.content));
  return {};
}
