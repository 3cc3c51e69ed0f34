// A `vscode` module for the host tests: real behaviour where the host
// depends on it (open documents with an undo stack, saves that reach the
// disk, a file system, Pseudoterminals whose open() VS Code calls later),
// with records of what was called.
const fs = require("node:fs");
const path = require("node:path");

class Uri {
  constructor(scheme, p, query = "") {
    this.scheme = scheme;
    this.path = p;
    this.fsPath = p;
    this.query = query;
  }
  static file(p) {
    return new Uri("file", p);
  }
  static from(o) {
    return new Uri(o.scheme, o.path, o.query);
  }
  static joinPath(u, ...parts) {
    return new Uri(u.scheme, path.join(u.path, ...parts));
  }
  toString() {
    return `${this.scheme}://${this.path}${this.query ? "?" + this.query : ""}`;
  }
}
class Position {
  constructor(line, character) {
    this.line = line;
    this.character = character;
  }
}
class Range {
  constructor(a, b, c, d) {
    if (a instanceof Position) [this.start, this.end] = [a, b];
    else [this.start, this.end] = [new Position(a, b), new Position(c, d)];
  }
}
class WorkspaceEdit {
  constructor() {
    this.edits = [];
  }
  replace(uri, range, text) {
    this.edits.push({ uri, range, text });
  }
}
class EventEmitter {
  constructor() {
    this.listeners = [];
    this.event = (l) => {
      this.listeners.push(l);
      return { dispose() {} };
    };
  }
  fire(v) {
    for (const l of this.listeners) l(v);
  }
  dispose() {}
}
class FileSystemError extends Error {
  constructor(message, code) {
    super(message);
    this.code = code;
  }
}

/** A document open in the editor: text, an undo stack, save. */
class Doc {
  constructor(file, text) {
    this.uri = Uri.file(file);
    this.text = text;
    this.undoStack = [];
    this.saves = 0;
  }
  getText() {
    return this.text;
  }
  get lineCount() {
    return this.text.split("\n").length;
  }
  offsetAt(pos) {
    const lines = this.text.split("\n");
    let off = 0;
    for (let i = 0; i < pos.line; i++) off += lines[i].length + 1;
    return off + pos.character;
  }
  positionAt(offset) {
    const before = this.text.slice(0, offset).split("\n");
    return new Position(before.length - 1, before[before.length - 1].length);
  }
  async save() {
    fs.writeFileSync(this.uri.fsPath, this.text);
    this.saves++;
    return true;
  }
  undo() {
    this.text = this.undoStack.pop();
  }
}

const calls = { writeFile: [], createDirectory: [], applyEdit: 0, createTerminal: [], shown: [], info: [] };
const workspace = {
  textDocuments: [],
  /** the open folders: [{ uri }] */
  workspaceFolders: [],
  getWorkspaceFolder(uri) {
    const p = path.normalize(uri.fsPath);
    return workspace.workspaceFolders.find((f) => p === f.uri.fsPath || p.startsWith(f.uri.fsPath + path.sep));
  },
  async openTextDocument(uri) {
    return workspace.textDocuments.find((d) => d.uri.fsPath === uri.fsPath) ?? new Doc(uri.fsPath, fs.readFileSync(uri.fsPath, "utf8"));
  },
  async applyEdit(edit) {
    calls.applyEdit++;
    for (const e of edit.edits) {
      const doc = workspace.textDocuments.find((d) => d.uri.fsPath === e.uri.fsPath);
      if (!doc) return false;
      doc.undoStack.push(doc.text);
      doc.text = doc.text.slice(0, doc.offsetAt(e.range.start)) + e.text + doc.text.slice(doc.offsetAt(e.range.end));
    }
    return true;
  },
  fs: {
    async readFile(uri) {
      try {
        return fs.readFileSync(uri.fsPath);
      } catch (err) {
        throw new FileSystemError(err.message, err.code === "ENOENT" ? "FileNotFound" : "Unknown");
      }
    },
    async writeFile(uri, bytes) {
      calls.writeFile.push(uri.fsPath);
      fs.writeFileSync(uri.fsPath, bytes);
    },
    async createDirectory(uri) {
      calls.createDirectory.push(uri.fsPath);
      fs.mkdirSync(uri.fsPath, { recursive: true });
    },
  },
  registerTextDocumentContentProvider() {
    return { dispose() {} };
  },
};

/** A terminal: VS Code calls the pty's open() some time after creation. */
const window = {
  async showTextDocument(doc, opts) {
    calls.shown.push({ path: doc.uri.fsPath, line: opts?.selection?.start.line });
  },
  async showInformationMessage(text) {
    calls.info.push(text);
  },
  createTerminal(opts) {
    const t = { name: opts.name, pty: opts.pty, shown: false, written: "", show() { this.shown = true; }, dispose() {} };
    opts.pty.onDidWrite((s) => (t.written += s));
    calls.createTerminal.push(t);
    return t;
  },
};

module.exports = { Uri, Position, Range, WorkspaceEdit, EventEmitter, FileSystemError, workspace, window, Doc, calls };
