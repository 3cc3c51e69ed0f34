// Package highlight gives read cards their syntax tokens without linking a
// highlighter into the bridge.
//
// Chroma registers all of its 279 lexers when its package initialises
// (some 17 ms of CPU and 2.7 MB), and the bridge binary starts often: for
// every editor session, and again for every command it supervises. So the
// tokenizer lives in a helper binary, dsh-highlight (package chromatok),
// which [Client] starts on the first request and talks to over a pipe,
// for every language alike. The bridge itself never imports chroma.
//
// The protocol between the two binaries is private and versioned by the
// helper's first line ("dsh-highlight 1"). Each request is a frame
//
//	uvarint id, uvarint len(path), path, uvarint len(lang), lang,
//	uvarint lines, then per line uvarint len(text), text
//
// and each answer a frame
//
//	uvarint id, byte status (0 tokens, 1 unknown language, 2 error),
//	then for tokens: uvarint types, per type uvarint len + name,
//	uvarint lines, per line uvarint spans, per span uvarint start,
//	uvarint width, uvarint type index; for an error: uvarint len + message.
//
// Spans count UTF-16 code units, as editors do. The bridge writes the JSON
// the editor sees itself, from these numbers, so a broken helper can make a
// card lose its colours but never put malformed bytes on the ACP stream.
//
// [FenceLanguage] names a file's language for Markdown code fences without
// the helper: the read result's text cannot wait for it.
package highlight
