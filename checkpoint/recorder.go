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

	mu  sync.Mutex
	cur *turn // nil outside a turn
	// pending counts the snapshots and the ends still running (under mu);
	// Begin, Wait and Close wait for idle. Not a WaitGroup: a fork's or a
	// rewind's Wait may meet a turn's end starting another.
	pending int
	idle    *sync.Cond
}

// turn is what a recorder knows of one turn.
type turn struct {
	changes  []Change
	index    map[string]int
	base     Snapshot      // set before ready closes
	ready    chan struct{} // closed once base is taken
	commands bool          // a command started in this turn
	err      error         // the first failure to take a pre-image
}

// NewRecorder records into store the changes under roots.
func NewRecorder(store *Store, roots []string) *Recorder {
	r := &Recorder{store: store}
	r.idle = sync.NewCond(&r.mu)
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

// Begin starts a turn, once the last turn's end is done, and the
// snapshot its commands are compared with (taken in the background;
// BeforeCommand waits for it).
func (r *Recorder) Begin() {
	if r == nil {
		return
	}
	r.Wait()
	t := &turn{index: map[string]int{}, ready: make(chan struct{})}
	r.mu.Lock()
	r.cur = t
	r.pending++
	r.mu.Unlock()
	go func() { // owned by the recorder: pending counts it
		defer r.settle()
		snap := Walk(r.roots)
		r.mu.Lock()
		t.base = snap
		r.mu.Unlock()
		close(t.ready)
	}()
}

func (t *turn) add(c Change) {
	t.index[c.Path] = len(t.changes)
	t.changes = append(t.changes, c)
}

// BeforeWrite records path's pre-image, the first time the turn touches
// it: its content and mode, or that it is absent. After a command has
// run, a path the command changed is recorded as the command left our
// knowledge of it: absent if it was absent before the turn, else
// Unknown.
func (r *Recorder) BeforeWrite(path string) {
	if r == nil {
		return
	}
	path = resolve(path)
	r.mu.Lock()
	defer r.mu.Unlock()
	t := r.cur
	if t == nil {
		return
	}
	if _, seen := t.index[path]; seen {
		return
	}
	if t.commands {
		if changed, existed := changedSince(t.base, path); changed {
			t.add(Change{Path: path, Before: Image{Absent: !existed, Unknown: existed}})
			return
		}
	}
	img, err := current(r.store, path, true)
	if err != nil {
		if t.err == nil {
			t.err = err
		}
		img = Image{Unknown: true}
	}
	t.add(Change{Path: path, Before: img})
}

// BeforeCommand waits for the turn's snapshot, so that what the command
// does is seen against the files as they were before it.
func (r *Recorder) BeforeCommand() {
	if r == nil {
		return
	}
	r.mu.Lock()
	t := r.cur
	r.mu.Unlock()
	if t == nil {
		return
	}
	<-t.ready
	r.mu.Lock()
	t.commands = true
	r.mu.Unlock()
}

// End ends the turn; done gets its changes: the paths written and, when
// a command ran, those a second walk finds changed, each with the
// turn's result (a path left as it was is dropped), and the first
// pre-image that could not be taken (its change is Unknown). Without a
// command done is called before End returns; with one, from the
// recorder's goroutine once the walk is done, so that the turn's answer
// does not wait for it (Begin, Wait and Close do).
func (r *Recorder) End(done func([]Change, error)) {
	if r == nil {
		return
	}
	r.mu.Lock()
	t := r.cur
	r.cur = nil
	r.mu.Unlock()
	if t == nil {
		return
	}
	if !t.commands {
		done(r.results(t), t.err)
		return
	}
	r.mu.Lock()
	r.pending++
	r.mu.Unlock()
	go func() { // owned by the recorder: pending counts it
		defer r.settle()
		d := Compare(t.base, Walk(r.roots))
		for _, p := range d.Created {
			if _, seen := t.index[p]; !seen {
				t.add(Change{Path: p, Before: Image{Absent: true}})
			}
		}
		var changed []string
		for _, p := range append(d.Modified, d.Removed...) {
			if _, seen := t.index[p]; !seen {
				changed = append(changed, p)
			}
		}
		known := gitPreimages(r.store, r.roots, t.base, changed)
		for _, p := range changed {
			before, ok := known[p]
			if !ok {
				before = Image{Unknown: true}
			}
			t.add(Change{Path: p, Before: before})
		}
		done(r.results(t), t.err)
	}()
}

// results are a finished turn's changes with their results.
func (r *Recorder) results(t *turn) []Change {
	var out []Change
	for _, c := range t.changes {
		after, err := current(r.store, c.Path, false)
		if err != nil {
			after = Image{Unknown: true}
		}
		c.After = after
		if c.Before.Same(after) && c.Before.Mode == after.Mode {
			continue
		}
		out = append(out, c)
	}
	return out
}

// Wait waits for the ends still running: once it returns, every ended
// turn's done has been called.
func (r *Recorder) Wait() {
	if r == nil {
		return
	}
	r.mu.Lock()
	for r.pending > 0 {
		r.idle.Wait()
	}
	r.mu.Unlock()
}

// settle ends one of the pending goroutines.
func (r *Recorder) settle() {
	r.mu.Lock()
	r.pending--
	if r.pending == 0 {
		r.idle.Broadcast()
	}
	r.mu.Unlock()
}

// Close waits for whatever the recorder still runs.
func (r *Recorder) Close() { r.Wait() }
