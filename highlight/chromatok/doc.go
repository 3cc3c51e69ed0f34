// Package chromatok is the dsh-highlight helper's side of package
// highlight: it tokenizes text with chroma and serves the helper protocol.
// Only cmd/dsh-highlight (and tests) may import it; importing it costs any
// binary chroma's start-up, which is why the bridge never does.
package chromatok
