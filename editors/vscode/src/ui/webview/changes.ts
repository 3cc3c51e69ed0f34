// The files the session changed, pinned above the prompt: each with its
// +/− counts (a click opens its diff, before the session ↔ now), and
// "Undo all". Paths are agent data: drawn as text.
import type { ChangesView, FromWebview } from "../protocol.js";
import { el } from "./dom.js";

export function changesPin(post: (m: FromWebview) => void): { node: HTMLElement; draw(v: ChangesView | undefined): void } {
  const node = el("details", "changes-pin hidden");
  let open = false;
  node.addEventListener("toggle", () => (open = (node as HTMLDetailsElement).open));
  return {
    node,
    draw(v) {
      node.replaceChildren();
      node.classList.toggle("hidden", !v);
      if (!v) return;
      (node as HTMLDetailsElement).open = open;
      const added = v.files.reduce((n, f) => n + f.added, 0);
      const removed = v.files.reduce((n, f) => n + f.removed, 0);
      const sum = el("summary", "changes-summary");
      sum.append(
        el("span", "changes-title", `${v.files.length} ${v.files.length === 1 ? "file" : "files"} changed`),
        el("span", "changes-added", ` +${added}`),
        el("span", "changes-removed", ` −${removed}`),
      );
      if (v.undoAll) {
        const undo = el("button", "secondary undo-all", "Undo all");
        undo.title = "Rewind the chat to before its first file change: every file goes back, and those turns leave the chat";
        undo.addEventListener("click", (e) => {
          e.preventDefault();
          post({ type: "undoAll" });
        });
        sum.append(undo);
      }
      const list = el("ul", "changes");
      for (const f of v.files) {
        const li = el("li", "changed-file");
        li.dataset.path = f.path;
        const a = el("a", "changed-path", f.label + (f.created ? " (new)" : ""));
        a.setAttribute("href", "#");
        a.title = `Open the diff of ${f.label}: before the session ↔ now`;
        a.addEventListener("click", (e) => {
          e.preventDefault();
          e.stopPropagation();
          post({ type: "openChange", path: f.path });
        });
        li.append(a, el("span", "changes-added", ` +${f.added}`), el("span", "changes-removed", ` −${f.removed}`));
        list.append(li);
      }
      node.append(sum, list);
    },
  };
}
