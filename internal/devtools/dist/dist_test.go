package main

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

const root = "../../.."

func TestParseVersion(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"dsh-bridge 0.1.0-dev (ACP v1)\n", "0.1.0-dev"},
		{"dsh-bridge 1.2.3 (ACP v1)\nbuilt with cgo, ...\n", "1.2.3"},
		{"something else\n", ""},
		{"dsh-bridge dev\n", ""},
	} {
		t.Run(tc.in, func(t *testing.T) {
			got, err := parseVersion(tc.in)
			if got != tc.want || (err != nil) != (tc.want == "") {
				t.Errorf("parseVersion = %q, %v; want %q", got, err, tc.want)
			}
		})
	}
}

// TestArchives_Reproducible packs the same files twice, in both formats,
// and checks that the bytes are the same and that the entries keep their
// order, modes and fixed time.
func TestArchives_Reproducible(t *testing.T) {
	es := []entry{{"dsh-bridge", 0o755, []byte("\x7fELF program")}, {"README.md", 0o644, []byte("# readme\n")}}
	for _, tc := range []struct {
		name string
		pack func([]entry) ([]byte, error)
		list func(t *testing.T, b []byte) []entry
	}{
		{"tar.gz", tarGz, untar},
		{"zip", zipped, unzip},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, err := tc.pack(es)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := tc.pack(es)
			if !bytes.Equal(a, b) {
				t.Fatal("two packs of the same files differ")
			}
			got := tc.list(t, a)
			if len(got) != len(es) {
				t.Fatalf("%d entries, want %d", len(got), len(es))
			}
			for i := range es {
				if got[i].name != es[i].name || got[i].mode != es[i].mode || !bytes.Equal(got[i].data, es[i].data) {
					t.Errorf("entry %d = %s %o, want %s %o", i, got[i].name, got[i].mode, es[i].name, es[i].mode)
				}
			}
		})
	}
}

func untar(t *testing.T, b []byte) []entry {
	t.Helper()
	gz, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	if !gz.ModTime.IsZero() || gz.Name != "" {
		t.Errorf("gzip header carries %v %q", gz.ModTime, gz.Name)
	}
	tr := tar.NewReader(gz)
	var out []entry
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		if !h.ModTime.Equal(stamp) || h.Uid != 0 || h.Gid != 0 || h.Uname != "" {
			t.Errorf("%s: time %v owner %d/%d %q", h.Name, h.ModTime, h.Uid, h.Gid, h.Uname)
		}
		data, _ := io.ReadAll(tr)
		out = append(out, entry{h.Name, h.Mode, data})
	}
}

func unzip(t *testing.T, b []byte) []entry {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	var out []entry
	for _, f := range zr.File {
		if !f.Modified.Equal(stamp) {
			t.Errorf("%s: time %v", f.Name, f.Modified)
		}
		r, _ := f.Open()
		data, _ := io.ReadAll(r)
		out = append(out, entry{f.Name, int64(f.Mode().Perm()), data})
	}
	return out
}

// TestRun_Host runs dist twice for this machine's target (the others
// build in make dist; their headers are checked there) and checks that
// the two archives are the same bytes, that SHA256SUMS names them, and
// that the bridge unpacked from the archive runs --version.
func TestRun_Host(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the four programs")
	}
	host := target{runtime.GOOS, runtime.GOARCH}
	var outs [2]string
	for i := range outs {
		outs[i] = t.TempDir()
		var stdout, stderr bytes.Buffer
		if code := run(root, outs[i], "", []target{host}, false, &stdout, &stderr); code != 0 {
			t.Fatalf("run %d exited %d:\n%s%s", i, code, stdout.String(), stderr.String())
		}
	}
	v, err := hostVersion(root, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	name := host.archiveName(v)
	a, err := os.ReadFile(filepath.Join(outs[0], name))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(filepath.Join(outs[1], name))
	if !bytes.Equal(a, b) {
		t.Errorf("two runs of dist gave different %s", name)
	}
	sums, _ := os.ReadFile(filepath.Join(outs[0], "SHA256SUMS"))
	if !regexp.MustCompile(`^[0-9a-f]{64}  ` + regexp.QuoteMeta(name) + "\n$").Match(sums) {
		t.Errorf("SHA256SUMS = %q", sums)
	}
	var es []entry
	if host.goos == "windows" {
		es = unzip(t, a)
	} else {
		es = untar(t, a)
	}
	var names []string
	dir := t.TempDir()
	for _, e := range es {
		names = append(names, e.name)
		os.WriteFile(filepath.Join(dir, e.name), e.data, os.FileMode(e.mode))
	}
	want := []string{host.exe("dsh-bridge"), host.exe("dsh-highlight"), host.exe("dsh-code"), host.exe("dsh-markdown"), "README.md", "LICENSE"}
	if strings.Join(names, " ") != strings.Join(want, " ") {
		t.Errorf("entries %v, want %v", names, want)
	}
	out, err := exec.Command(filepath.Join(dir, host.exe("dsh-bridge")), "--version").Output()
	if err != nil || !strings.HasPrefix(string(out), "dsh-bridge "+v+" ") {
		t.Errorf("the unpacked bridge's --version: %q, %v", out, err)
	}
	for _, e := range es[:4] {
		if err := checkHeader(host, e.data); err != nil {
			t.Errorf("%s: %v", e.name, err)
		}
		other := target{"windows", "amd64"}
		if host.goos == "windows" {
			other = target{"linux", "amd64"}
		}
		if checkHeader(other, e.data) == nil {
			t.Errorf("%s passes as a %s binary", e.name, other)
		}
	}
}

