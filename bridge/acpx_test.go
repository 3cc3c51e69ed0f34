package bridge_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

const acpxVersion = "acpx@0.19.1"

// TestAcpx drives the binary with acpx, an independent headless ACP client,
// against the DeepSeek fake: a tool loop, a model picked with --model (which
// acpx sets through the model config option), and a clean exit.
func TestAcpx(t *testing.T) {
	dir := npmDir(t, "dsh-bridge-acpx-0.19.1", "acpx/package.json", acpxVersion)
	ws, _ := filepath.EvalSymlinks(t.TempDir())
	os.WriteFile(filepath.Join(ws, "a.txt"), []byte("hello\n"), 0o644)
	m := newFakeModel(t,
		fakeTurn{text: "Reading.", calls: []fakeCall{{"c1", "read", args("file_path", "a.txt")}}},
		fakeTurn{text: "It says hello."})
	cmd := exec.Command(filepath.Join(dir, "node_modules", ".bin", "acpx"),
		"--approve-all", "--format", "json", "--timeout", "60", "--model", "deepseek-v4-pro", "--agent", binary, "exec", "read a.txt")
	cmd.Dir = ws
	home := t.TempDir()
	cmd.Env = append(os.Environ(), "HOME="+home, "DSH_BASE_URL="+m.srv.URL, "DSH_API_KEY=test-key", "DSH_MODEL=",
		"DSH_STATE_DIR="+t.TempDir(), "XDG_CONFIG_HOME="+t.TempDir())
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("acpx failed (%v):\n%s\nstderr:\n%s", err, out, stderr.String())
	}
	var stop string
	var said strings.Builder // the agent's message chunks, in order
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var msg struct {
			ID     *int            `json:"id"`
			Method string          `json:"method"`
			Result json.RawMessage `json:"result"`
			Error  json.RawMessage `json:"error"`
		}
		if json.Unmarshal(sc.Bytes(), &msg) != nil {
			t.Errorf("acpx printed a line that is not JSON: %s", sc.Text())
			continue
		}
		if msg.Error != nil {
			t.Errorf("an error crossed the wire: %s", sc.Text())
		}
		var r struct{ StopReason string }
		if json.Unmarshal(msg.Result, &r) == nil && r.StopReason != "" {
			stop = r.StopReason
		}
		var u struct {
			Params struct {
				Update struct {
					SessionUpdate string
					Content       struct{ Text string }
				}
			}
		}
		if msg.Method == "session/update" && json.Unmarshal(sc.Bytes(), &u) == nil && u.Params.Update.SessionUpdate == "agent_message_chunk" {
			said.WriteString(u.Params.Update.Content.Text)
		}
	}
	if stop != "end_turn" {
		t.Errorf("stop reason %q", stop)
	}
	reqs := m.recorded()
	if len(reqs) != 2 || reqs[0].Model != "deepseek-v4-pro" || reqs[1].Model != "deepseek-v4-pro" {
		t.Errorf("requests %+v", reqs)
	}
	if !strings.Contains(said.String(), "It says hello.") || !strings.Contains(string(out), `"stopReason":"end_turn"`) {
		t.Errorf("the answer did not reach acpx (it said %q):\n%s", said.String(), out)
	}
}
