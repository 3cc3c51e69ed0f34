package credentials

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/dsh-bridge/dsh-bridge/internal/folders"
	"github.com/dsh-bridge/dsh-bridge/internal/secrets"
)

// Names are the variables that hold a key, first one set wins; each wins
// over a stored key.
var Names = secrets.Names

// FileName is the fallback file's name inside the config folder.
const FileName = "credentials.json"

// ErrNone means no key is set or stored anywhere.
var ErrNone = errors.New("no API key is set or stored")

// Credential is what login stores: a key and, optionally, the base URL
// of the OpenAI-compatible endpoint it belongs to ("" is the default).
type Credential struct {
	APIKey  string `json:"apiKey"`
	BaseURL string `json:"baseUrl,omitempty"`
}

// Kind is where a key was found.
type Kind string

const (
	Environment Kind = "environment"
	InKeychain  Kind = "keychain"
	InFile      Kind = "file"
)

// Source says where a key was found: the variable's name, the keychain,
// or the file's path. It never holds the key.
type Source struct {
	Kind   Kind
	Detail string // the variable's name or the file's path; "" for the keychain
}

func (s Source) String() string {
	switch s.Kind {
	case Environment:
		return "the environment variable " + s.Detail
	case InKeychain:
		return "the " + keychainName(s.Detail)
	case InFile:
		return s.Detail
	}
	return "nowhere"
}

// keychainName is the platform's name for its keychain (detail is the
// GOOS the Source was made on).
func keychainName(goos string) string {
	switch goos {
	case "darwin":
		return "macOS Keychain"
	case "windows":
		return "Windows Credential Manager"
	}
	return "Secret Service keyring"
}

// Keychain is the OS keychain as this package uses it: one secret per
// service and user. Get returns ErrNotFound when there is none.
type Keychain interface {
	Get(service, user string) (string, error)
	Set(service, user, secret string) error
	Delete(service, user string) error
}

// ErrNotFound is what a Keychain returns for a missing secret.
var ErrNotFound = errors.New("no such secret in the keychain")

// The keychain entry's service and user.
const (
	service = "dsh-bridge"
	user    = "api-key"
)

// Store is where login keeps a key: Keychain when non-nil, else (and
// whenever the keychain fails) the file in Dir.
type Store struct {
	Keychain Keychain
	GOOS     string // names the keychain in a Source
	Dir      string // the config folder; "" when there is none
}

// Local is this machine's store: the OS keychain when [Reachable] says
// one can answer and DSH_KEYCHAIN is not "off", and the config folder.
func Local() *Store {
	e := folders.Local()
	s := &Store{GOOS: e.GOOS, Dir: folders.Config(e)}
	if e.Getenv("DSH_KEYCHAIN") != "off" && Reachable(e.GOOS, e.Getenv, fileExists) {
		s.Keychain = osKeychain{}
	}
	return s
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// Reachable reports whether the keychain of goos can be asked without
// starting anything: always on macOS and Windows; elsewhere only with a
// D-Bus session bus (DBUS_SESSION_BUS_ADDRESS set, or a socket at
// $XDG_RUNTIME_DIR/bus), since the Secret Service lives on it and a
// missing bus would otherwise be looked for by launching one.
func Reachable(goos string, getenv func(string) string, exists func(string) bool) bool {
	switch goos {
	case "darwin", "windows":
		return true
	case "linux", "freebsd", "openbsd", "netbsd", "dragonfly":
		if getenv("DBUS_SESSION_BUS_ADDRESS") != "" {
			return true
		}
		d := getenv("XDG_RUNTIME_DIR")
		return d != "" && exists(filepath.Join(d, "bus"))
	}
	return false
}

// Path is the fallback file's path ("" without a config folder).
func (s *Store) Path() string {
	if s.Dir == "" {
		return ""
	}
	return filepath.Join(s.Dir, FileName)
}

// Resolve finds the key: the first of Names getenv returns, else what
// the store holds. It returns ErrNone when there is none.
func (s *Store) Resolve(getenv func(string) string) (Credential, Source, error) {
	for _, n := range Names {
		if v := getenv(n); v != "" {
			return Credential{APIKey: v}, Source{Kind: Environment, Detail: n}, nil
		}
	}
	return s.Load()
}

// Load returns the stored credential: the keychain's, else the file's.
// A keychain that fails is passed over; ErrNone when neither holds one.
func (s *Store) Load() (Credential, Source, error) {
	if s.Keychain != nil {
		if v, err := s.Keychain.Get(service, user); err == nil {
			if c, ok := parse([]byte(v)); ok {
				return c, Source{Kind: InKeychain, Detail: s.GOOS}, nil
			}
		}
	}
	p := s.Path()
	if p == "" {
		return Credential{}, Source{}, ErrNone
	}
	b, err := os.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		return Credential{}, Source{}, ErrNone
	}
	if err != nil {
		return Credential{}, Source{}, fmt.Errorf("reading the stored key: %w", err)
	}
	c, ok := parse(b)
	if !ok {
		return Credential{}, Source{}, fmt.Errorf("%s holds no API key: run dsh-bridge login again", p)
	}
	return c, Source{Kind: InFile, Detail: p}, nil
}

