package lsp

import (
	"net/url"
	"path"
	"runtime"
	"sort"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"go.lsp.dev/protocol"

	"github.com/dsh-bridge/dsh-bridge/card"
	"github.com/dsh-bridge/dsh-bridge/workspace"
)

// A server chooses what it publishes, and for which files: the bounds of
// what is kept of it.
const (
	// maxDiagFiles caps the files a server's diagnostics are kept for,
	// besides the files the agent touched (held open, at most maxOpen),
	// which are always kept: a flood for other files is dropped once
	// the map is full.
	maxDiagFiles = 1000
	// maxPerFile caps the errors and warnings kept of one publication.
	maxPerFile = 100
	// maxMessageBytes caps a diagnostic's message; maxFieldBytes its
	// source and code.
	maxMessageBytes = 1000
	maxFieldBytes   = 100
	// maxPathBytes caps the path a URI names (PATH_MAX on Linux).
	maxPathBytes = 4096
	// maxFileDiagBytes caps one file's kept diagnostics in bytes (the
	// tools show 4 KiB of a file's); maxDiagBytes a server's, but for
	// the files the agent touched, whose lists are always kept: a
	// publication for another file that would pass it is dropped. So a
	// server holds at most maxDiagBytes + maxOpen*maxFileDiagBytes
	// (3 MiB).
	maxFileDiagBytes = 16 << 10
	maxDiagBytes     = 2 << 20
	// diagOverhead is what a kept diagnostic costs besides its texts (its
	// fields, in the list and the map).
	diagOverhead = 96
)

// Bounds of the other files' new problems a change's result gets.
const (
	maxOtherFiles   = 3
	maxOtherPerFile = 5
)

// publish keeps a file's errors and warnings: of a file inside the
// workspace's roots, named by a plain local file URI, capped and cleaned.
func (s *server) publish(p protocol.PublishDiagnosticsParams) {
	file, ok := uriPath(runtime.GOOS, string(p.URI))
	if !ok || !s.m.inRoots(file) {
		s.m.opts.Log.Debug("language server diagnostics dropped: not a workspace file", "server", s.cfg.Language, "uri", truncate([]byte(p.URI)))
		return
	}
	var kept []protocol.Diagnostic
	for _, d := range p.Diagnostics {
		if len(kept) == maxPerFile {
			break
		}
		if sv := severityName(d.Severity); sv == card.SeverityError || sv == card.SeverityWarning {
			kept = append(kept, d)
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.eventLocked()
	if !s.loaded {
		s.loaded, s.loadedAt = true, time.Now()
	}
	text := ""
	d := s.docs[file]
	if d != nil {
		text = d.text
	}
	old, known := s.diags[file]
	switch {
	case d == nil && len(kept) == 0:
		s.dropDiagsLocked(file) // none: nothing to keep for a file the agent has not touched
		return
	case d == nil && !known && len(s.diags) >= maxDiagFiles:
		return
	}
	ds, size := convert(file, text, kept, maxFileDiagBytes)
	if d == nil && s.diagBytes-old.bytes+size > maxDiagBytes {
		s.dropDiagsLocked(file) // its last list is not its current one
		return
	}
	now := time.Now()
	s.diagBytes += size - old.bytes
	s.diags[file] = published{diags: ds, bytes: size, version: int32(p.Version), seq: s.seq, at: now}
	s.pubAt = now
}

// dropDiagsLocked forgets file's diagnostics.
func (s *server) dropDiagsLocked(file string) {
	s.diagBytes -= s.diags[file].bytes
	delete(s.diags, file)
}

// inRoots reports whether the clean absolute path p lies in one of the
// workspace's roots, compared in the platform's form (case folded where
// the file system folds it).
func (m *Manager) inRoots(p string) bool {
	f := workspace.FormOf(runtime.GOOS)
	for _, r := range m.opts.Roots {
		if f.Within(p, r) {
			return true
		}
	}
	return false
}

// uriPath is the clean absolute path of goos that a file URI names, ok
// false for anything else: another scheme, a host other than localhost
// (a share), an opaque or relative form, a query or fragment, a path
// with control characters or longer than maxPathBytes. Percent-escapes
// are decoded once and ".." taken lexically; symlinks are the judge's
// (the tools judge each path as a read).
func uriPath(goos, raw string) (string, bool) {
	u, err := url.Parse(raw)
	if err != nil || !strings.EqualFold(u.Scheme, "file") || u.Opaque != "" || u.RawQuery != "" || u.ForceQuery || u.Fragment != "" || u.User != nil {
		return "", false
	}
	if u.Host != "" && !strings.EqualFold(u.Host, "localhost") {
		return "", false
	}
	p := u.Path
	if p == "" || len(p) > maxPathBytes || strings.ContainsFunc(p, func(r rune) bool { return unicode.IsControl(r) || r == utf8.RuneError }) {
		return "", false
	}
	if goos != "windows" {
		if !strings.HasPrefix(p, "/") {
			return "", false
		}
		return path.Clean(p), true
	}
	// Windows: /C:/x (or C:/x); a backslash is a separator there too.
	p = strings.ReplaceAll(p, `\`, "/")
	p = strings.TrimPrefix(p, "/")
	if len(p) < 3 || p[1] != ':' || p[2] != '/' || !('a' <= p[0]|0x20 && p[0]|0x20 <= 'z') {
		return "", false
	}
	return strings.ToUpper(p[:1]) + ":" + strings.ReplaceAll(path.Clean(p[2:]), "/", `\`), true
}

// othersLocked is the diagnostics known now of the files other than
// file (the lists are never changed in place: a publication replaces
// its file's).
func (s *server) othersLocked(file string) map[string][]card.Diagnostic {
	out := make(map[string][]card.Diagnostic, len(s.diags))
	for p, d := range s.diags {
		if p != file {
			out[p] = d.diags
		}
	}
	return out
}

// newOthers is what was published for files other than file after
// since that before did not have: the problems a change made in other
// files (those that import it), at most maxOtherFiles files (by path)
// and maxOtherPerFile each.
func (s *server) newOthers(file string, since uint64, before map[string][]card.Diagnostic) []card.Diagnostic {
	s.mu.Lock()
	var paths []string
	for p, d := range s.diags {
		if p != file && d.seq > since {
			paths = append(paths, p)
		}
	}
	sort.Strings(paths)
	var out []card.Diagnostic
	files := 0
	for _, p := range paths {
		old := map[string]bool{}
		for _, d := range before[p] {
			old[d.String()] = true
		}
		n := 0
		for _, d := range s.diags[p].diags {
			if !old[d.String()] && n < maxOtherPerFile {
				out = append(out, d)
				n++
			}
		}
		if n > 0 {
			if files++; files == maxOtherFiles {
				break
			}
		}
	}
	s.mu.Unlock()
	return out
}
