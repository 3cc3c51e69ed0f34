package highlight

import (
	"fmt"
	"hash/maphash"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// BenchmarkCache100 is what the token cache costs a read: the key's hash
// of 100 lines of net/http's server.go, then a hit (get) or a miss's put.
func BenchmarkCache100(b *testing.B) {
	src, err := os.ReadFile(filepath.Join(runtime.GOROOT(), "src", "net", "http", "server.go"))
	if err != nil {
		b.Fatal(err)
	}
	lines := strings.Split(string(src), "\n")[200:300]
	ts := goTokens(b)(lines)
	key := func(path string) string {
		var h maphash.Hash
		h.SetSeed(keySeed)
		for _, l := range lines {
			h.WriteString(l)
			h.WriteByte('\n')
		}
		return fmt.Sprintf("%s\x00%s\x00%x\x00%d", path, "go", h.Sum64(), len(lines))
	}
	b.Run("hit", func(b *testing.B) {
		c := newCache(32 << 20)
		c.put(key("/w/server.go"), ts)
		b.ReportAllocs()
		for b.Loop() {
			if _, ok := c.get(key("/w/server.go")); !ok {
				b.Fatal("miss")
			}
		}
	})
	b.Run("miss", func(b *testing.B) {
		c := newCache(32 << 20)
		b.ReportAllocs()
		n := 0
		for b.Loop() {
			n++
			k := key(fmt.Sprintf("/w/%d.go", n)) // a window not read before
			if _, ok := c.get(k); ok {
				b.Fatal("hit")
			}
			c.put(k, ts)
		}
	})
}
