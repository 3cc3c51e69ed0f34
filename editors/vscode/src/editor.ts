// What the chat asks of the editor: open a file at a line, open a web
// link, insert an answer's code at the cursor.
import * as vscode from "vscode";
import { tokenClass } from "./acp/cards.js";
import { utf16Column } from "./acp/diagnostics.js";
import type { Highlighter } from "./host/highlighter.js";

/** openFile opens path (relative to cwd) at a 1-based line and, when
 * given, column (characters, as `read` counts them). A path a
 * card names is one the agent's tool used (with the person's approval
 * where it asked); one from an answer's text (fromAnswer) is the model's
 * word only: outside the workspace's folders (absolute, or climbing with
 * "..") it is not opened, and false is returned. */
export async function openFile(path: string, line: number | undefined, cwd: string, fromAnswer = false, column?: number): Promise<boolean> {
  const uri = path.startsWith("/") || /^[A-Za-z]:[\\/]/.test(path) ? vscode.Uri.file(path) : vscode.Uri.joinPath(vscode.Uri.file(cwd), path);
  if (fromAnswer && vscode.workspace.getWorkspaceFolder(uri) === undefined) {
    void vscode.window.showInformationMessage(`dsh-bridge: ${path} is outside the workspace; it is not opened from the chat.`);
    return false;
  }
  const doc = await vscode.workspace.openTextDocument(uri);
  const l = Math.min(Math.max((line ?? 1) - 1, 0), Math.max(doc.lineCount - 1, 0));
  const c = column ? utf16Column(doc.lineAt(l).text, column) : 0;
  await vscode.window.showTextDocument(doc, { selection: new vscode.Range(l, c, l, c), preview: true });
  return true;
}

/** openLink opens a link of agent text. Agent text is untrusted: only web
 * and mail links go to the system (markdown-it already drops javascript:,
 * file: and data: links; a message forged by the page is refused here too). */
export async function openLink(href: string): Promise<void> {
  const uri = vscode.Uri.parse(href);
  if (["http", "https", "mailto"].includes(uri.scheme)) await vscode.env.openExternal(uri);
}

/** insertAtCursor puts text in place of the selection of the file editor
 * the person last used (the chat has the focus when they click). */
export async function insertAtCursor(text: string): Promise<boolean> {
  const ed = vscode.window.activeTextEditor ?? vscode.window.visibleTextEditors.find((e) => e.document.uri.scheme === "file");
  if (!ed) {
    void vscode.window.showInformationMessage("dsh-bridge: open a file to insert the code into.");
    return false;
  }
  return ed.edit((b) => b.replace(ed.selection, text));
}

/** mime names a document's language as a MIME type for a resource. */
export function mime(languageId: string | undefined): string | undefined {
  return languageId ? `text/x-${languageId}` : undefined;
}

/** codeSpans highlights an answer's code block as the page draws it:
 * per line, spans classed as the cards' (tokenClass); null when the
 * highlighter cannot. */
export async function codeSpans(h: Highlighter, lang: string, text: string): Promise<Array<Array<{ s: number; e: number; c: string }>> | null> {
  const lines = await h.tokens(lang, text);
  if (!lines) return null;
  return lines.map((l) => l.flatMap((t) => {
    const c = tokenClass(t.type);
    return c ? [{ s: t.start, e: t.end, c }] : [];
  }));
}
