package credentials

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// fakeKeychain is a keychain in memory; fail, when set, is what every
// call returns.
type fakeKeychain struct {
	items map[string]string
	fail  error
}

func (f *fakeKeychain) Get(service, user string) (string, error) {
	if f.fail != nil {
		return "", f.fail
	}
	v, ok := f.items[service+"/"+user]
	if !ok {
		return "", ErrNotFound
	}
	return v, nil
}

func (f *fakeKeychain) Set(service, user, secret string) error {
	if f.fail != nil {
		return f.fail
	}
	if f.items == nil {
		f.items = map[string]string{}
	}
	f.items[service+"/"+user] = secret
	return nil
}

func (f *fakeKeychain) Delete(service, user string) error {
	if f.fail != nil {
		return f.fail
	}
	if _, ok := f.items[service+"/"+user]; !ok {
		return ErrNotFound
	}
	delete(f.items, service+"/"+user)
	return nil
}

func noEnv(string) string { return "" }

func TestReachable(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	bus := func(p string) bool { return p == filepath.Join("/run/user/1", "bus") }
	none := func(string) bool { return false }
	for _, tc := range []struct {
		name   string
		goos   string
		env    map[string]string
		exists func(string) bool
		want   bool
	}{
		{"macOS always", "darwin", nil, none, true},
		{"Windows always", "windows", nil, none, true},
		{"Linux without a bus", "linux", nil, none, false},
		{"Linux with the bus variable", "linux", map[string]string{"DBUS_SESSION_BUS_ADDRESS": "unix:path=/x"}, none, true},
		{"Linux with the runtime folder's socket", "linux", map[string]string{"XDG_RUNTIME_DIR": "/run/user/1"}, bus, true},
		{"Linux with a runtime folder but no socket", "linux", map[string]string{"XDG_RUNTIME_DIR": "/run/user/2"}, bus, false},
		{"FreeBSD with a bus", "freebsd", map[string]string{"DBUS_SESSION_BUS_ADDRESS": "unix:path=/x"}, none, true},
		{"Plan 9 never", "plan9", map[string]string{"DBUS_SESSION_BUS_ADDRESS": "unix:path=/x"}, none, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Reachable(tc.goos, env(tc.env), tc.exists); got != tc.want {
				t.Errorf("Reachable = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestResolve_EnvironmentWins(t *testing.T) {
	kc := &fakeKeychain{}
	s := &Store{Keychain: kc, GOOS: "darwin", Dir: t.TempDir()}
	if _, _, err := s.Save(Credential{APIKey: "sk-stored-0123456789"}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name     string
		env      map[string]string
		wantKey  string
		wantFrom string
	}{
		{"DSH_API_KEY first", map[string]string{"DSH_API_KEY": "a-key-1", "DEEPSEEK_API_KEY": "b", "OPENAI_API_KEY": "c"}, "a-key-1", "the environment variable DSH_API_KEY"},
		{"then DEEPSEEK_API_KEY", map[string]string{"DEEPSEEK_API_KEY": "b-key", "OPENAI_API_KEY": "c"}, "b-key", "the environment variable DEEPSEEK_API_KEY"},
		{"then OPENAI_API_KEY", map[string]string{"OPENAI_API_KEY": "c-key"}, "c-key", "the environment variable OPENAI_API_KEY"},
		{"then the store", nil, "sk-stored-0123456789", "the macOS Keychain"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, src, err := s.Resolve(func(k string) string { return tc.env[k] })
			if err != nil {
				t.Fatal(err)
			}
			if c.APIKey != tc.wantKey || src.String() != tc.wantFrom {
				t.Errorf("Resolve = %q from %q, want %q from %q", c.APIKey, src, tc.wantKey, tc.wantFrom)
			}
		})
	}
}

func TestStore_File(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "config", "dsh-bridge")
	s := &Store{Dir: dir}
	if _, _, err := s.Load(); !errors.Is(err, ErrNone) {
		t.Fatalf("Load of an empty store: %v, want ErrNone", err)
	}
	where, kerr, err := s.Save(Credential{APIKey: "sk-file-0123456789", BaseURL: "http://127.0.0.1:9/v1"})
	if err != nil || kerr != nil {
		t.Fatal(err, kerr)
	}
	p := filepath.Join(dir, FileName)
	if where != (Source{Kind: InFile, Detail: p}) {
		t.Errorf("Save went to %v, want the file %s", where, p)
	}
	if runtime.GOOS != "windows" {
		for path, want := range map[string]os.FileMode{p: 0o600, dir: 0o700} {
			info, err := os.Stat(path)
			if err != nil {
				t.Fatal(err)
			}
			if got := info.Mode().Perm(); got != want {
				t.Errorf("%s has mode %o, want %o", path, got, want)
			}
		}
	}
	c, src, err := s.Load()
	if err != nil || c.APIKey != "sk-file-0123456789" || c.BaseURL != "http://127.0.0.1:9/v1" || src.Kind != InFile {
		t.Fatalf("Load = %+v from %v, %v", c, src, err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("the folder holds %d entries, want only %s (no temporary file left)", len(entries), FileName)
	}
	gone, err := s.Delete()
	if err != nil || len(gone) != 1 || gone[0].Kind != InFile {
		t.Fatalf("Delete = %v, %v", gone, err)
	}
	if _, err := os.Stat(p); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the file is still there after Delete: %v", err)
	}
	if gone, err := s.Delete(); err != nil || len(gone) != 0 {
		t.Errorf("a second Delete = %v, %v; want nothing removed, no error", gone, err)
	}
}

func TestStore_Keychain(t *testing.T) {
	t.Run("a working keychain takes the key and the file goes", func(t *testing.T) {
		dir := t.TempDir()
		old := &Store{Dir: dir}
		if _, _, err := old.Save(Credential{APIKey: "sk-older-file-key"}); err != nil {
			t.Fatal(err)
		}
		kc := &fakeKeychain{}
		s := &Store{Keychain: kc, GOOS: "windows", Dir: dir}
		where, kerr, err := s.Save(Credential{APIKey: "sk-keychain-0123456789"})
		if err != nil || kerr != nil || where.Kind != InKeychain {
			t.Fatalf("Save = %v, %v, %v", where, kerr, err)
		}
		if where.String() != "the Windows Credential Manager" {
			t.Errorf("Source = %q", where)
		}
		if _, err := os.Stat(filepath.Join(dir, FileName)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("the older file was kept: %v", err)
		}
		for _, v := range kc.items {
			if !strings.Contains(v, "sk-keychain-0123456789") {
				t.Errorf("the keychain holds %q", v)
			}
		}
		c, src, err := s.Load()
		if err != nil || c.APIKey != "sk-keychain-0123456789" || src.Kind != InKeychain {
			t.Fatalf("Load = %+v, %v, %v", c, src, err)
		}
		gone, err := s.Delete()
		if err != nil || len(gone) != 1 || gone[0].Kind != InKeychain || len(kc.items) != 0 {
			t.Fatalf("Delete = %v, %v; keychain %v", gone, err, kc.items)
		}
	})
	t.Run("a failing keychain falls back to the file", func(t *testing.T) {
		dir := t.TempDir()
		broken := errors.New("org.freedesktop.DBus.Error.ServiceUnknown")
		s := &Store{Keychain: &fakeKeychain{fail: broken}, GOOS: "linux", Dir: dir}
		where, kerr, err := s.Save(Credential{APIKey: "sk-fallback-0123456789"})
		if err != nil || !errors.Is(kerr, broken) || where.Kind != InFile {
			t.Fatalf("Save = %v, %v, %v; want the file, with the keychain's error", where, kerr, err)
		}
		c, src, err := s.Load()
		if err != nil || c.APIKey != "sk-fallback-0123456789" || src.Kind != InFile {
			t.Fatalf("Load = %+v, %v, %v", c, src, err)
		}
		gone, err := s.Delete()
		if len(gone) != 1 || gone[0].Kind != InFile || !errors.Is(err, broken) {
			t.Errorf("Delete = %v, %v; want the file removed and the keychain's error", gone, err)
		}
	})
	t.Run("a keychain without the key yields the file's", func(t *testing.T) {
		dir := t.TempDir()
		if _, _, err := (&Store{Dir: dir}).Save(Credential{APIKey: "sk-file-only-012345"}); err != nil {
			t.Fatal(err)
		}
		s := &Store{Keychain: &fakeKeychain{}, Dir: dir}
		c, src, err := s.Load()
		if err != nil || c.APIKey != "sk-file-only-012345" || src.Kind != InFile {
			t.Fatalf("Load = %+v, %v, %v", c, src, err)
		}
	})
}

func TestStore_Refusals(t *testing.T) {
	for _, tc := range []struct {
		name string
		file string
		want string
	}{
		{"no key in the file", `{"baseUrl":"http://x"}`, "holds no API key"},
		{"not JSON", `sk-plain`, "holds no API key"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, FileName), []byte(tc.file), 0o600); err != nil {
				t.Fatal(err)
			}
			_, _, err := (&Store{Dir: dir}).Load()
			if err == nil || errors.Is(err, ErrNone) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Load: %v, want %q", err, tc.want)
			}
		})
	}
	t.Run("an empty key is not stored", func(t *testing.T) {
		if _, _, err := (&Store{Dir: t.TempDir()}).Save(Credential{APIKey: "  "}); err == nil {
			t.Error("Save of an empty key succeeded")
		}
	})
	t.Run("no config folder", func(t *testing.T) {
		if _, _, err := (&Store{}).Save(Credential{APIKey: "sk-0123456789"}); err == nil {
			t.Error("Save without a folder succeeded")
		}
		if _, _, err := (&Store{}).Resolve(noEnv); !errors.Is(err, ErrNone) {
			t.Errorf("Resolve without a folder: %v, want ErrNone", err)
		}
	})
}
