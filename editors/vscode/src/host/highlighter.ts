// Syntax tokens for the code blocks of answers, from the same highlighter
// as the cards: dsh-highlight, the helper installed next to dsh-bridge.
// Its protocol is the bridge's private one (package highlight's doc.go,
// version line "dsh-highlight 1", read 2026-12-07): frames of uvarints,
// a request (id, path, lang, lines) and an answer (id, status, then the
// span types and per line (start, width, type) in UTF-16 units). A helper
// that is missing, speaks another version or sends a frame that does not
// parse is dropped: tokens are decoration, and the block stays plain. No
// `vscode` import.
import { spawn, type ChildProcess } from "node:child_process";

export type LineSpans = Array<{ start: number; end: number; type: string }>;

const VERSION = "dsh-highlight 1\n";
const MAX_LINES = 2000;

function uvarint(n: number, out: number[]): void {
  while (n >= 0x80) {
    out.push((n % 0x80) | 0x80);
    n = Math.floor(n / 0x80);
  }
  out.push(n);
}

function str(s: string, out: number[]): void {
  const b = Buffer.from(s, "utf8");
  uvarint(b.length, out);
  for (const x of b) out.push(x);
}

/** encodeRequest is one request frame. */
export function encodeRequest(id: number, lang: string, lines: string[]): Buffer {
  const out: number[] = [];
  uvarint(id, out);
  str("", out);
  str(lang, out);
  uvarint(lines.length, out);
  for (const l of lines) str(l, out);
  return Buffer.from(out);
}

/** A reader over the bytes received; need() throws past the end (a frame
 * not all there yet). */
class Cursor {
  at = 0;
  constructor(readonly b: Buffer) {}
  byte(): number {
    if (this.at >= this.b.length) throw Partial;
    return this.b[this.at++]!;
  }
  uvarint(): number {
    let n = 0;
    let mul = 1;
    for (let i = 0; i < 8; i++) {
      const x = this.byte();
      n += (x & 0x7f) * mul;
      if (x < 0x80) return n;
      mul *= 0x80;
    }
    throw new Error("corrupt uvarint");
  }
  string(): string {
    const n = this.uvarint();
    if (this.at + n > this.b.length) throw Partial;
    const s = this.b.toString("utf8", this.at, this.at + n);
    this.at += n;
    return s;
  }
}
const Partial = new Error("partial frame");

/** decodeAnswer reads one answer frame from b: the answer and the bytes
 * it took, or undefined when b does not hold a whole frame yet. Throws on
 * a frame that cannot be one. */
export function decodeAnswer(b: Buffer): { id: number; lines?: LineSpans[]; used: number } | undefined {
  const c = new Cursor(b);
  try {
    const id = c.uvarint();
    const status = c.byte();
    if (status === 1) return { id, used: c.at };
    if (status === 2) {
      c.string();
      return { id, used: c.at };
    }
    if (status !== 0) throw new Error(`corrupt status ${status}`);
    const names: string[] = [];
    for (let n = c.uvarint(); n > 0; n--) names.push(c.string());
    const lines: LineSpans[] = [];
    for (let nl = c.uvarint(); nl > 0; nl--) {
      const line: LineSpans = [];
      for (let ns = c.uvarint(); ns > 0; ns--) {
        const start = c.uvarint();
        const width = c.uvarint();
        const t = c.uvarint();
        if (t >= names.length) throw new Error("corrupt span type");
        line.push({ start, end: start + width, type: names[t]! });
      }
      lines.push(line);
    }
    return { id, lines, used: c.at };
  } catch (err) {
    if (err === Partial) return undefined;
    throw err;
  }
}

export class Highlighter {
  private child: ChildProcess | undefined;
  private broken = false;
  private greeted = false;
  private buf = Buffer.alloc(0);
  private nextId = 0;
  private readonly waiting = new Map<number, (l: LineSpans[] | undefined) => void>();

  constructor(private readonly program: () => string | undefined) {}

  /** tokens highlights text as lang; undefined when it cannot. */
  tokens(lang: string, text: string): Promise<LineSpans[] | undefined> {
    const lines = text.replace(/\n$/, "").split("\n");
    if (!lang || lines.length > MAX_LINES || !this.start()) return Promise.resolve(undefined);
    const id = ++this.nextId;
    return new Promise((resolve) => {
      this.waiting.set(id, resolve);
      this.child!.stdin!.write(encodeRequest(id, lang, lines));
    });
  }

  private start(): boolean {
    if (this.broken) return false;
    if (this.child) return true;
    const prog = this.program();
    if (!prog) return !(this.broken = true);
    const child = spawn(prog, [], { stdio: ["pipe", "pipe", "ignore"] });
    this.child = child;
    child.on("error", () => this.fail());
    child.on("exit", () => this.fail());
    child.stdin!.on("error", () => this.fail());
    child.stdout!.on("data", (d: Buffer) => this.read(d));
    return true;
  }

  private read(d: Buffer): void {
    this.buf = Buffer.concat([this.buf, d]);
    if (!this.greeted) {
      if (this.buf.length < VERSION.length) return;
      if (this.buf.toString("utf8", 0, VERSION.length) !== VERSION) return this.fail();
      this.greeted = true;
      this.buf = this.buf.subarray(VERSION.length);
    }
    for (;;) {
      let a;
      try {
        a = decodeAnswer(this.buf);
      } catch {
        return this.fail();
      }
      if (!a) return;
      this.buf = this.buf.subarray(a.used);
      this.waiting.get(a.id)?.(a.lines);
      this.waiting.delete(a.id);
    }
  }

  private fail(): void {
    this.broken = true;
    for (const r of this.waiting.values()) r(undefined);
    this.waiting.clear();
    this.child?.kill();
  }

  dispose(): void {
    this.broken = true;
    this.child?.stdin?.end();
    this.child?.kill();
  }
}
