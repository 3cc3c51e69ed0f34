package checkpoint

import (
	"bufio"
	"bytes"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/dsh-bridge/dsh-bridge/internal/safepath"
	"github.com/dsh-bridge/dsh-bridge/internal/secrets"
)

// maxGitPreimages bounds how many of a turn's command-changed files are
// looked up in git's index.
const maxGitPreimages = 256

// maxIndexBytes bounds the git index a turn copies when it begins
// (a 100k-file repository's is about 10 MB): a larger one gives no
// pre-images.
const maxIndexBytes = 64 << 20

// gitIndexes are, by repository root, the bytes of git's index as a
// turn began, before any of its commands ran.
type gitIndexes map[string][]byte

// readIndexes copies the index of each root that is a git repository
// (a .git folder holding a regular index file).
func readIndexes(roots []string) gitIndexes {
	out := gitIndexes{}
	for _, root := range roots {
		if fi, err := os.Stat(filepath.Join(root, ".git")); err != nil || !fi.IsDir() {
			continue
		}
		if b, err := readRegular(filepath.Join(root, ".git", "index"), maxIndexBytes); err == nil {
			out[root] = b
		}
	}
	return out
}

// readRegular reads path when it is a regular file of at most max bytes
// (opened without waiting, so a FIFO is judged, not read).
func readRegular(path string, max int64) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() || fi.Size() > max {
		return nil, fmt.Errorf("checkpoint: %s is not a regular file of at most %d bytes", path, max)
	}
	b, err := io.ReadAll(io.LimitReader(f, max+1))
	if err == nil && int64(len(b)) > max {
		err = errors.New("checkpoint: " + path + " grew too large")
	}
	return b, err
}

// gitBlobID is git's name of a blob holding data: the SHA-1 (40 hex
// digits) or SHA-256 (64) of "blob <size>\x00" and the bytes; "" for
// another length.
func gitBlobID(data []byte, hexLen int) string {
	head := fmt.Sprintf("blob %d\x00", len(data))
	switch hexLen {
	case 40:
		h := sha1.New()
		h.Write([]byte(head))
		h.Write(data)
		return hex.EncodeToString(h.Sum(nil))
	case 64:
		h := sha256.New()
		h.Write([]byte(head))
		h.Write(data)
		return hex.EncodeToString(h.Sum(nil))
	}
	return ""
}

// gitPreimages finds, for files a command changed or removed under a
// root that is a git repository, the pre-image git's index held when
// the turn began (indexes: copied before any command ran; the index a
// command leaves is never read): when the walk before the command saw
// the file with the size, modification time and change time (seconds)
// the index recorded for it (git's own test of an unchanged file), its
// bytes were the index's blob, which is read from the object store,
// checked against its name and stored. A blob of another size (a
// line-ending conversion or a filter between the index and the file)
// or another hash is not taken. git runs with no filters, hooks or
// fsmonitor (nothing of the repository's configuration that runs
// programs), outside the folders commands may write.
func gitPreimages(st *Store, roots []string, base Snapshot, indexes gitIndexes, paths []string) map[string]Image {
	out := map[string]Image{}
	git, err := safepath.LookPath("git")
	if err != nil {
		return out
	}
	byRoot := map[string][]string{}
	for _, p := range paths {
		for _, root := range roots {
			if rel, err := filepath.Rel(root, p); err == nil && !strings.HasPrefix(rel, "..") {
				if indexes[root] != nil && len(byRoot[root]) < maxGitPreimages {
					byRoot[root] = append(byRoot[root], filepath.ToSlash(rel))
				}
				break
			}
		}
	}
	for root, rels := range byRoot {
		for rel, e := range savedIndexEntries(st, git, root, indexes[root], rels) {
			p := filepath.Join(root, filepath.FromSlash(rel))
			b, ok := base[p]
			if !ok || !b.mode.IsRegular() || b.size != e.size || b.mtime != e.mtime {
				continue
			}
			if b.ctime != 0 && e.ctime != 0 && b.ctime/1e9 != e.ctime {
				continue
			}
			blob, err := gitOutput(git, root, nil, "cat-file", "blob", e.sha)
			if err != nil || int64(len(blob)) != b.size {
				continue
			}
			if gitBlobID(blob, len(e.sha)) != e.sha {
				continue // the object store no longer holds what the index named
			}
			if h, err := st.Put(blob); err == nil {
				out[p] = Image{Hash: h, Mode: uint32(b.mode.Perm())}
			}
		}
	}
	return out
}

