// The language-server problems a completed edit/write card carries in
// `_meta.dsh.diagnostics` (docs/meta-dsh.md, "diagnostics").

export interface DiagnosticView {
  path: string;
  /** 1-based */
  line: number;
  /** 1-based, in characters (code points) as `read` counts them */
  column: number;
  severity: "error" | "warning";
  message: string;
  source?: string;
  code?: string;
}

/** diagnosticsOf reads the list from the card's meta (or `card.diagnostics`),
 * keeping only well-formed entries; undefined when there are none. */
export function diagnosticsOf(meta: unknown, card: unknown): DiagnosticView[] | undefined {
  const raw = listOf(meta) ?? listOf(card);
  if (!raw) return undefined;
  const out: DiagnosticView[] = [];
  for (const d of raw) {
    if (!d || typeof d !== "object" || typeof d.path !== "string" || typeof d.message !== "string") continue;
    out.push({
      path: d.path,
      line: positive(d.line),
      column: positive(d.column),
      severity: d.severity === "warning" ? "warning" : "error",
      message: d.message,
      source: typeof d.source === "string" ? d.source : undefined,
      code: typeof d.code === "string" || typeof d.code === "number" ? String(d.code) : undefined,
    });
  }
  return out.length > 0 ? out : undefined;
}

function listOf(o: unknown): any[] | undefined {
  const l = o && typeof o === "object" ? (o as any).diagnostics : undefined;
  return Array.isArray(l) ? l : undefined;
}

function positive(n: unknown): number {
  return typeof n === "number" && Number.isFinite(n) && n >= 1 ? Math.floor(n) : 1;
}

/** utf16Column turns a 1-based column in code points on line into the
 * 0-based UTF-16 offset an editor position takes (clamped to the line). */
export function utf16Column(line: string, column: number): number {
  let at = 0;
  let n = 1;
  for (const ch of line) {
    if (n >= column) break;
    at += ch.length;
    n++;
  }
  return at;
}
