package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

func TestRun(t *testing.T) {
	for _, tc := range []struct {
		name       string
		args       []string
		wantCode   int
		wantStdout string
		wantStderr string
	}{
		{"tools prints the built-in schemas", []string{"tools"}, 0, "", ""},
		{"unknown subcommand", []string{"bogus"}, 2, "", `unknown subcommand "bogus"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			if code := run(tc.args, strings.NewReader(""), &out, &errOut); code != tc.wantCode {
				t.Errorf("exit code %d, want %d", code, tc.wantCode)
			}
			if tc.wantCode == 0 {
				var schemas []struct {
					Name       string          `json:"name"`
					Parameters json.RawMessage `json:"parameters"`
				}
				if err := json.Unmarshal(out.Bytes(), &schemas); err != nil || len(schemas) != 10 || schemas[0].Name != "read" {
					t.Errorf("schemas: %v %s", err, out.String())
				}
			} else if out.String() != tc.wantStdout {
				t.Errorf("stdout %q, want %q", out.String(), tc.wantStdout)
			}
			if !strings.Contains(errOut.String(), tc.wantStderr) {
				t.Errorf("stderr %q, want it to contain %q", errOut.String(), tc.wantStderr)
			}
			if tc.wantCode == 0 && !json.Valid(out.Bytes()) {
				t.Errorf("stdout is not JSON")
			}
		})
	}
}
