package permission

import (
	"context"
	"testing"
)

// BenchmarkDecideCommand is the matcher's cost for a 200-character
// pipeline: parse, normalize, judge against allow and deny rules.
func BenchmarkDecideCommand(b *testing.B) {
	p, reg, scope, _ := testPolicy(b, ModeDefault, []string{"bash(git status:*)", "bash(go test:*)", "bash(grep:*)"}, nil, []string{"bash(rm:*)", "bash(curl:*)"})
	bash := reg.Get("bash", scope)
	cmd := `FOO=1 go test ./... 2>&1 | grep -v '^ok' | sort | uniq -c > out.txt && git status --short && bash -c 'git status' ; timeout 30 go test -run TestX ./pkg/... | tail -n 20 || echo "failed: $(date)"`
	args := bashArgs(cmd)
	b.ReportMetric(float64(len(cmd)), "chars")
	b.ResetTimer()
	for b.Loop() {
		p.Decide(context.Background(), bash, args)
	}
}