// indexEntry is what git's index records of a file.
type indexEntry struct {
	sha   string
	size  int64
	mtime int64 // nanoseconds
	ctime int64 // seconds; 0: not recorded
}

// savedIndexEntries are the stage-0 entries of rels in index (an
// index's bytes), written for git to a temporary file in the store's
// folder and removed after.
func savedIndexEntries(st *Store, git, root string, index []byte, rels []string) map[string]indexEntry {
	f, err := os.CreateTemp(st.dir, ".index-*")
	if err != nil {
		return nil
	}
	defer os.Remove(f.Name())
	_, werr := f.Write(index)
	if err := errors.Join(werr, f.Close()); err != nil {
		return nil
	}
	return indexEntries(git, root, f.Name(), rels)
}

// indexEntries reads the stage-0 entries of rels (slash paths relative
// to root) in the index file indexFile with `git ls-files -s --debug
// -z`.
func indexEntries(git, root, indexFile string, rels []string) map[string]indexEntry {
	out := map[string]indexEntry{}
	data, err := gitOutput(git, root, []string{"GIT_INDEX_FILE=" + indexFile}, append([]string{"ls-files", "-s", "--debug", "-z", "--"}, rels...)...)
	if err != nil {
		return out
	}
	r := bufio.NewReader(bytes.NewReader(data))
	for {
		head, err := r.ReadString(0)
		if err != nil {
			return out
		}
		// "<mode> <sha> <stage>\t<path>\0", then lines "  key: value".
		meta, path, ok := strings.Cut(strings.TrimSuffix(head, "\x00"), "\t")
		fields := strings.Fields(meta)
		e := indexEntry{}
		for {
			peek, err := r.Peek(2)
			if err != nil || string(peek) != "  " {
				break
			}
			line, _ := r.ReadString('\n')
			key, val, _ := strings.Cut(strings.TrimSpace(line), ": ")
			switch key {
			case "ctime":
				s, _, _ := strings.Cut(val, ":")
				e.ctime, _ = strconv.ParseInt(s, 10, 64)
			case "mtime":
				s, ns, _ := strings.Cut(val, ":")
				sec, err1 := strconv.ParseInt(s, 10, 64)
				nsec, err2 := strconv.ParseInt(ns, 10, 64)
				if err1 == nil && err2 == nil {
					e.mtime = sec*1e9 + nsec
				}
			case "size":
				v, _, _ := strings.Cut(val, "\t")
				e.size, _ = strconv.ParseInt(v, 10, 64)
			}
		}
		if ok && len(fields) == 3 && fields[2] == "0" {
			e.sha = fields[1]
			out[path] = e
		}
	}
}

// gitOutput runs git in root with a configuration that runs nothing of
// the repository's, and env added to its environment, and returns its
// standard output.
func gitOutput(git, root string, env []string, args ...string) ([]byte, error) {
	cmd := exec.Command(git, append([]string{"-c", "core.fsmonitor=false", "-c", "core.hooksPath=" + os.DevNull, "-C", root}, args...)...)
	cmd.Env = append(append(secrets.Env(os.Environ(), nil), "GIT_OPTIONAL_LOCKS=0", "GIT_LITERAL_PATHSPECS=1", "GIT_TERMINAL_PROMPT=0"), env...)
	return cmd.Output()
}
