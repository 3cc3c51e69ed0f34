package main

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
)

const (
	goodKey = "sk-good-0123456789abcdef"
	badKey  = "sk-bad-0123456789abcdef"
)

// keyEndpoint is a loopback OpenAI-compatible endpoint that lists models
// for goodKey and refuses any other key as DeepSeek does; seen counts the
// requests.
type keyEndpoint struct {
	srv  *httptest.Server
	mu   sync.Mutex
	seen int
}

func newKeyEndpoint(t *testing.T) *keyEndpoint {
	e := &keyEndpoint{}
	e.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		e.mu.Lock()
		e.seen++
		e.mu.Unlock()
		if r.Method != http.MethodGet || r.URL.Path != "/models" {
			http.NotFound(w, r)
			return
		}
		if r.Header.Get("Authorization") != "Bearer "+goodKey {
			w.WriteHeader(http.StatusUnauthorized)
			json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"message": "Authentication Fails, Your api key is invalid", "type": "authentication_error"}})
			return
		}
		json.NewEncoder(w).Encode(map[string]any{"object": "list", "data": []any{map[string]any{"id": "deepseek-v4-flash"}}})
	}))
	t.Cleanup(e.srv.Close)
	return e
}

func (e *keyEndpoint) requests() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.seen
}

// runCLI runs bin with args, stdin and an environment without keys, with
// its config folder in cfg and the keychain off.
func runCLI(t *testing.T, bin, cfg, stdin string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "DSH_API_KEY=", "DEEPSEEK_API_KEY=", "OPENAI_API_KEY=", "DSH_BASE_URL=",
		"XDG_CONFIG_HOME="+cfg, "DSH_KEYCHAIN=off", "DBUS_SESSION_BUS_ADDRESS=", "XDG_RUNTIME_DIR=")
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code = 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return out.String(), errb.String(), code
}

func TestLogin(t *testing.T) {
	bin := buildBinary(t)
	api := newKeyEndpoint(t)
	stored := func(cfg string) string { return filepath.Join(cfg, "dsh-bridge", "credentials.json") }
	t.Run("a key pasted again at the URL prompt is not printed", func(t *testing.T) {
		cfg := t.TempDir()
		out, errOut, code := runCLI(t, bin, cfg, goodKey+"\n"+goodKey+"\n", "login")
		if code == 0 {
			t.Fatalf("login took the key as its URL:\n%s%s", out, errOut)
		}
		if strings.Contains(out+errOut, goodKey) {
			t.Errorf("login printed the key:\n%s%s", out, errOut)
		}
	})
	t.Run("a good key is checked and stored with mode 0600", func(t *testing.T) {
		cfg := t.TempDir()
		before := api.requests()
		out, errOut, code := runCLI(t, bin, cfg, goodKey+"\n"+api.srv.URL+"\n", "login")
		if code != 0 {
			t.Fatalf("login exited %d\nstdout %s\nstderr %s", code, out, errOut)
		}
		if api.requests() == before {
			t.Error("login stored the key without asking the endpoint")
		}
		if !strings.Contains(out, "Signed in") || !strings.Contains(out, stored(cfg)) {
			t.Errorf("stdout %q does not say where the key went", out)
		}
		if strings.Contains(out+errOut, goodKey) {
			t.Errorf("login printed the key:\n%s%s", out, errOut)
		}
		b, err := os.ReadFile(stored(cfg))
		if err != nil {
			t.Fatal(err)
		}
		var c struct{ APIKey, BaseURL string }
		if err := json.Unmarshal(b, &c); err != nil || c.APIKey != goodKey || c.BaseURL != api.srv.URL {
			t.Errorf("stored %s (%v)", b, err)
		}
		if runtime.GOOS != "windows" {
			if info, _ := os.Stat(stored(cfg)); info.Mode().Perm() != 0o600 {
				t.Errorf("mode %o, want 600", info.Mode().Perm())
			}
		}
		if out, _, code := runCLI(t, bin, cfg, "", "login", "--status"); code != 0 || out != "The API key comes from "+stored(cfg)+".\n" {
			t.Errorf("login --status: %d %q", code, out)
		}
		out, errOut, code = runCLI(t, bin, cfg, "", "logout")
		if code != 0 || !strings.Contains(out, "Signed out") {
			t.Fatalf("logout exited %d: %s%s", code, out, errOut)
		}
		if _, err := os.Stat(stored(cfg)); !os.IsNotExist(err) {
			t.Errorf("the key is still stored after logout: %v", err)
		}
		if out, _, code := runCLI(t, bin, cfg, "", "logout"); code != 0 || !strings.Contains(out, "No key was stored") {
			t.Errorf("a second logout: %d %q", code, out)
		}
		if out, _, code := runCLI(t, bin, cfg, "", "login", "--status"); code != 1 || !strings.Contains(out, "No API key is set or stored") {
			t.Errorf("login --status after logout: %d %q", code, out)
		}
	})
	t.Run("the base URL flag skips its question", func(t *testing.T) {
		cfg := t.TempDir()
		out, errOut, code := runCLI(t, bin, cfg, goodKey+"\n", "login", "--base-url", api.srv.URL+"/")
		if code != 0 {
			t.Fatalf("login exited %d: %s%s", code, out, errOut)
		}
		if strings.Contains(out, "Base URL (") {
			t.Errorf("login asked for the base URL it was given: %q", out)
		}
	})
	for _, tc := range []struct {
		name, stdin string
		args        []string
		want        string
		asks        bool // whether the endpoint is asked
	}{
		{"a wrong key is refused with the endpoint's words", badKey + "\n" + api.srv.URL + "\n", []string{"login"}, "the endpoint refused the key (HTTP 401): Authentication Fails, Your api key is invalid", true},
		{"no key", "\n", []string{"login"}, "no key given", false},
		{"not a URL", goodKey + "\nftp://x\n", []string{"login"}, "is not an http(s) URL", false},
		{"an unreachable endpoint", goodKey + "\nhttp://127.0.0.1:1\n", []string{"login"}, "could not reach http://127.0.0.1:1", false},
		{"an argument", "", []string{"login", "extra"}, "unexpected argument", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := t.TempDir()
			before := api.requests()
			out, errOut, code := runCLI(t, bin, cfg, tc.stdin, tc.args...)
			if code == 0 {
				t.Fatalf("login succeeded: %s", out)
			}
			if !strings.Contains(errOut, tc.want) {
				t.Errorf("stderr %q, want %q", errOut, tc.want)
			}
			if asked := api.requests() > before; asked != tc.asks {
				t.Errorf("the endpoint was asked: %v, want %v", asked, tc.asks)
			}
			if strings.Contains(out+errOut, goodKey) || strings.Contains(out+errOut, badKey) {
				t.Errorf("login printed the key:\n%s%s", out, errOut)
			}
			if _, err := os.Stat(stored(cfg)); !os.IsNotExist(err) {
				t.Errorf("a refused login stored something: %v", err)
			}
		})
	}
}
