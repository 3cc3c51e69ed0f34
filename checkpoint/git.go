package checkpoint

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/dsh-bridge/dsh-bridge/internal/safepath"
	"github.com/dsh-bridge/dsh-bridge/internal/secrets"
)

// maxGitPreimages bounds how many of a turn's command-changed files are
// looked up in git's index.
const maxGitPreimages = 256

// gitPreimages finds, for files a command changed or removed under a
// root that is a git repository, the pre-image git's index holds: when
// the walk before the command saw the file with the size and
// modification time the index recorded for it (git's own test of an
// unchanged file), its bytes were the index's blob, which is stored. A
// blob of another size (a line-ending conversion or a filter between
// the index and the file) is not taken. git runs with no filters,
// hooks or fsmonitor (nothing of the repository's configuration that
// runs programs), outside the folders commands may write.
func gitPreimages(st *Store, roots []string, base Snapshot, paths []string) map[string]Image {
	out := map[string]Image{}
	git, err := safepath.LookPath("git")
	if err != nil {
		return out
	}
	byRoot := map[string][]string{}
	for _, p := range paths {
		for _, root := range roots {
			if rel, err := filepath.Rel(root, p); err == nil && !strings.HasPrefix(rel, "..") {
				if fi, err := os.Stat(filepath.Join(root, ".git")); err == nil && fi.IsDir() && len(byRoot[root]) < maxGitPreimages {
					byRoot[root] = append(byRoot[root], filepath.ToSlash(rel))
				}
				break
			}
		}
	}
	for root, rels := range byRoot {
		for rel, e := range indexEntries(git, root, rels) {
			p := filepath.Join(root, filepath.FromSlash(rel))
			b, ok := base[p]
			if !ok || !b.mode.IsRegular() || b.size != e.size || b.mtime != e.mtime {
				continue
			}
			blob, err := gitOutput(git, root, "cat-file", "blob", e.sha)
			if err != nil || int64(len(blob)) != b.size {
				continue
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
}

// indexEntries reads the stage-0 index entries of rels (slash paths
// relative to root) with `git ls-files -s --debug -z`.
func indexEntries(git, root string, rels []string) map[string]indexEntry {
	out := map[string]indexEntry{}
	data, err := gitOutput(git, root, append([]string{"ls-files", "-s", "--debug", "-z", "--"}, rels...)...)
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
// the repository's, and returns its standard output.
func gitOutput(git, root string, args ...string) ([]byte, error) {
	cmd := exec.Command(git, append([]string{"-c", "core.fsmonitor=false", "-c", "core.hooksPath=" + os.DevNull, "-C", root}, args...)...)
	cmd.Env = append(secrets.Env(os.Environ(), nil), "GIT_OPTIONAL_LOCKS=0", "GIT_LITERAL_PATHSPECS=1", "GIT_TERMINAL_PROMPT=0")
	return cmd.Output()
}
