package checkpoint

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// Step is one path a rewind would restore: what it holds now and the
// pre-image it goes back to.
type Step struct {
	Path   string
	Now    Image
	Target Image
}

// Rewind is what undoing some turns takes.
type Rewind struct {
	// Restore are the paths that hold what the undone turns left: they
	// go back, newest change first.
	Restore []Step
	// Conflicts are paths changed by someone else since: their content
	// is neither the newest change's result nor the target, or another
	// change came between two of the turns. They are restored only when
	// the person takes the checkpoint.
	Conflicts []Step
	// Unknown are paths whose pre-image was never taken (a command
	// changed a file that existed): never written.
	Unknown []string
}

// Plan works out how to undo turns (their changes, oldest turn first)
// given now, what a path holds at present.
func Plan(turns [][]Change, now func(path string) Image) Rewind {
	chains := map[string][]Change{}
	var order []string // by newest change, newest first
	for _, t := range turns {
		for _, c := range t {
			chains[c.Path] = append(chains[c.Path], c)
			order = append(order, c.Path)
		}
	}
	var rw Rewind
	done := map[string]bool{}
	for i := len(order) - 1; i >= 0; i-- {
		p := order[i]
		if done[p] {
			continue
		}
		done[p] = true
		chain := chains[p]
		target, last := chain[0].Before, chain[len(chain)-1].After
		if target.Unknown {
			rw.Unknown = append(rw.Unknown, p)
			continue
		}
		cur := now(p)
		if cur.Same(target) && (target.Absent || cur.Mode == target.Mode) {
			continue
		}
		step := Step{Path: p, Now: cur, Target: target}
		if cur.Same(last) && unbroken(chain) {
			rw.Restore = append(rw.Restore, step)
		} else {
			rw.Conflicts = append(rw.Conflicts, step)
		}
	}
	return rw
}

// unbroken reports whether each change of a chain started from what the
// one before it left. A missing link (a command's change with no
// pre-image: Unknown before) breaks the chain: what the path held
// between the two turns is not known, so someone else's change there
// cannot be ruled out.
func unbroken(chain []Change) bool {
	for k := 1; k < len(chain); k++ {
		if b := chain[k].Before; !b.Same(chain[k-1].After) {
			return false
		}
	}
	return true
}

// Now is what path holds at present (hash and mode; Absent when
// missing; Unknown when it cannot be read or is not a regular file).
func Now(path string) Image {
	img, err := current(nil, path, false)
	if err != nil {
		return Image{Unknown: true}
	}
	return img
}

// ErrRefused means a path was not written because check refused it.
var ErrRefused = errors.New("checkpoint: path refused")

// Apply restores steps in order from store: a file that was absent is
// removed, any other gets the recorded bytes and mode. check judges each
// path first (nil: all). It returns the paths restored and, per path
// that failed, why; it goes on after a failure.
func Apply(store *Store, steps []Step, check func(path string) error) (restored []string, failed map[string]error) {
	failed = map[string]error{}
	for _, s := range steps {
		if err := restore(store, s, check); err != nil {
			failed[s.Path] = err
			continue
		}
		restored = append(restored, s.Path)
	}
	return restored, failed
}

func restore(store *Store, s Step, check func(string) error) error {
	if check != nil {
		if err := check(s.Path); err != nil {
			return fmt.Errorf("%w: %v", ErrRefused, err)
		}
	}
	fi, err := os.Lstat(s.Path)
	isDir := err == nil && fi.IsDir()
	switch {
	case s.Target.Absent && isDir:
		return removeEmptyTree(s.Path)
	case s.Target.Absent:
		if err := os.Remove(s.Path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		return nil
	case s.Target.Dir:
		if isDir {
			return nil
		}
		if err := os.Remove(s.Path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		return os.MkdirAll(s.Path, 0o755)
	}
	data, err := store.Get(s.Target.Hash)
	if err != nil {
		return err
	}
	if isDir {
		// A folder the turn made where the file was: its files were
		// undone first (newest change first), so it goes if nothing but
		// empty folders is left in it.
		if err := removeEmptyTree(s.Path); err != nil {
			return err
		}
	}
	dir := filepath.Dir(s.Path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(s.Path)+".dsh-rewind-*")
	if err != nil {
		return err
	}
	_, werr := tmp.Write(data)
	cerr := tmp.Close()
	merr := os.Chmod(tmp.Name(), fs.FileMode(s.Target.Mode).Perm())
	if err := errors.Join(werr, cerr, merr); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	if err := os.Rename(tmp.Name(), s.Path); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return nil
}

// ErrNotEmpty means a folder stands where a rewind restores a file, and
// holds files: they are someone's, so the folder stays.
var ErrNotEmpty = errors.New("checkpoint: a folder with files in it is in the way")

// removeEmptyTree removes dir and the folders in it when none holds
// anything but folders; else it removes nothing and fails.
func removeEmptyTree(dir string) error {
	var dirs []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return fmt.Errorf("%w: %s", ErrNotEmpty, p)
		}
		dirs = append(dirs, p)
		return nil
	})
	if err != nil {
		return err
	}
	for i := len(dirs) - 1; i >= 0; i-- { // the deepest first
		if err := os.Remove(dirs[i]); err != nil {
			return err
		}
	}
	return nil
}
