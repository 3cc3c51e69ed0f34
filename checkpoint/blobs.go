package checkpoint

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// Store is a folder of content-addressed blobs: a file's bytes under
// the hex SHA-256 of them, written once. Safe for concurrent use.
type Store struct{ dir string }

// OpenStore returns the store in dir, made (0700) when missing.
func OpenStore(dir string) (*Store, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	return &Store{dir: dir}, nil
}

// Hash is the name a content is stored under.
func Hash(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

func (s *Store) path(hash string) (string, error) {
	if len(hash) != 64 {
		return "", fmt.Errorf("checkpoint: invalid blob name %q", hash)
	}
	if _, err := hex.DecodeString(hash); err != nil {
		return "", fmt.Errorf("checkpoint: invalid blob name %q", hash)
	}
	return filepath.Join(s.dir, hash[:2], hash[2:]), nil
}

// Put stores data and returns its hash; a content stored before is not
// written again.
func (s *Store) Put(data []byte) (string, error) {
	h := Hash(data)
	p, _ := s.path(h)
	if _, err := os.Lstat(p); err == nil {
		return h, nil
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return "", err
	}
	tmp, err := os.CreateTemp(filepath.Dir(p), ".put-*")
	if err != nil {
		return "", err
	}
	_, werr := tmp.Write(data)
	cerr := tmp.Close()
	if err := errors.Join(werr, cerr); err != nil {
		os.Remove(tmp.Name())
		return "", err
	}
	if err := os.Rename(tmp.Name(), p); err != nil {
		os.Remove(tmp.Name())
		return "", err
	}
	return h, nil
}

// Get returns a stored content, checked against its hash.
func (s *Store) Get(hash string) ([]byte, error) {
	p, err := s.path(hash)
	if err != nil {
		return nil, err
	}
	b, err := os.ReadFile(p)
	if err != nil {
		return nil, err
	}
	if Hash(b) != hash {
		return nil, fmt.Errorf("checkpoint: blob %s is damaged", hash)
	}
	return b, nil
}

// Image is what a path held at one moment: nothing (Absent), a folder
// (Dir: its files are paths of their own), an unknown content (Unknown:
// a command changed it and no pre-image was taken), or a content by its
// hash with its permission bits.
type Image struct {
	Absent  bool   `json:"absent,omitempty"`
	Dir     bool   `json:"dir,omitempty"`
	Unknown bool   `json:"unknown,omitempty"`
	Hash    string `json:"hash,omitempty"`
	Mode    uint32 `json:"mode,omitempty"`
}

// Same reports whether two images hold the same content (modes aside).
func (a Image) Same(b Image) bool {
	if a.Unknown || b.Unknown {
		return false
	}
	return a.Absent == b.Absent && a.Dir == b.Dir && a.Hash == b.Hash
}

// Change is one path a turn changed: what it held before the turn's
// first change and after the turn.
type Change struct {
	Path   string `json:"path"`
	Before Image  `json:"before"`
	After  Image  `json:"after"`
}

// MaxImageBytes is the largest file a checkpoint reads: a larger one is
// Unknown (a rewind reports it and leaves it).
const MaxImageBytes = 256 << 20

// current is what path holds now: its hash and mode, or Absent (also
// when a folder on its way is a file now), or Dir; with keep, the
// content is stored too (a pre-image). A path that is not a regular
// file or a folder (a device, a FIFO a command put there: opened
// without waiting, then judged) or is larger than MaxImageBytes is
// Unknown.
func current(s *Store, path string, keep bool) (Image, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
		return Image{Absent: true}, nil
	}
	if err != nil {
		return Image{}, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return Image{}, err
	}
	if fi.IsDir() {
		return Image{Dir: true}, nil
	}
	if !fi.Mode().IsRegular() || fi.Size() > MaxImageBytes {
		return Image{Unknown: true}, nil
	}
	b, err := io.ReadAll(io.LimitReader(f, MaxImageBytes+1))
	if err != nil {
		return Image{}, err
	}
	if len(b) > MaxImageBytes {
		return Image{Unknown: true}, nil
	}
	img := Image{Hash: Hash(b), Mode: uint32(fi.Mode().Perm())}
	if keep {
		if _, err := s.Put(b); err != nil {
			return Image{}, err
		}
	}
	return img, nil
}
