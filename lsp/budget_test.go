package lsp

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// TestPublish_ByteBudget: a server that publishes twice the files the
// budget holds, of a hundred long messages each, is held to maxDiagBytes for the files the
// agent has not touched, each file to maxFileDiagBytes, and the count it
// keeps is the sum of what it holds; a file the agent touched is kept
// past the budget.
func TestPublish_ByteBudget(t *testing.T) {
	root := t.TempDir()
	m := New(Options{Roots: []string{root}})
	defer m.Close()
	s := newServer(m, Server{Language: "red", Command: []string{"none"}})
	touched := filepath.Join(root, "touched.red")
	s.docs[touched] = &doc{version: 1}
	flood := make([]protocol.Diagnostic, 100)
	for i := range flood {
		flood[i] = protocol.Diagnostic{Severity: protocol.DiagnosticSeverityError, Message: strings.Repeat("m", 1000)}
	}
	for i := 0; i < 2*maxDiagBytes/maxFileDiagBytes; i++ {
		s.publish(protocol.PublishDiagnosticsParams{URI: uri.File(filepath.Join(root, "f"+strconv.Itoa(i)+".red")), Diagnostics: flood})
	}
	s.publish(protocol.PublishDiagnosticsParams{URI: uri.File(touched), Diagnostics: flood})
	s.mu.Lock()
	defer s.mu.Unlock()
	sum, others := 0, 0
	for p, d := range s.diags {
		size := 0
		for _, x := range d.diags {
			size += diagSize(x)
		}
		if size != d.bytes {
			t.Errorf("%s: counted %d bytes, holds %d", p, d.bytes, size)
		}
		if d.bytes > maxFileDiagBytes {
			t.Errorf("%s: %d bytes kept (at most %d)", p, d.bytes, maxFileDiagBytes)
		}
		sum += d.bytes
		if p != touched {
			others += d.bytes
		}
	}
	if sum != s.diagBytes {
		t.Errorf("the count is %d bytes, the lists hold %d", s.diagBytes, sum)
	}
	if others > maxDiagBytes {
		t.Errorf("%d bytes kept for the files not touched (at most %d)", others, maxDiagBytes)
	}
	if len(s.diags[touched].diags) == 0 {
		t.Errorf("the touched file's diagnostics were dropped by the budget")
	}
	if len(s.diags) < 2 {
		t.Errorf("%d files kept: the flood is not kept up to the budget", len(s.diags))
	}
}
