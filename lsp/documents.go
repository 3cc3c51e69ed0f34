package lsp

import (
	"context"
	"fmt"
	"time"

	"github.com/sourcegraph/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/dsh-bridge/dsh-bridge/card"
)

// sync sends path's text when it differs from what the server holds and
// returns the event count after which a publication is newer than the
// file's last change.
func (s *server) sync(ctx context.Context, path, text string) (uint64, error) {
	s.send.Lock()
	defer s.send.Unlock()
	s.mu.Lock()
	conn := s.conn
	if conn == nil {
		s.mu.Unlock()
		return 0, fmt.Errorf("the %s language server is not running", s.cfg.Language)
	}
	u := uri.File(path)
	d := s.docs[path]
	var method string
	var params any
	switch {
	case d == nil:
		d = &doc{version: 1, text: text}
		s.docs[path] = d
		method = protocol.MethodTextDocumentDidOpen
		params = &protocol.DidOpenTextDocumentParams{TextDocument: protocol.TextDocumentItem{
			URI: u, LanguageID: protocol.LanguageIdentifier(s.cfg.languageID(path)), Version: 1, Text: text}}
	case d.text != text:
		d.version++
		d.text = text
		method = protocol.MethodTextDocumentDidChange
		params = &fullChange{
			TextDocument:   protocol.VersionedTextDocumentIdentifier{TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: u}, Version: d.version},
			ContentChanges: []wholeText{{Text: text}}}
	default:
		since := d.seq
		s.mu.Unlock()
		return since, nil
	}
	d.seq = s.seq
	since := s.seq
	closing := s.oldestLocked(path)
	s.mu.Unlock()
	if closing != "" {
		if err := s.notify(conn, protocol.MethodTextDocumentDidClose, &protocol.DidCloseTextDocumentParams{TextDocument: protocol.TextDocumentIdentifier{URI: uri.File(closing)}}); err != nil {
			return 0, err
		}
	}
	if err := s.notify(conn, method, params); err != nil {
		return 0, err
	}
	if err := s.notify(conn, protocol.MethodTextDocumentDidSave, &protocol.DidSaveTextDocumentParams{TextDocument: protocol.TextDocumentIdentifier{URI: u}}); err != nil {
		return 0, err
	}
	if method == protocol.MethodTextDocumentDidChange {
		// Also as a watched file: servers that read the disk for files
		// they do not hold (other packages' importers) look again.
		if err := s.notify(conn, protocol.MethodWorkspaceDidChangeWatchedFiles, &protocol.DidChangeWatchedFilesParams{
			Changes: []*protocol.FileEvent{{Type: protocol.FileChangeTypeChanged, URI: u}}}); err != nil {
			return 0, err
		}
	}
	return since, nil
}

// notify sends a notification. Its write is bounded (boundedWriter): a
// server that stops reading its input is ended then (and restarted),
// which ends the write.
func (s *server) notify(conn *jsonrpc2.Conn, method string, params any) error {
	if err := conn.Notify(context.Background(), method, params); err != nil {
		return fmt.Errorf("the %s language server: %w", s.cfg.Language, err)
	}
	return nil
}

// fullChange is didChange's params with the whole new text: the
// library's TextDocumentContentChangeEvent always carries a range, which
// would make it an insertion.
type fullChange struct {
	TextDocument   protocol.VersionedTextDocumentIdentifier `json:"textDocument"`
	ContentChanges []wholeText                              `json:"contentChanges"`
}

type wholeText struct {
	Text string `json:"text"`
}

// oldestLocked forgets and returns the least recently changed open file
// other than keep when more than maxOpen are open ("" otherwise).
func (s *server) oldestLocked(keep string) string {
	if len(s.docs) <= maxOpen {
		return ""
	}
	oldest := ""
	for p, d := range s.docs {
		if p != keep && (oldest == "" || d.seq < s.docs[oldest].seq) {
			oldest = p
		}
	}
	delete(s.docs, oldest)
	s.dropDiagsLocked(oldest)
	return oldest
}

// waitDiagnostics waits for path's diagnostics newer than since and of
// the file's version, followed by a quiet period with no progress open,
// and returns its errors and warnings. It waits at most the manager's
// Wait once the server has loaded, and until the end of the start bound
// while it loads (no publication yet, or progress still open).
func (s *server) waitDiagnostics(ctx context.Context, path string, since uint64) ([]card.Diagnostic, error) {
	start := time.Now()
	for {
		s.mu.Lock()
		deadline := start.Add(s.m.opts.Wait)
		switch {
		case !s.loaded:
			deadline = later(deadline, s.started.Add(s.timeout))
		case s.loadedAt.After(start):
			deadline = s.loadedAt.Add(s.m.opts.Wait)
		}
		p, ok := s.diags[path]
		d := s.docs[path]
		fresh := ok && d != nil && p.seq > since && (p.version == 0 || p.version >= d.version)
		busy, up, wake, pubAt := len(s.progress) > 0, s.up, s.wake, s.pubAt
		s.mu.Unlock()
		if !up {
			return nil, fmt.Errorf("the %s language server stopped", s.cfg.Language)
		}
		// The settle after a fresh publication: short when it names the
		// change's version (nearly final: only a second pass, gopls's
		// analyzers, may follow), twice the quiet period when it names
		// none (typescript-language-server publishes the syntactic pass,
		// then the semantic one, unversioned).
		quiet := s.m.opts.Quiet / 3
		if p.version == 0 {
			quiet = 2 * s.m.opts.Quiet
		}
		// Quiet counts from the last publication of any file: the files
		// that import this one are published in the same pass.
		settled := quiet - time.Since(later(p.at, pubAt))
		if fresh && !busy && settled <= 0 {
			return card.Problems(p.diags), nil
		}
		left := time.Until(deadline)
		if left <= 0 {
			if fresh {
				return card.Problems(p.diags), nil
			}
			return nil, fmt.Errorf("the %s language server reported nothing for %s within %v", s.cfg.Language, path, s.m.opts.Wait)
		}
		if fresh && settled > 0 && settled < left {
			left = settled
		}
		t := time.NewTimer(left)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, ctx.Err()
		case <-wake:
		case <-t.C:
		}
		t.Stop()
	}
}

func (s *server) openPaths() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]string, 0, len(s.docs))
	for p := range s.docs {
		out = append(out, p)
	}
	return out
}

// allDiagnostics is every kept diagnostic, split into those of the
// files the agent touched (held open) and the others.
func (s *server) allDiagnostics() (touched, others []card.Diagnostic) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for path, p := range s.diags {
		if s.docs[path] != nil {
			touched = append(touched, p.diags...)
		} else {
			others = append(others, p.diags...)
		}
	}
	return touched, others
}

// call sends a request to the running server, bounded by the wait.
func (s *server) call(ctx context.Context, method string, params, result any) error {
	s.mu.Lock()
	conn := s.conn
	s.mu.Unlock()
	if conn == nil {
		return fmt.Errorf("the %s language server is not running", s.cfg.Language)
	}
	ctx, cancel := context.WithTimeout(ctx, 5*s.m.opts.Wait)
	defer cancel()
	if err := conn.Call(ctx, method, params, result); err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("the %s language server did not answer %s within %v", s.cfg.Language, method, 5*s.m.opts.Wait)
		}
		return fmt.Errorf("the %s language server: %v", s.cfg.Language, err)
	}
	return nil
}
