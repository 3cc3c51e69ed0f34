package checkpoint

import (
	"os"
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
	skip  []string // resolved folders never walked nor recorded

	mu  sync.Mutex
	cur *turn // nil outside a turn
	// pending counts the snapshots and the ends still running (under mu);
	// Begin, Wait and Close wait for idle. Not a WaitGroup: a fork's or a
	// rewind's Wait may meet a turn's end starting another.
	pending int
	idle    *sync.Cond
	// last is, per path a turn changed, what the turn left and the
	// file's fingerprint then (under mu): a later turn's command that
	// changes the path, still so fingerprinted when that turn began,
	// had that content as its pre-image.
	last map[string]link
}

// link is what a turn left at a path: its image (the content stored)
// and the fingerprint the file had with it.
type link struct {
	fp  entry
	img Image
}

// turn is what a recorder knows of one turn.
type turn struct {
	changes  []Change
	index    map[string]int
	written  map[string]bool // the paths BeforeWrite saw
	base     Snapshot        // set before ready closes
	indexes  gitIndexes      // git's index of each repository root as the turn began; set before ready closes
	ready    chan struct{}   // closed once base is taken
	commands bool            // a command started in this turn
	err      error           // the first failure to take a pre-image
}

// NewRecorder records into store the changes under roots, except in
// or under skip (the session's state folder: its logs) and the store's
// own folder, which are never walked nor recorded.
func NewRecorder(store *Store, roots []string, skip ...string) *Recorder {
	r := &Recorder{store: store, last: map[string]link{}}
	r.idle = sync.NewCond(&r.mu)
	for _, root := range roots {
		r.roots = append(r.roots, resolve(root))
	}
	for _, s := range append(skip, store.dir) {
		r.skip = append(r.skip, resolve(s))
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
	t := &turn{index: map[string]int{}, written: map[string]bool{}, ready: make(chan struct{})}
	r.mu.Lock()
	r.cur = t
	r.pending++
	r.mu.Unlock()
	go func() { // owned by the recorder: pending counts it
		defer r.settle()
		snap := Walk(r.roots, r.skip...)
		indexes := readIndexes(r.roots)
		r.mu.Lock()
		t.base, t.indexes = snap, indexes
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
	if within(path, r.skip) {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	t := r.cur
	if t == nil {
		return
	}
	t.written[path] = true
	if _, seen := t.index[path]; seen {
		return
	}
	if t.commands {
		if changed, existed := changedSince(t.base, path); changed {
			before, ok := r.linked(t, path)
			if !ok {
				before = Image{Absent: !existed, Unknown: existed}
			}
			t.add(Change{Path: path, Before: before})
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
		d := Compare(t.base, Walk(r.roots, r.skip...))
		for _, p := range d.Created {
			if _, seen := t.index[p]; !seen {
				t.add(Change{Path: p, Before: Image{Absent: true}})
			}
		}
		var changed, unlinked []string
		known := map[string]Image{}
		r.mu.Lock()
		for _, p := range append(d.Modified, d.Removed...) {
			if _, seen := t.index[p]; !seen {
				changed = append(changed, p)
				if img, ok := r.linked(t, p); ok {
					known[p] = img
				} else {
					unlinked = append(unlinked, p)
				}
			}
		}
		r.mu.Unlock()
		for p, img := range gitPreimages(r.store, r.roots, t.base, t.indexes, unlinked) {
			known[p] = img
		}
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

// linked is the pre-image of path at the turn's start when the last
// turn that changed it left it so and it was still so fingerprinted
// when this turn began (under mu).
func (r *Recorder) linked(t *turn, path string) (Image, bool) {
	l, ok := r.last[path]
	if !ok {
		return Image{}, false
	}
	if b, ok := t.base[path]; !ok || b != l.fp {
		return Image{}, false
	}
	return l.img, true
}

// results are a finished turn's changes with their results. The result
// of a path the turn wrote, or whose content before it the turn has,
// when a regular file, is stored and remembered with its fingerprint,
// for the next turns' links; a file a command made is not (a build's
// output would fill the store).
func (r *Recorder) results(t *turn) []Change {
	var out []Change
	for _, c := range t.changes {
		after, fp, linkable := r.result(c.Path, t.written[c.Path] || c.Before.Hash != "")
		c.After = after
		r.mu.Lock()
		if linkable {
			r.last[c.Path] = link{fp: fp, img: after}
		} else {
			delete(r.last, c.Path)
		}
		r.mu.Unlock()
		if c.Before.Same(after) && c.Before.Mode == after.Mode {
			continue
		}
		out = append(out, c)
	}
	return out
}

// result is what path holds at a turn's end, with keep stored, and its
// fingerprint; linkable when it was kept and is a regular file whose
// fingerprint did not move while it was read.
func (r *Recorder) result(path string, keep bool) (img Image, fp entry, linkable bool) {
	if !keep {
		if img, err := current(nil, path, false); err == nil {
			return img, entry{}, false
		}
		return Image{Unknown: true}, entry{}, false
	}
	before, err1 := os.Lstat(path)
	img, err := current(r.store, path, true)
	if err != nil {
		if img, err = current(nil, path, false); err != nil {
			return Image{Unknown: true}, entry{}, false
		}
		return img, entry{}, false
	}
	after, err2 := os.Lstat(path)
	if err1 != nil || err2 != nil || !before.Mode().IsRegular() || img.Hash == "" {
		return img, entry{}, false
	}
	fp = fingerprint(after)
	return img, fp, fingerprint(before) == fp
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