// TestRegistryEntry checks dist/registry/agent.json: it is what dist
// generates for the bridge's version, it validates against the
// registry's agent.schema.json, names all six platforms, and its icon
// keeps the registry's rules.
func TestRegistryEntry(t *testing.T) {
	committed, err := os.ReadFile(filepath.Join(root, "dist/registry/agent.json"))
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile(filepath.Join(root, "cmd/dsh-bridge/main.go"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^var version = "([^"]+)"$`).FindSubmatch(src)
	if m == nil {
		t.Fatal("cmd/dsh-bridge/main.go has no version")
	}
	want, err := agentJSON(string(m[1]))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(committed, want) {
		t.Errorf("dist/registry/agent.json is not what dist makes for version %s: run make dist\n%s", m[1], want)
	}
	schemaFile, err := os.Open(filepath.Join(root, "../shared/acp/registry/agent.schema.json"))
	if err != nil {
		t.Skip("the registry's schema is not beside the repository:", err)
	}
	schemaDoc, err := jsonschema.UnmarshalJSON(schemaFile)
	schemaFile.Close()
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	if err := c.AddResource("agent.schema.json", schemaDoc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile("agent.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	doc, _ := jsonschema.UnmarshalJSON(bytes.NewReader(committed))
	if err := sch.Validate(doc); err != nil {
		t.Errorf("agent.json does not validate: %v", err)
	}
	var e agentEntry
	json.Unmarshal(committed, &e)
	bin := e.Distribution["binary"]
	for _, p := range []string{"darwin-aarch64", "darwin-x86_64", "linux-aarch64", "linux-x86_64", "windows-aarch64", "windows-x86_64"} {
		if bin[p].Archive == "" {
			t.Errorf("no build for %s", p)
		}
	}
	icon, err := os.ReadFile(filepath.Join(root, "dist/registry", e.Icon))
	if err != nil {
		t.Fatal(err)
	}
	if err := checkIcon(icon); err != nil {
		t.Error(err)
	}
}

func TestCheckIcon(t *testing.T) {
	for _, tc := range []struct {
		name, svg string
		ok        bool
	}{
		{"currentColor", `<svg xmlns="http://www.w3.org/2000/svg" width="16" height="16"><path fill="currentColor" d="M0 0h1v1z"/></svg>`, true},
		{"a hard-coded fill", `<svg xmlns="http://www.w3.org/2000/svg" width="16" height="16"><path fill="#000" d="M0 0h1v1z"/></svg>`, false},
		{"a colour in a style", `<svg xmlns="http://www.w3.org/2000/svg" width="16" height="16"><path style="fill:red" d="M0 0h1v1z"/></svg>`, false},
		{"a style element", `<svg xmlns="http://www.w3.org/2000/svg" width="16" height="16"><style>path{fill:red}</style><path d="M0 0"/></svg>`, false},
		{"24 by 24", `<svg xmlns="http://www.w3.org/2000/svg" width="24" height="24"><path fill="currentColor" d="M0 0"/></svg>`, false},
		{"no currentColor at all", `<svg xmlns="http://www.w3.org/2000/svg" width="16" height="16"><path fill="none" d="M0 0"/></svg>`, false},
		{"a gradient stop", `<svg xmlns="http://www.w3.org/2000/svg" width="16" height="16"><stop stop-color="blue"/><path fill="currentColor" d="M0 0"/></svg>`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := checkIcon([]byte(tc.svg)); (err == nil) != tc.ok {
				t.Errorf("checkIcon: %v, want ok %v", err, tc.ok)
			}
		})
	}
}

// checkIcon applies the registry's icon rules (../shared/acp/registry/README.md):
// an SVG of 16×16 drawn in currentColor only.
func checkIcon(b []byte) error {
	d := xml.NewDecoder(bytes.NewReader(b))
	first, current := true, false
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		el, ok := tok.(xml.StartElement)
		if !ok {
			continue
		}
		if el.Name.Local == "style" {
			return errorf("a <style> element")
		}
		attrs := map[string]string{}
		for _, a := range el.Attr {
			attrs[a.Name.Local] = a.Value
		}
		if first {
			first = false
			if el.Name.Local != "svg" {
				return errorf("the root is <%s>, not <svg>", el.Name.Local)
			}
			if !(attrs["width"] == "16" && attrs["height"] == "16") && attrs["viewBox"] != "0 0 16 16" {
				return errorf("not 16×16: width %q height %q viewBox %q", attrs["width"], attrs["height"], attrs["viewBox"])
			}
		}
		for _, k := range []string{"fill", "stroke", "color", "stop-color", "flood-color", "lighting-color"} {
			v, ok := attrs[k]
			if !ok {
				continue
			}
			switch v {
			case "currentColor":
				current = true
			case "none":
			default:
				return errorf("<%s %s=%q>: a hard-coded colour", el.Name.Local, k, v)
			}
		}
		if s := attrs["style"]; s != "" {
			return errorf("<%s style=%q>: styles may hard-code colours", el.Name.Local, s)
		}
	}
	if !current {
		return errorf("nothing is drawn in currentColor")
	}
	return nil
}

func errorf(format string, args ...any) error {
	return fmt.Errorf("icon.svg: "+format, args...)
}
