// Builds the extension (CommonJS, vscode external), the webview page (an
// IIFE for the browser) and, for the plain-Node tests, the vscode-free
// layers as ES modules. `node esbuild.mjs` builds all; --watch rebuilds.
import * as esbuild from "esbuild";
import { copyFileSync, mkdirSync } from "node:fs";

const common = { bundle: true, sourcemap: true, logLevel: "warning", target: "es2022" };
mkdirSync("dist", { recursive: true });
copyFileSync("media/webview.css", "dist/webview.css");
await Promise.all([
  esbuild.build({ ...common, entryPoints: ["src/extension.ts"], outfile: "dist/extension.js", platform: "node", format: "cjs", external: ["vscode"] }),
  esbuild.build({ ...common, entryPoints: ["src/ui/webview/main.ts"], outfile: "dist/webview.js", platform: "browser", format: "iife" }),
  esbuild.build({ ...common, entryPoints: ["src/acp/index.ts"], outfile: "dist/test/acp.mjs", platform: "node", format: "esm" }),
  esbuild.build({ ...common, entryPoints: ["src/host/index.ts"], outfile: "dist/test/host.cjs", platform: "node", format: "cjs", external: ["vscode"] }),
  esbuild.build({ ...common, entryPoints: ["src/editor.ts"], outfile: "dist/test/editor.cjs", platform: "node", format: "cjs", external: ["vscode"] }),
]);
