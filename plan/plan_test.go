package plan_test

import (
	"strings"
	"testing"

	"github.com/dsh-bridge/dsh-bridge/plan"
)

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		name    string
		args    string
		want    string // content/status/priority joined
		wantErr string
	}{
		{"defaults priority", `{"todos":[{"content":"a","status":"pending"},{"content":"b","status":"completed","priority":"high"}]}`, "a/pending/medium b/completed/high", ""},
		{"empty list", `{"todos":[]}`, "", ""},
		{"bad status", `{"todos":[{"content":"a","status":"done"}]}`, "", "status"},
		{"bad priority", `{"todos":[{"content":"a","status":"pending","priority":"urgent"}]}`, "", "priority"},
		{"empty content", `{"todos":[{"content":" ","status":"pending"}]}`, "", "content"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			items, err := plan.Parse([]byte(tc.args))
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("got %v, want an error with %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var parts []string
			for _, it := range items {
				parts = append(parts, it.Content+"/"+it.Status+"/"+it.Priority)
			}
			if got := strings.Join(parts, " "); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestTool_Schema(t *testing.T) {
	tool, err := plan.Tool()
	if err != nil {
		t.Fatal(err)
	}
	s := tool.Parameters.String()
	for _, want := range []string{`"todos"`, `"in_progress"`, `"priority"`} {
		if !strings.Contains(s, want) {
			t.Errorf("got schema %s, want it to name %s", s, want)
		}
	}
}
