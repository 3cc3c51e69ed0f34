package checkpoint

import (
	"path/filepath"
	"sync"
)

// Recorder records the file changes of one session's turns, one turn at
// a time. Its methods are safe for concurrent use; outside a turn
// (before Begin, after End) they record nothing, and a nil Recorder
// never records.
type Recorder struct {
	store *Store
	roots []string

	mu       sync.Mutex
	on       bool
	changes  []Change
	index    map[string]int
	base     Snapshot
	ready    chan struct{} // closed once base is taken
	commands bool          // a command started in this turn
	err      error         // the first failure to take a pre-image
}

// NewRecorder records into store the changes under roots.
func NewRecorder(store *Store, roots []string) *Recorder {
	r := &Recorder{store: store}
	for _, root := range roots {
		r.roots = append(r.roots, resolve(root))
	}
	return r
}

// resolve is path with its symbolic links resolved, as far as it exists
// (a new file's folder), so that a path is recorded once however it was
// spelled, and the file a link leads to is the one recorded.
func resolve(path string) string {
	if real, err := filepath.EvalSymlinks(path); err == nil {
		return real
	}
	if dir, err := filepath.EvalSymlinks(filepath.Dir(path)); err == nil {
		return filepath.Join(dir, filepath.Base(path))
	}
	return filepath.Clean(path)
}

// Begin starts a turn, and the snapshot its commands are compared with
// (taken in the background; BeforeCommand and End wait for it).
func (r *Recorder) Begin() {
	if r == nil {
		return
	}
	ready := make(chan struct{})
	r.mu.Lock()
	r.on, r.changes, r.index, r.commands, r.err = true, nil, map[string]int{}, false, nil
	r.base, r.ready = nil, ready
	r.mu.Unlock()
	go func() { // owned by the turn: End waits for it
		snap := Walk(r.roots)
		r.mu.Lock()
		r.base = snap
		r.mu.Unlock()
		close(ready)
	}()
}

func (r *Recorder) add(c Change) {
	r.index[c.Path] = len(r.changes)
	r.changes = append(r.changes, c)
}

// BeforeWrite records path's pre-image, the first time the turn touches
// it: its content and mode, or that it is absent. After a command has
// run, a path the command changed is recorded as the command left its
// knowledge of it: absent if it was absent before the turn, else
// Unknown.
func (r *Recorder) BeforeWrite(path string) {
	if r == nil {
		return
	}
	path = resolve(path)
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.on {
		return
	}
	if _, seen := r.index[path]; seen {
		return
	}
	if r.commands {
		if changed, existed := changedSince(r.base, path); changed {
			r.add(Change{Path: path, Before: Image{Absent: !existed, Unknown: existed}})
			return
		}
	}
	img, _, err := current(r.store, path, true)
	if err != nil {
		if r.err == nil {
			r.err = err
		}
		img = Image{Unknown: true}
	}
	r.add(Change{Path: path, Before: img})
}

// BeforeCommand waits for the turn's snapshot, so that what the command
// does is seen against the files as they were before it.
func (r *Recorder) BeforeCommand() {
	if r == nil {
		return
	}
	r.mu.Lock()
	on, ready := r.on, r.ready
	r.mu.Unlock()
	if !on {
		return
	}
	<-ready
	r.mu.Lock()
	r.commands = r.on
	r.mu.Unlock()
}

// End ends the turn and returns its changes: the paths written and, when
// a command ran, those the walk finds changed, each with the turn's
// result; a path left as it was is dropped. err is the first pre-image
// that could not be taken (its change is Unknown).
func (r *Recorder) End() ([]Change, error) {
	if r == nil {
		return nil, nil
	}
	r.mu.Lock()
	on, ready := r.on, r.ready
	r.mu.Unlock()
	if !on {
		return nil, nil
	}
	<-ready
	r.mu.Lock()
	defer r.mu.Unlock()
	r.on = false
	if r.commands {
		d := Compare(r.base, Walk(r.roots))
		for _, p := range d.Created {
			if _, seen := r.index[p]; !seen {
				r.add(Change{Path: p, Before: Image{Absent: true}})
			}
		}
		for _, p := range append(d.Modified, d.Removed...) {
			if _, seen := r.index[p]; !seen {
				r.add(Change{Path: p, Before: Image{Unknown: true}})
			}
		}
	}
	out := r.changes[:0]
	for _, c := range r.changes {
		after, _, err := current(r.store, c.Path, false)
		if err != nil {
			after = Image{Unknown: true}
		}
		c.After = after
		if c.Before.Same(after) && c.Before.Mode == after.Mode {
			continue
		}
		out = append(out, c)
	}
	r.changes, r.index = nil, nil
	return out, r.err
}

// Close waits for a snapshot still being taken.
func (r *Recorder) Close() {
	if r == nil {
		return
	}
	r.mu.Lock()
	ready := r.ready
	r.mu.Unlock()
	if ready != nil {
		<-ready
	}
}
