package highlight

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// BenchmarkGoLines100 makes the tokens of 100 lines of net/http's
// server.go, as the bridge does for a read of them.
func BenchmarkGoLines100(b *testing.B) {
	src, err := os.ReadFile(filepath.Join(runtime.GOROOT(), "src", "net", "http", "server.go"))
	if err != nil {
		b.Fatal(err)
	}
	lines := strings.Split(string(src), "\n")[200:300]
	b.ReportAllocs()
	for b.Loop() {
		if _, ok := GoLines(lines); !ok {
			b.Fatal("refused")
		}
	}
}
