package sandbox

import (
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// TestSeatbeltArgs_Golden: the profile text and parameters for the usual
// rule sets, against testdata/seatbelt/*.sbpl (go test -run
// TestSeatbeltArgs_Golden -update rewrites them).
func TestSeatbeltArgs_Golden(t *testing.T) {
	kept := []string{"/Users/me/ws/.git/hooks", "/Users/me/ws/.git/modules/*/hooks", "/Users/me/ws/.vscode", "/Users/me/.zshrc"}
	for _, tc := range []struct {
		name string
		p    Profile
	}{
		{"read-only", Profile{Write: []string{"/private/var/folders/x/T"}}},
		{"workspace-write", Profile{Write: []string{"/Users/me/ws", "/private/var/folders/x/T"}, Deny: []string{"/Users/me/.ssh", "/Users/me/ws/secrets"}, Kept: kept}},
		{"network", Profile{Write: []string{"/Users/me/ws"}, Network: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			profile, params := SeatbeltArgs(tc.p)
			got := profile + ";; parameters\n;; " + strings.Join(params, "\n;; ") + "\n"
			golden := filepath.Join("testdata", "seatbelt", tc.name+".sbpl")
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if got != string(want) {
				t.Errorf("profile differs from %s (-update rewrites it):\n%s", golden, got)
			}
			if _, err := readSBPL(profile); err != nil {
				t.Errorf("profile does not read: %v", err)
			}
		})
	}
}

// TestSeatbeltArgs_HostilePaths: no spelling of a path breaks out of the
// profile's strings. Paths are parameters, never in the text; a kept glob
// (a regex in the text) holds no quote or backslash of the path's own.
// The profile then reads as the forms it was built from: one file-write
// allow, scoped to the writable folders, never the whole disk.
func TestSeatbeltArgs_HostilePaths(t *testing.T) {
	breakout := `")(allow file-write* (subpath "/"))(deny file-read* (literal "`
	for _, tc := range []struct{ name, path string }{
		{"a quote", `/ws/a"b`},
		{"a backslash", `/ws/a\b`},
		{"a backslash before the quote", `/ws/a\"b`},
		{"a break-out", "/ws/x" + breakout},
		{"a regex break-out", `/ws/x"#)(allow file-write* (regex #".*`},
		{"a newline", "/ws/a\n(allow network*)"},
		{"parentheses and semicolons", "/ws/(a);b|c"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := Profile{
				Write: []string{tc.path},
				Deny:  []string{tc.path + "/secret"},
				Kept:  []string{GlobQuote(tc.path) + "/.git/hooks", GlobQuote(tc.path) + "/*/.git/hooks"},
			}
			profile, params := SeatbeltArgs(p)
			if strings.Contains(profile, tc.path) {
				t.Errorf("the path is in the profile's text:\n%s", profile)
			}
			for _, want := range []string{"WRITE_0=" + tc.path, "DENY_0=" + tc.path + "/secret", "KEPT_0=" + tc.path + "/.git/hooks"} {
				if !contains(params, want) {
					t.Errorf("parameters %q lack %q", params, want)
				}
			}
			forms, err := readSBPL(profile)
			if err != nil {
				t.Fatalf("profile does not read: %v\n%s", err, profile)
			}
			writes := 0
			for _, f := range forms {
				if len(f.list) > 1 && f.list[0].atom == "allow" && f.list[1].atom == "file-write*" {
					writes++
					if strings.Contains(f.String(), `(subpath "/")`) {
						t.Errorf("a write rule covers the whole disk: %s", f)
					}
				}
				if len(f.list) > 0 && f.list[0].atom != "allow" && f.list[0].atom != "deny" && f.list[0].atom != "version" {
					t.Errorf("a form the profile never writes: %s", f)
				}
			}
			if writes != 1 {
				t.Errorf("%d file-write* rules, want 1:\n%s", writes, profile)
			}
			re := regexp.MustCompile(`#"((?:[^"\\]|\\.)*)"`)
			for _, m := range re.FindAllStringSubmatch(profile, -1) {
				if _, err := regexp.Compile(m[1]); err != nil {
					t.Errorf("regex %q does not compile: %v", m[1], err)
				}
			}
		})
	}
}

