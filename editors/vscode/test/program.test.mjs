// findProgram: the agent's binary is not taken from a folder its
// sandboxed commands may write.
import { test } from "node:test";
import assert from "node:assert/strict";
import { chmodSync, mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { findProgram } from "../dist/test/acp.mjs";

function setup(t) {
  // base is not in the temp folder: TMPDIR moves to a folder inside it.
  const base = realpathSync(mkdtempSync(path.join(os.tmpdir(), "program-")));
  const saved = process.env.TMPDIR;
  process.env.TMPDIR = path.join(base, "tmp");
  mkdirSync(process.env.TMPDIR);
  t.after(() => {
    if (saved === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = saved;
    rmSync(base, { recursive: true, force: true });
  });
  const exe = (dir) => {
    mkdirSync(dir, { recursive: true });
    const p = path.join(dir, "dsh-bridge");
    writeFileSync(p, "#!/bin/sh\n");
    chmodSync(p, 0o755);
    return p;
  };
  return { base, ws: path.join(base, "ws"), exe };
}

test("skips the workspace's .venv/bin, the temp folder and relative entries", (t) => {
  const { base, ws, exe } = setup(t);
  exe(path.join(ws, ".venv", "bin"));
  exe(process.env.TMPDIR);
  const want = exe(path.join(base, "usr", "bin"));
  const PATH = [path.join(ws, ".venv", "bin"), process.env.TMPDIR, ".venv/bin", path.join(base, "usr", "bin")].join(path.delimiter);
  assert.equal(findProgram("dsh-bridge", [ws], PATH), want);
});

test("skips a symlink into the workspace", (t) => {
  const { base, ws, exe } = setup(t);
  const planted = exe(path.join(ws, "bin"));
  mkdirSync(path.join(base, "links"));
  symlinkSync(planted, path.join(base, "links", "dsh-bridge"));
  const want = exe(path.join(base, "usr", "bin"));
  assert.equal(findProgram("dsh-bridge", [ws], [path.join(base, "links"), path.join(base, "usr", "bin")].join(path.delimiter)), want);
});

test("finds nothing when only planted ones are on PATH; takes a path as it is", (t) => {
  const { ws, exe } = setup(t);
  exe(path.join(ws, ".venv", "bin"));
  assert.equal(findProgram("dsh-bridge", [ws], path.join(ws, ".venv", "bin")), undefined);
  assert.equal(findProgram("/opt/x/dsh-bridge", [ws], ""), "/opt/x/dsh-bridge");
});
