// Text helpers of the client methods, with no `vscode` import (the plain-Node
// tests serve reads with the same slicing).

/** slice returns text from 1-based line `line`, at most `limit` lines. */
export function slice(text: string, line?: number | null, limit?: number | null): string {
  if ((line == null || line <= 1) && limit == null) return text;
  const start = Math.max(line ?? 1, 1);
  let pos = 0;
  for (let n = 1; n < start; n++) {
    const nl = text.indexOf("\n", pos);
    if (nl < 0) return "";
    pos = nl + 1;
  }
  if (limit == null) return text.slice(pos);
  let end = pos;
  for (let i = 0; i < limit; i++) {
    const nl = text.indexOf("\n", end);
    if (nl < 0) return text.slice(pos);
    end = nl + 1;
  }
  return text.slice(pos, end);
}