func parse(b []byte) (Credential, bool) {
	var c Credential
	if json.Unmarshal(b, &c) != nil || strings.TrimSpace(c.APIKey) == "" {
		return Credential{}, false
	}
	return c, true
}

// Save stores c: in the keychain when there is one and it takes it (then
// a file left by an earlier login is removed), else in the file. It
// returns where c went; keychainErr is why the keychain was passed over
// (nil when it took c or there is none).
func (s *Store) Save(c Credential) (where Source, keychainErr error, err error) {
	if strings.TrimSpace(c.APIKey) == "" {
		return Source{}, nil, errors.New("the API key is empty")
	}
	b, err := json.Marshal(c)
	if err != nil {
		return Source{}, nil, err
	}
	if s.Keychain != nil {
		keychainErr = s.Keychain.Set(service, user, string(b))
		if keychainErr == nil {
			if p := s.Path(); p != "" {
				if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
					return Source{}, nil, fmt.Errorf("removing the older %s: %w", p, err)
				}
			}
			return Source{Kind: InKeychain, Detail: s.GOOS}, nil, nil
		}
	}
	p := s.Path()
	if p == "" {
		return Source{}, keychainErr, errors.New("no config folder to store the key in (no home folder)")
	}
	if err := writePrivate(p, append(b, '\n')); err != nil {
		return Source{}, keychainErr, err
	}
	return Source{Kind: InFile, Detail: p}, keychainErr, nil
}

// writePrivate writes b to p with mode 0600 (its folder 0700), through a
// temporary file renamed over p: a reader sees the old text or the new.
func writePrivate(p string, b []byte) error {
	dir := filepath.Dir(p)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("creating %s: %w", dir, err)
	}
	f, err := os.CreateTemp(dir, ".credentials-*")
	if err != nil {
		return fmt.Errorf("storing the key: %w", err)
	}
	tmp := f.Name()
	err = f.Chmod(0o600)
	if err == nil {
		_, err = f.Write(b)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, p)
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("storing the key in %s: %w", p, err)
	}
	return nil
}

// Delete removes the stored key from the keychain and the file, and
// returns where one was removed from (none: nothing was stored).
func (s *Store) Delete() ([]Source, error) {
	var gone []Source
	var errs []error
	if s.Keychain != nil {
		switch err := s.Keychain.Delete(service, user); {
		case err == nil:
			gone = append(gone, Source{Kind: InKeychain, Detail: s.GOOS})
		case !errors.Is(err, ErrNotFound):
			errs = append(errs, fmt.Errorf("removing the key from the %s: %w", keychainName(s.GOOS), err))
		}
	}
	if p := s.Path(); p != "" {
		switch err := os.Remove(p); {
		case err == nil:
			gone = append(gone, Source{Kind: InFile, Detail: p})
		case !errors.Is(err, fs.ErrNotExist):
			errs = append(errs, fmt.Errorf("removing %s: %w", p, err))
		}
	}
	return gone, errors.Join(errs...)
}
