// The language-server problems under a diff card: one row each, coloured by
// severity, its location a link to the file at that line and column.
import type { DiagnosticView } from "../../acp/diagnostics.js";
import type { FromWebview } from "../protocol.js";

function el(tag: string, cls: string, text?: string): HTMLElement {
  const e = document.createElement(tag);
  e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}

/** diagnosticsBody draws the list (text goes in through textContent only). */
export function diagnosticsBody(list: DiagnosticView[], post: (m: FromWebview) => void): HTMLElement {
  const body = el("div", "diagnostics");
  const errors = list.filter((d) => d.severity === "error").length;
  const warnings = list.length - errors;
  const counts = [errors ? `${errors} error${errors === 1 ? "" : "s"}` : "", warnings ? `${warnings} warning${warnings === 1 ? "" : "s"}` : ""];
  body.append(el("div", "diagnostics-head", `Language server: ${counts.filter(Boolean).join(", ")}`));
  for (const d of list) {
    const row = el("div", `diagnostic ${d.severity}`);
    row.dataset.severity = d.severity;
    const at = el("a", "diagnostic-at", `${d.path}:${d.line}:${d.column}`) as HTMLAnchorElement;
    at.href = "#";
    at.addEventListener("click", (e) => {
      e.preventDefault();
      e.stopPropagation();
      post({ type: "openFile", path: d.path, line: d.line, column: d.column });
    });
    const tail = [d.source, d.code].filter(Boolean).join(" ");
    row.append(at, el("span", "diagnostic-severity", `${d.severity}:`), el("span", "diagnostic-message", d.message + (tail ? ` (${tail})` : "")));
    body.append(row);
  }
  return body;
}
