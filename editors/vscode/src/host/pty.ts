// A command's output mirrored into a VS Code terminal (a Pseudoterminal).
// VS Code drops whatever a Pseudoterminal writes before it calls open(),
// so output is buffered until then.
import * as vscode from "vscode";

export class MirrorPty implements vscode.Pseudoterminal {
  private readonly writer = new vscode.EventEmitter<string>();
  private readonly closer = new vscode.EventEmitter<number | void>();
  readonly onDidWrite = this.writer.event;
  readonly onDidClose = this.closer.event;
  private opened = false;
  private pending: string[] = [];

  open(): void {
    this.opened = true;
    for (const s of this.pending) this.writer.fire(s);
    this.pending = [];
  }

  close(): void {
    this.opened = false;
  }

  /** write shows text (newlines become CRLF, as a terminal needs). */
  write(text: string): void {
    const s = text.replace(/\r?\n/g, "\r\n");
    if (this.opened) this.writer.fire(s);
    else this.pending.push(s);
  }

  /** buffered is what waits for open(). */
  get buffered(): string {
    return this.pending.join("");
  }
}
