// The vscode-free layers, for the plain-Node tests.
export { AgentConnection, AUTH_REQUIRED, CAPABILITIES, SignInRequired, type ClientHost } from "./connection.js";
export { SessionState, contentText, unpackTokens, type PendingPermission } from "./session.js";
export { beforeSession, changedFiles, confirmText, firstChangeTurn, rewindable, rewindScope, type ChangedFile } from "./changes.js";
export { cardView, hunksOf, proposedDiffs, tokenClass } from "./cards.js";
export { diagnosticsOf, utf16Column } from "./diagnostics.js";
export { HunkChoice, answerFor, offeredHunks, type ProposedHunk } from "./hunks.js";
export { findProgram } from "./program.js";
export { shellSpans } from "./shell.js";
export { Terminals, cut } from "../host/terminals.js";
export { slice } from "../host/text.js";
export { blockView, changesView, chatItems, chatTitle, headerView, relativeTime, relativeTo } from "../ui/present.js";
export { mentioned, mentionQuery, pathRefs, slashHint, slashMatches, slashQuery } from "../ui/prompt.js";
export { Highlighter, decodeAnswer, encodeRequest } from "../host/highlighter.js";
