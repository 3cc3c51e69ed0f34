// A light shell highlighter for the command shown in an approval: the
// bridge sends no tokens for commands, so the words are classed here.
// Classes: cmd (a command's first word), kw (a reserved word), str (a
// quoted string), var ($NAME, ${…}, $(…) openers), op (| & ; < > and
// their doubles), com (a comment). Unclassed text is plain.

export interface ShellSpan {
  s: number; // UTF-16 offsets into the command
  e: number;
  c: "cmd" | "kw" | "str" | "var" | "op" | "com";
}

const RESERVED = new Set(["if", "then", "else", "elif", "fi", "for", "while", "until", "do", "done", "case", "esac", "in", "function", "select", "time", "!"]);
// after these words the next word is a command again
const LEADS = new Set(["if", "then", "else", "elif", "do", "while", "until", "time", "!"]);

/** shellSpans classes the words of a command, left to right. */
export function shellSpans(cmd: string): ShellSpan[] {
  const out: ShellSpan[] = [];
  let i = 0;
  let atCommand = true; // the next word starts a command
  const n = cmd.length;
  while (i < n) {
    const ch = cmd[i]!;
    if (ch === " " || ch === "\t") {
      i++;
      continue;
    }
    if (ch === "\n") {
      atCommand = true;
      i++;
      continue;
    }
    if (ch === "#") {
      const end = cmd.indexOf("\n", i);
      const e = end < 0 ? n : end;
      out.push({ s: i, e, c: "com" });
      i = e;
      continue;
    }
    const op = /^(\|\||&&|;;|\|&|>>|<<|[|&;<>()])/.exec(cmd.slice(i));
    if (op) {
      out.push({ s: i, e: i + op[0].length, c: "op" });
      if (!/^[<>]/.test(op[0])) atCommand = true;
      i += op[0].length;
      continue;
    }
    // a word: runs to unquoted space or operator; quotes and $ inside it
    const start = i;
    let plain = "";
    const inner: ShellSpan[] = [];
    while (i < n && !/[\s|&;<>()]/.test(cmd[i]!)) {
      const c = cmd[i]!;
      if (c === "'" || c === '"') {
        let j = i + 1;
        while (j < n && cmd[j] !== c) j += cmd[j] === "\\" && c === '"' ? 2 : 1;
        j = Math.min(j + 1, n);
        inner.push({ s: i, e: j, c: "str" });
        plain += "\0";
        i = j;
      } else if (c === "$") {
        const m = /^\$(\{[^}]*\}?|\(|[A-Za-z_][A-Za-z0-9_]*|[0-9@*#?$!-])/.exec(cmd.slice(i));
        const len = m ? m[0].length : 1;
        inner.push({ s: i, e: i + len, c: "var" });
        plain += "\0";
        i += len;
      } else if (c === "\\") {
        plain += cmd.slice(i, i + 2);
        i += 2;
      } else {
        plain += c;
        i++;
      }
    }
    if (i === start) {
      i++;
      continue;
    }
    if (atCommand && RESERVED.has(plain)) {
      out.push({ s: start, e: i, c: "kw" });
      atCommand = LEADS.has(plain);
    } else if (atCommand && !/=/.test(plain.split("\0")[0]!) && inner.length === 0) {
      out.push({ s: start, e: i, c: "cmd" });
      atCommand = false;
    } else {
      out.push(...inner);
      // VAR=value before a command keeps the command position
      if (!(atCommand && /^[A-Za-z_][A-Za-z0-9_]*=/.test(plain))) atCommand = false;
    }
  }
  return out;
}
