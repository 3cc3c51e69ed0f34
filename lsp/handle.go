package lsp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/sourcegraph/jsonrpc2"
	"go.lsp.dev/protocol"
)

// Bounds of what a server's requests and notifications make the client
// keep or write.
const (
	// maxProgress caps the $/progress tokens kept open; a begin past it
	// is not counted (the server is then taken as busy until it ends
	// some).
	maxProgress = 100
	// maxToken caps a progress token's JSON; a longer one is not kept.
	maxToken = 256
	// maxConfigItems caps the items of a workspace/configuration
	// request: one past it is refused (gopls asks for one a folder).
	maxConfigItems = 100
)

// errTooManyItems refuses a workspace/configuration request past
// maxConfigItems.
var errTooManyItems = fmt.Errorf("dsh-bridge answers at most %d configuration items", maxConfigItems)

// handle answers the server's requests and takes its notifications. It
// runs on the connection's reader; its answers are written through the
// server's boundedWriter, so a server that stops reading them stalls the
// reader no longer than writeBound.
func (s *server) handle(_ context.Context, _ *jsonrpc2.Conn, req *jsonrpc2.Request) (any, error) {
	var params json.RawMessage
	if req.Params != nil {
		params = *req.Params
	}
	s.m.opts.Log.Debug("language server says", "server", s.cfg.Language, "method", req.Method, "params", truncate(params))
	switch req.Method {
	case protocol.MethodTextDocumentPublishDiagnostics:
		var p protocol.PublishDiagnosticsParams
		if err := json.Unmarshal(params, &p); err == nil {
			s.publish(p)
		}
		return nil, nil
	case protocol.MethodProgress:
		var p struct {
			Token json.RawMessage `json:"token"`
			Value struct {
				Kind string `json:"kind"`
			} `json:"value"`
		}
		if err := json.Unmarshal(params, &p); err == nil {
			s.progressEvent(string(p.Token), p.Value.Kind)
		}
		return nil, nil
	case protocol.MethodWorkspaceConfiguration:
		sections, err := configSections(params)
		if err != nil {
			return nil, &jsonrpc2.Error{Code: jsonrpc2.CodeInvalidParams, Message: err.Error()}
		}
		out := make([]any, len(sections)) // null: the server's defaults
		for i, sec := range sections {
			if c, ok := s.cfg.Configuration[sec]; ok {
				out[i] = c
			}
		}
		return out, nil
	case protocol.MethodWorkspaceWorkspaceFolders:
		return s.initializeParams().WorkspaceFolders, nil
	case protocol.MethodWorkDoneProgressCreate, protocol.MethodClientRegisterCapability,
		protocol.MethodClientUnregisterCapability, protocol.MethodWindowShowMessageRequest:
		return nil, nil
	}
	if req.Notif {
		return nil, nil // window/logMessage, telemetry/event, …: nothing to do
	}
	return nil, &jsonrpc2.Error{Code: jsonrpc2.CodeMethodNotFound, Message: "dsh-bridge does not answer " + req.Method}
}

// progressEvent keeps a $/progress token open from its begin to its end:
// at most maxProgress tokens, each at most maxToken bytes of JSON.
func (s *server) progressEvent(token, kind string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch kind {
	case "begin":
		if len(token) <= maxToken && len(s.progress) < maxProgress {
			s.progress[token] = true
		}
	case "end":
		delete(s.progress, token)
		if !s.loaded && len(s.progress) == 0 {
			s.loaded, s.loadedAt = true, time.Now()
		}
	}
	s.eventLocked()
}

// configSections is the sections a workspace/configuration request's
// params name, read item by item: a request of more than maxConfigItems
// is refused (errTooManyItems) before it costs more than those.
func configSections(params json.RawMessage) ([]string, error) {
	bad := errors.New("workspace/configuration params are not {\"items\": [...]}")
	dec := json.NewDecoder(bytes.NewReader(params))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, bad
	}
	var out []string
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			return nil, bad
		}
		if k != "items" {
			var skip json.RawMessage
			if dec.Decode(&skip) != nil {
				return nil, bad
			}
			continue
		}
		if t, err := dec.Token(); err != nil || t != json.Delim('[') {
			return nil, bad
		}
		for dec.More() {
			if len(out) == maxConfigItems {
				return nil, errTooManyItems
			}
			var it struct {
				Section string `json:"section"`
			}
			if dec.Decode(&it) != nil {
				return nil, bad
			}
			out = append(out, it.Section)
		}
		if _, err := dec.Token(); err != nil {
			return nil, bad
		}
	}
	return out, nil
}
