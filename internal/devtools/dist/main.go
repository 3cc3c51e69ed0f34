package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
)

func main() {
	out := flag.String("out", "dist/release", "folder of the archives, SHA256SUMS and agent.json")
	registry := flag.String("registry", "dist/registry/agent.json", "where the registry entry is written too (\"\": not)")
	list := flag.String("targets", "", "comma-separated goos/goarch (default: the six registry targets)")
	vsix := flag.Bool("vsix", false, "also package editors/vscode once per target (needs its npm packages)")
	flag.Parse()
	targets, err := parseTargets(*list)
	if err != nil {
		fmt.Fprintln(os.Stderr, "dist:", err)
		os.Exit(2)
	}
	// What it built is listed on stderr with the rest: stdout stays free.
	os.Exit(run(".", *out, *registry, targets, *vsix, os.Stderr, os.Stderr))
}

// failure is a target that did not build, or whose binary is wrong.
type failure struct {
	t   target
	why string
}

// run builds and packs targets from the module at root into out; it
// returns 0 when every target was packed.
func run(root, out, registry string, targets []target, vsix bool, stdout, stderr io.Writer) int {
	work, err := os.MkdirTemp("", "dsh-bridge-dist-")
	if err != nil {
		fmt.Fprintln(stderr, "dist:", err)
		return 1
	}
	defer os.RemoveAll(work)
	version, err := hostVersion(root, work)
	if err != nil {
		fmt.Fprintln(stderr, "dist: the version (the host's dsh-bridge --version):", err)
		return 1
	}
	docs, err := readDocs(root)
	if err != nil {
		fmt.Fprintln(stderr, "dist:", err)
		return 1
	}
	if bytes.Contains(docs[1].data, []byte(licensePlaceholder)) {
		fmt.Fprintln(stderr, "dist: warning: LICENSE is a placeholder; the owner's choice of licence replaces it (and agent.json's license)")
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		fmt.Fprintln(stderr, "dist:", err)
		return 1
	}
	var failed []failure
	var sums []string
	for _, t := range targets {
		dir := filepath.Join(work, t.goos+"-"+t.goarch)
		bins, err := buildTarget(root, dir, t)
		if err != nil {
			failed = append(failed, failure{t, err.Error()})
			fmt.Fprintf(stderr, "dist: %s does not build:\n%s\n", t, indent(err.Error()))
			continue
		}
		name := t.archiveName(version)
		b, err := pack(t, bins, docs)
		if err == nil {
			err = os.WriteFile(filepath.Join(out, name), b, 0o644)
		}
		if err != nil {
			failed = append(failed, failure{t, err.Error()})
			fmt.Fprintf(stderr, "dist: %s: %v\n", t, err)
			continue
		}
		h := sha256.Sum256(b)
		sums = append(sums, hex.EncodeToString(h[:])+"  "+name+"\n")
		fmt.Fprintf(stdout, "%s  %s (%d bytes)\n", t, name, len(b))
		if vsix {
			if err := packageVSIX(root, out, dir, t, version); err != nil {
				failed = append(failed, failure{t, "vsix: " + err.Error()})
				fmt.Fprintf(stderr, "dist: %s: the VSIX: %v\n", t, err)
			}
		}
	}
	slices.Sort(sums)
	if err := os.WriteFile(filepath.Join(out, "SHA256SUMS"), []byte(strings.Join(sums, "")), 0o644); err != nil {
		fmt.Fprintln(stderr, "dist:", err)
		return 1
	}
	entry, err := agentJSON(version)
	if err == nil {
		err = os.WriteFile(filepath.Join(out, "agent.json"), entry, 0o644)
	}
	if err == nil && registry != "" {
		err = os.WriteFile(registry, entry, 0o644)
	}
	if err != nil {
		fmt.Fprintln(stderr, "dist: agent.json:", err)
		return 1
	}
	if len(failed) > 0 {
		var names []string
		for _, f := range failed {
			names = append(names, f.t.String())
		}
		fmt.Fprintf(stderr, "dist: missing %d of %d targets: %s. The registry entry names all six; it is complete only once each archive exists.\n",
			len(failed), len(targets), strings.Join(names, ", "))
		return 1
	}
	return 0
}

func indent(s string) string {
	return "    " + strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n    ")
}

