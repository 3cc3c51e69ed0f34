type ToolArgsMap = {
  /** Run a shell command in the workspace with bash -c and return its output and exit status. A non-zero exit is reported, not an error. Use run_in_background for servers and other long-running commands. */
  bash: {
    /** The shell command to run (bash -c). */
    command: string;
    /** What the command does, in a few words, for the person watching. */
    description: string;
    /** Timeout in milliseconds (default 120000, at most 600000). */
    timeoutMs?: number;
    /** Directory to run in: absolute, or relative to the workspace. Defaults to the workspace. */
    workdir?: string;
    /** Start the command as a background job and return its id at once; read its output with job_output. */
    run_in_background?: boolean;
    /** Run outside the sandbox. Only after a command failed because of the sandbox; the person is always asked first. */
    unsandboxed?: boolean;
    [key: string]: unknown;
  };
  /** Replace exact text in a file. old_string must match exactly once unless replace_all is set; include enough surrounding lines to make it unique. */
  edit: {
    /** Path of the file to edit: absolute, or relative to the workspace. */
    file_path: string;
    /** The exact text to replace. */
    old_string: string;
    /** The text to replace it with. */
    new_string: string;
    /** Replace every occurrence instead of requiring exactly one. */
    replace_all?: boolean;
    [key: string]: unknown;
  };
  /** Find files by path glob (for example **\/*.go), including hidden and ignored files, least recently modified first. */
  glob: {
    /** Glob of file paths to find, for example **\/*.go. */
    pattern: string;
    /** Directory to search; defaults to the workspace. */
    path?: string;
    [key: string]: unknown;
  };
  /** Search file contents in the workspace with a regular expression (ripgrep). Honours .gitignore; skips hidden and binary files. Returns matching lines grouped by file. */
  grep: {
    /** Regular expression (ripgrep syntax) to search file contents for. */
    pattern: string;
    /** File or directory to search; defaults to the workspace. */
    path?: string;
    /** A single glob of files to search, for example *.go or src/**\/*.{ts,tsx}. */
    include?: string;
    [key: string]: unknown;
  };
  /** Stop a background job and everything it started. */
  job_kill: {
    /** The background job's id. */
    job_id: string;
    /** Why the job is stopped. */
    reason?: string;
    [key: string]: unknown;
  };
  /** List this session's background jobs and their status. */
  job_list: Record<string, unknown>;
  /** Read a background job's new output since the last read, and its status. Set wait to block until there is new output or the job ends. */
  job_output: {
    /** The background job's id, as bash returned it. */
    job_id: string;
    /** Wait for new output or the end of the job. */
    wait?: boolean;
    /** How long to wait, in milliseconds (default 30000, at most 600000). */
    timeout_ms?: number;
    [key: string]: unknown;
  };
  /** Read a UTF-8 text file and return line-numbered content. Use offset and limit to continue reading large files. */
  read: {
    /** Path to read: absolute, or relative to the workspace. */
    file_path: string;
    /** 1-based first line to return. Defaults to 1. */
    offset?: number;
    /** Maximum number of lines to return. Defaults to 2000. */
    limit?: number;
    [key: string]: unknown;
  };
  /** Fetch a web page or text resource over http(s) and return its readable text (HTML is converted to Markdown). */
  web_fetch: {
    /** The http or https URL to fetch. */
    url: string;
    [key: string]: unknown;
  };
  /** Write a UTF-8 text file, replacing its content or creating it (with missing parent directories). Prefer edit for changes to an existing file. */
  write: {
    /** Path to write: absolute, or relative to the workspace. Parent directories are created. */
    file_path: string;
    /** The complete new content of the file. */
    content: string;
    [key: string]: unknown;
  };
};

type ToolOutputMap = {
  bash: {
    kind: "background";
    jobId: string;
  } | {
    kind: "foreground";
    exitCode: number | null;
    signal: string | null;
    timedOut: boolean;
    aborted: boolean;
    timeoutMs: number;
    stdout: {
      text: string;
      truncated: boolean;
      spillPath?: string;
    };
    stderr: {
      text: string;
      truncated: boolean;
      spillPath?: string;
    };
  };
  edit: {
    path: string;
    before: string;
    after: string;
    diagnostics?: Array<{
      path: string;
      line: number;
      column: number;
      severity: string;
      message: string;
      source?: string;
      code?: string;
    }>;
    partial?: {
      proposed: number;
      applied: number[];
      rejected: Array<{
        index: number;
        header: string;
        text: string;
      }>;
    };
  };
  glob: {
    root: string;
    paths: string[];
    total: number;
    truncated: boolean;
  };
  grep: {
    matches: Array<{
      path: string;
      lineNumber: number;
      line: string;
    }>;
    total: number;
    truncated: boolean;
  };
  job_kill: {
    outcome: "cancellation-requested" | "already-finished";
    job: {
      id: string;
      kind: string;
      label: string;
      status: string;
      detail?: string;
      startedAt: string;
      finishedAt?: string;
    };
  };
  job_list: Array<{
    id: string;
    kind: string;
    label: string;
    status: string;
    detail?: string;
    startedAt: string;
    finishedAt?: string;
  }>;
  job_output: {
    text: string;
    job: {
      id: string;
      kind: string;
      label: string;
      status: string;
      detail?: string;
      startedAt: string;
      finishedAt?: string;
    };
  };
  read: {
    path: string;
    offset: number;
    lines: Array<{
      number: number;
      text: string;
    }>;
    totalLines: number;
  };
  web_fetch: {
    url: string;
    statusCode: number;
    body: {
      kind: "html" | "text";
      content: string;
    };
    truncated: boolean;
  };
  write: {
    path: string;
    operation: "create" | "update";
    before: string | null;
    after: string;
    diagnostics?: Array<{
      path: string;
      line: number;
      column: number;
      severity: string;
      message: string;
      source?: string;
      code?: string;
    }>;
    partial?: {
      proposed: number;
      applied: number[];
      rejected: Array<{
        index: number;
        header: string;
        text: string;
      }>;
    };
  };
};

declare class ToolCallError extends Error {
  readonly name: "ToolCallError";
  readonly toolName: string;
}

declare const tools: {
  readonly [K in keyof ToolArgsMap]: (args: ToolArgsMap[K]) => Promise<ToolOutputMap[K]>;
};