// TestGlobRegex: a kept glob's expression matches what the glob matches
// and everything below it, and nothing beside it.
func TestGlobRegex(t *testing.T) {
	for _, tc := range []struct {
		name, glob  string
		match, miss []string
	}{
		{"a plain path", "/ws/.git/hooks", []string{"/ws/.git/hooks", "/ws/.git/hooks/pre-commit"}, []string{"/ws/.git/hooksx", "/ws/.git", "/wsx/.git/hooks"}},
		{"a star", "/ws/.git/modules/*/hooks", []string{"/ws/.git/modules/a/hooks", "/ws/.git/modules/a/hooks/x"}, []string{"/ws/.git/modules/a/b/hooks", "/ws/.git/modules/hooks"}},
		{"a question mark and a class", "/ws/a?[bc]", []string{"/ws/axb", "/ws/a.c"}, []string{"/ws/ab", "/ws/a/b"}},
		{"quoted wildcards", `/ws/a\*b`, []string{"/ws/a*b"}, []string{"/ws/axb"}},
		{"regex punctuation", "/ws/a.b+c(d)", []string{"/ws/a.b+c(d)"}, []string{"/ws/aXb+c(d)", "/ws/a.bbc(d)"}},
		{"a quote matches any one character", `/ws/a"b`, []string{`/ws/a"b`, "/ws/axb"}, []string{"/ws/a/b"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			expr := globRegex(tc.glob)
			if strings.ContainsAny(expr, `"`) {
				t.Fatalf("%q holds a quote", expr)
			}
			re := regexp.MustCompile(expr)
			for _, m := range tc.match {
				if !re.MatchString(m) {
					t.Errorf("%q does not match %q", expr, m)
				}
			}
			for _, m := range tc.miss {
				if re.MatchString(m) {
					t.Errorf("%q matches %q", expr, m)
				}
			}
		})
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// sexp is a form of SBPL as its reader sees it: an atom, a string (or a
// #"regex"), or a list.
type sexp struct {
	atom, str string
	isStr     bool
	list      []sexp
	isList    bool
}

func (s sexp) String() string {
	switch {
	case s.isStr:
		return `"` + s.str + `"`
	case !s.isList:
		return s.atom
	}
	parts := make([]string, len(s.list))
	for i, e := range s.list {
		parts[i] = e.String()
	}
	return "(" + strings.Join(parts, " ") + ")"
}

// readSBPL reads a profile's top-level forms as a Scheme reader would:
// strings end at the first '"' not escaped by '\', comments run from ';'
// to the end of the line.
func readSBPL(text string) ([]sexp, error) {
	var stack [][]sexp
	var top []sexp
	push := func(e sexp) {
		if len(stack) == 0 {
			top = append(top, e)
			return
		}
		stack[len(stack)-1] = append(stack[len(stack)-1], e)
	}
	for i := 0; i < len(text); i++ {
		switch c := text[i]; {
		case c == ';':
			for i < len(text) && text[i] != '\n' {
				i++
			}
		case c == '(':
			stack = append(stack, nil)
		case c == ')':
			if len(stack) == 0 {
				return nil, errUnbalanced
			}
			l := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			push(sexp{list: l, isList: true})
		case c == '"' || c == '#' && i+1 < len(text) && text[i+1] == '"':
			if c == '#' {
				i++
			}
			var b strings.Builder
			for i++; ; i++ {
				if i >= len(text) {
					return nil, errUnbalanced
				}
				if text[i] == '\\' && i+1 < len(text) {
					b.WriteByte(text[i])
					i++
				} else if text[i] == '"' {
					break
				}
				b.WriteByte(text[i])
			}
			push(sexp{str: b.String(), isStr: true})
		case c == ' ' || c == '\n' || c == '\t':
		default:
			j := i
			for j < len(text) && !strings.ContainsRune(" \n\t()\";", rune(text[j])) {
				j++
			}
			push(sexp{atom: text[i:j]})
			i = j - 1
		}
	}
	if len(stack) != 0 {
		return nil, errUnbalanced
	}
	return top, nil
}

var errUnbalanced = errorString("unbalanced parentheses or an unended string")

type errorString string

func (e errorString) Error() string { return string(e) }

// TestWrapHelper: a helper runs under sandbox-exec with the helper
// profile (testdata/seatbelt/helper.sbpl; -update rewrites it), its
// resolved path as the one parameter and the command; the profile grants
// no write but /dev/null's and no network, and no spelling of the path
// enters its text.
func TestWrapHelper(t *testing.T) {
	for _, real := range []string{"/Applications/Zed.app/Contents/bin/dsh-highlight", `/Users/me/a"b\c)(allow network*)/dsh-code`} {
		t.Run(real, func(t *testing.T) {
			argv := WrapHelper(real, []string{"dsh-code", "-x"})
			want := []string{SandboxExec, "-p", seatbeltHelper, "-D", "HELPER=" + real, "--", real, "-x"}
			if !slices.Equal(argv, want) {
				t.Errorf("argv %q, want %q", argv, want)
			}
			if strings.Contains(argv[2], real) {
				t.Errorf("the path is in the profile's text")
			}
		})
	}
	golden := filepath.Join("testdata", "seatbelt", "helper.sbpl")
	if *update {
		if err := os.WriteFile(golden, []byte(seatbeltHelper), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if want, err := os.ReadFile(golden); err != nil || string(want) != seatbeltHelper {
		t.Errorf("the helper profile differs from %s (-update rewrites it): %v\n%s", golden, err, seatbeltHelper)
	}
	forms, err := readSBPL(seatbeltHelper)
	if err != nil {
		t.Fatalf("profile does not read: %v", err)
	}
	denyDefault := false
	for _, f := range forms {
		s := f.String()
		if s == "(deny default)" {
			denyDefault = true
		}
		if len(f.list) < 2 || f.list[0].atom != "allow" {
			continue
		}
		if strings.Contains(s, "network") || strings.Contains(s, "process-fork") || strings.Contains(s, "mach-") {
			t.Errorf("the helper profile allows %s", s)
		}
		if strings.Contains(s, "file-write") && s != `(allow file-read* file-write-data (literal "/dev/null"))` {
			t.Errorf("the helper profile allows writing: %s", s)
		}
		if strings.Contains(s, `(subpath "/")`) || strings.Contains(s, "/Users") || strings.Contains(s, `"/private/tmp"`) {
			t.Errorf("the helper profile reads the person's files: %s", s)
		}
	}
	if !denyDefault {
		t.Error("the helper profile does not deny by default")
	}
}
