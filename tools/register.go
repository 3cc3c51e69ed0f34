package tools

import (
	"context"
	"net/http"
	"net/url"
	"strings"

	"github.com/dsh-bridge/dsh-bridge/jsonv"
	"github.com/dsh-bridge/dsh-bridge/workspace"

	"github.com/dsh-bridge/dsh-bridge/registry"
)

// Options configure the built-in tools of one session.
type Options struct {
	Workspace *workspace.Workspace
	Host      Host         // nil: LocalHost
	Jobs      *Jobs        // nil: a new job table on Host (closed by the disposer)
	HTTP      *http.Client // nil: web_fetch's default client
	// NativeSearch forces the native grep/glob walker even when rg is on
	// PATH.
	NativeSearch bool
	// Rules, when set, are enforced where files are opened, listed and
	// written: the Host refuses denied paths and searches never return
	// them, whatever root the call names.
	Rules PathRules
	// FetchHop, when set, judges every redirect web_fetch would follow; an
	// error stops the fetch with that message.
	FetchHop func(ctx context.Context, from, to *url.URL) error
	// FetchDial, when set, judges every address web_fetch connects to, as
	// it connects (after the name is resolved); an error stops the fetch
	// with that message.
	FetchDial DialFunc
	// Markdown converts fetched HTML pages; nil: [HelperMarkdown].
	Markdown MarkdownFunc
	// Checker, when set, is the session's language servers: edit and
	// write add the file's errors to their results, read starts the
	// file's server, bash re-sends the files it may have changed, and the
	// diagnostics and lsp tools are registered.
	Checker Checker
}

// Names lists the built-in tools in registration order.
var Names = []string{"read", "write", "edit", "bash", "job_output", "job_list", "job_kill", "grep", "glob", "web_fetch"}

// Register registers the built-in tools into scope (nil: global) and
// returns a disposer that unregisters them and, when Register created the
// job table, kills the session's background jobs.
func Register(reg *registry.Registry, scope *registry.Scope, opt Options) (dispose func(), err error) {
	h := opt.Host
	if h == nil {
		h = LocalHost{}
	}
	if opt.Rules != nil {
		h = guardedHost{Host: h, ws: opt.Workspace, rules: opt.Rules}
	}
	jobs, ownJobs := opt.Jobs, false
	if jobs == nil {
		jobs, ownJobs = NewJobs(h), true
	}
	client := opt.HTTP
	if client == nil {
		client = newFetchClient(opt.FetchHop, opt.FetchDial)
	}
	w := opt.Workspace
	spills := &spillSet{} // deleted with the tools
	var defs []*registry.Tool
	for _, mk := range []func() (*registry.Tool, error){
		func() (*registry.Tool, error) { return newRead(h, w, opt.Checker) },
		func() (*registry.Tool, error) { return newWrite(h, w, opt.Checker) },
		func() (*registry.Tool, error) { return newEdit(h, w, opt.Checker) },
		func() (*registry.Tool, error) { return newBash(h, w, jobs, spills, opt.Checker) },
	} {
		t, err := mk()
		if err != nil {
			return nil, err
		}
		defs = append(defs, t)
	}
	jt, err := newJobTools(jobs)
	if err != nil {
		return nil, err
	}
	st, err := newSearchTools(w, opt.NativeSearch, opt.Rules, newSearchJail(opt.Host, opt.Rules))
	if err != nil {
		return nil, err
	}
	markdown := opt.Markdown
	if markdown == nil {
		markdown = HelperMarkdown
	}
	wf, err := newWebFetch(client, markdown)
	if err != nil {
		return nil, err
	}
	defs = append(append(append(defs, jt...), st...), wf)
	if opt.Checker != nil {
		lt, err := newLSPTools(h, w, opt.Checker)
		if err != nil {
			return nil, err
		}
		defs = append(defs, lt...)
	}

	classify(defs)
	var disposers []func()
	undo := func() {
		for i := len(disposers) - 1; i >= 0; i-- {
			disposers[i]()
		}
		if ownJobs {
			jobs.Close()
		}
		if opt.HTTP == nil {
			client.CloseIdleConnections() // a session's own transport keeps none past it
		}
		spills.removeAll()
	}
	for _, t := range defs {
		d, err := reg.Register(t, scope)
		if err != nil {
			undo()
			return nil, err
		}
		disposers = append(disposers, d)
	}
	return undo, nil
}

// classify sets each built-in's effect and permission key.
func classify(defs []*registry.Tool) {
	for _, t := range defs {
		switch t.Name {
		case "read", "grep", "glob", "job_output", "job_list", "diagnostics", "lsp":
			t.Effect = registry.EffectRead
		case "write", "edit":
			t.Effect = registry.EffectEdit
		case "bash", "job_kill":
			t.Effect = registry.EffectExecute
			if t.Name == "bash" {
				t.Subject = func(args jsonv.Value) string {
					c, _ := args.Get("command")
					return strings.TrimSpace(c.Str())
				}
			}
		case "web_fetch":
			t.Effect = registry.EffectFetch
			host := func(args jsonv.Value) string {
				u, _ := args.Get("url")
				if parsed, err := url.Parse(strings.TrimSpace(u.Str())); err == nil {
					return strings.ToLower(parsed.Hostname())
				}
				return ""
			}
			t.Subject = func(args jsonv.Value) string { return "domain:" + host(args) }
		}
	}
}
