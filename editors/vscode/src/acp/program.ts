// findProgram: the agent's binary on PATH, outside the folders its
// sandboxed commands may write.
import { accessSync, constants, realpathSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";

function real(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return p;
  }
}

function under(p: string, dirs: string[]): boolean {
  return dirs.some((d) => p === d || p.startsWith(d + path.sep));
}

/**
 * findProgram returns name's path on PATH, skipping relative entries, the
 * temp folder and the untrusted folders (the workspace's), symlinks
 * resolved: a virtualenv activated in the shell VS Code was started from
 * puts the workspace's .venv/bin first on PATH, and the agent's commands
 * may write there, so a program planted there would otherwise be the
 * agent at its next start, outside any sandbox. A name with a slash is
 * returned as it is (the person chose it); undefined when none is found.
 */
export function findProgram(name: string, untrusted: string[], PATH = process.env.PATH ?? ""): string | undefined {
  if (name.includes("/")) return name;
  const bad = [...untrusted, os.tmpdir()].map(real).filter((d) => d !== "/" && d !== "");
  for (const dir of PATH.split(path.delimiter)) {
    if (!path.isAbsolute(dir)) continue;
    const p = path.join(dir, name);
    try {
      if (!statSync(p).isFile()) continue;
      accessSync(p, constants.X_OK);
    } catch {
      continue;
    }
    if (under(real(p), bad) || under(real(dir), bad)) continue;
    return p;
  }
  return undefined;
}
