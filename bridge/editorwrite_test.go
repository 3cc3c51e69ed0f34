package bridge_test

import (
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// TestBridge_EditorWriteNamesTheJudgedFile: a write through the editor
// (fs/write_text_file) names the file that was judged, every symlink
// resolved, never the path as the model wrote it, so a link flipped
// after the judgement cannot send the write elsewhere.
func TestBridge_EditorWriteNamesTheJudgedFile(t *testing.T) {
	deny := `{"permissions":{"deny":["edit(secrets/**)","write(secrets/**)"]}}`
	caps := map[string]any{"fs": map[string]any{"writeTextFile": true}}
	write := fakeTurn{calls: []fakeCall{{"w", "write", args("file_path", "link.txt", "content", "new\n")}}}
	h := setupWorkspace(t, deny, `{}`, caps, write, fakeTurn{text: "ok"})
	h.file("inside.txt", "old\n")
	h.file("secrets/key.txt", "key\n")
	if err := os.Symlink(filepath.Join(h.dir, "inside.txt"), filepath.Join(h.dir, "link.txt")); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var asked []string
	h.onWrite = func(path, content string) *rpcError {
		mu.Lock()
		asked = append(asked, path)
		mu.Unlock()
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			return &rpcError{Code: -32603, Message: err.Error()}
		}
		return nil
	}
	h.call("session/set_mode", map[string]any{"sessionId": h.session, "modeId": "bypassPermissions"})
	h.prompt(h.session, "x")
	mu.Lock()
	defer mu.Unlock()
	if want := filepath.Join(h.dir, "inside.txt"); len(asked) != 1 || asked[0] != want {
		t.Fatalf("the editor was asked to write %q, want [%s] (%q)", asked, want, h.toolMessages(1)["w"])
	}
	if h.content("inside.txt") != "new\n" || h.content("secrets/key.txt") != "key\n" {
		t.Errorf("inside.txt %q, secrets/key.txt %q", h.content("inside.txt"), h.content("secrets/key.txt"))
	}
}
