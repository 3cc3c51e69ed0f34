// Virtual documents for "Open diff": the proposed text of a file, under a
// scheme of our own, named like the file so VS Code picks its language.
import * as vscode from "vscode";

export const SCHEME = "dsh-proposed";

export class ProposedDocs implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly docs = new Map<string, string>();
  private readonly reg = vscode.workspace.registerTextDocumentContentProvider(SCHEME, this);
  private seq = 0;

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.docs.get(uri.toString()) ?? "";
  }

  private add(path: string, side: string, text: string): vscode.Uri {
    const uri = vscode.Uri.from({ scheme: SCHEME, path, query: `${side}-${++this.seq}` });
    this.docs.set(uri.toString(), text);
    return uri;
  }

  /** pair returns the two sides of a change to path. The whole file is
   * shown when the change is an excerpt found once in it (an edit);
   * otherwise the texts as the agent sent them. */
  async pair(path: string, oldText: string | null, newText: string): Promise<{ left: vscode.Uri; right: vscode.Uri }> {
    let current: string | undefined;
    try {
      const open = vscode.workspace.textDocuments.find((d) => d.uri.scheme === "file" && d.uri.fsPath === path);
      current = open ? open.getText() : new TextDecoder().decode(await vscode.workspace.fs.readFile(vscode.Uri.file(path)));
    } catch {
      current = undefined;
    }
    if (current !== undefined && oldText !== null && oldText !== current) {
      const at = current.indexOf(oldText);
      if (oldText !== "" && at >= 0 && current.indexOf(oldText, at + 1) < 0) {
        const whole = current.slice(0, at) + newText + current.slice(at + oldText.length);
        return { left: vscode.Uri.file(path), right: this.add(path, "proposed", whole) };
      }
    }
    if (current !== undefined && (oldText === null || oldText === current))
      return { left: vscode.Uri.file(path), right: this.add(path, "proposed", newText) };
    return { left: this.add(path, "before", oldText ?? ""), right: this.add(path, "proposed", newText) };
  }

  /** forget drops documents no editor shows any more. */
  forget(uris: string[]): void {
    for (const u of uris) this.docs.delete(u);
  }

  dispose(): void {
    this.reg.dispose();
    this.docs.clear();
  }
}