// buildEnv is the environment of a reproducible static build for t.
func buildEnv(t target) []string {
	env := []string{"CGO_ENABLED=0", "GOOS=" + t.goos, "GOARCH=" + t.goarch, "GOFLAGS=", "GOAMD64=v1", "GOARM64=v8.0"}
	return append(os.Environ(), env...)
}

// buildTarget builds the four programs for t into dir and checks each
// one's file header; it returns their bytes in programs' order.
func buildTarget(root, dir string, t target) ([][]byte, error) {
	args := []string{"build", "-trimpath", "-buildvcs=false", "-o", dir + string(filepath.Separator)}
	for _, p := range programs {
		args = append(args, "./cmd/"+p)
	}
	cmd := exec.Command("go", args...)
	cmd.Dir = root
	cmd.Env = buildEnv(t)
	if out, err := cmd.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("%v\n%s", err, out)
	}
	var bins [][]byte
	for _, p := range programs {
		b, err := os.ReadFile(filepath.Join(dir, t.exe(p)))
		if err != nil {
			return nil, err
		}
		if err := checkHeader(t, b); err != nil {
			return nil, fmt.Errorf("%s: %w", t.exe(p), err)
		}
		bins = append(bins, b)
	}
	return bins, nil
}

// pack is t's archive: the programs, then README.md and LICENSE, all at
// the top level (agent.json's cmd is ./dsh-bridge).
func pack(t target, bins [][]byte, docs []entry) ([]byte, error) {
	var es []entry
	for i, p := range programs {
		es = append(es, entry{name: t.exe(p), mode: 0o755, data: bins[i]})
	}
	es = append(es, docs...)
	if t.goos == "windows" {
		return zipped(es)
	}
	return tarGz(es)
}

// licensePlaceholder marks the LICENSE file that awaits the owner's
// choice.
const licensePlaceholder = "PLACEHOLDER: no licence has been chosen"

// readDocs are the archives' README.md and LICENSE.
func readDocs(root string) ([]entry, error) {
	var es []entry
	for _, name := range []string{"README.md", "LICENSE"} {
		b, err := os.ReadFile(filepath.Join(root, name))
		if err != nil {
			return nil, err
		}
		es = append(es, entry{name: name, mode: 0o644, data: b})
	}
	return es, nil
}

// hostVersion builds the bridge for this machine and returns the version
// its --version prints: the one source of the release's version.
func hostVersion(root, work string) (string, error) {
	host := target{runtime.GOOS, runtime.GOARCH}
	bin := filepath.Join(work, "host", host.exe("dsh-bridge"))
	cmd := exec.Command("go", "build", "-trimpath", "-buildvcs=false", "-o", bin, "./cmd/dsh-bridge")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("%v\n%s", err, out)
	}
	out, err := exec.Command(bin, "--version").Output()
	if err != nil {
		return "", err
	}
	return parseVersion(string(out))
}

// parseVersion reads "dsh-bridge VERSION (ACP v1)" off --version's first
// line.
func parseVersion(s string) (string, error) {
	line, _, _ := strings.Cut(s, "\n")
	f := strings.Fields(line)
	if len(f) < 2 || f[0] != "dsh-bridge" || f[1] == "" || f[1][0] < '0' || f[1][0] > '9' {
		return "", errors.New("unexpected --version output: " + line)
	}
	return f[1], nil
}

// packageVSIX packages editors/vscode for t with t's binaries from dir
// (their bin/ folder is replaced) into out.
func packageVSIX(root, out, dir string, t target, version string) error {
	ext := filepath.Join(root, "editors", "vscode")
	bin := filepath.Join(ext, "bin")
	if err := os.RemoveAll(bin); err != nil {
		return err
	}
	if err := os.MkdirAll(bin, 0o755); err != nil {
		return err
	}
	for _, p := range programs {
		b, err := os.ReadFile(filepath.Join(dir, t.exe(p)))
		if err == nil {
			err = os.WriteFile(filepath.Join(bin, t.exe(p)), b, 0o755)
		}
		if err != nil {
			return err
		}
	}
	abs, err := filepath.Abs(filepath.Join(out, "dsh-bridge-"+version+"-"+t.vscode()+".vsix"))
	if err != nil {
		return err
	}
	cmd := exec.Command("npx", "vsce", "package", "--no-dependencies", "--target", t.vscode(), "--out", abs)
	cmd.Dir = ext
	if o, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("%v\n%s", err, o)
	}
	return nil
}
