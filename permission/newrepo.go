package permission

import (
	"bufio"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// RepoRisks lists what in a repository's .git runs code when git runs
// there, beyond what `git init`, a clone and everyday settings write:
// hooks that are not samples, settings outside a short list of harmless
// ones (the repository's layout, user.*, a remote's URL and refspecs, a
// branch's upstream, a few preferences), a remote URL of the ext::
// transport, and a .git that is a file or a symlink or holds a commondir
// (git then reads another folder's hooks and config); config.worktree is
// read as config is. The bridge asks it about repositories a command made
// during a session: the sandbox keeps a repository's hooks and config
// only once they exist, so a new one's are the command's. An unreadable
// config is reported as such.
func RepoRisks(dotGit string) []string {
	fi, err := os.Lstat(dotGit)
	switch {
	case err != nil:
		return nil
	case !fi.IsDir():
		return []string{".git is not a folder: git takes its hooks and config from where it points"}
	}
	var risks []string
	hooks, _ := os.ReadDir(filepath.Join(dotGit, "hooks"))
	for _, h := range hooks {
		if !strings.HasSuffix(h.Name(), ".sample") {
			risks = append(risks, "the hook "+h.Name())
		}
	}
	if _, err := os.Lstat(filepath.Join(dotGit, "commondir")); err == nil {
		risks = append(risks, "commondir: git takes this repository's hooks and config from another folder")
	}
	// config.worktree is read too once extensions.worktreeConfig is set
	// (a harmless-looking setting of config).
	seen := map[string]bool{}
	for _, name := range []string{"config", "config.worktree"} {
		risks = append(risks, configRisks(filepath.Join(dotGit, name), seen)...)
	}
	sort.Strings(risks)
	return risks
}

// configRisks lists the settings of a config file that are not harmless
// (each name once across the files seen).
func configRisks(path string, seen map[string]bool) []string {
	f, err := os.Open(path)
	if err != nil {
		if !os.IsNotExist(err) {
			return []string{filepath.Base(path) + ": a config git may read but this check cannot"}
		}
		return nil
	}
	defer f.Close()
	var risks []string
	section, sub := "", ""
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || line[0] == '#' || line[0] == ';' {
			continue
		}
		if line[0] == '[' {
			section, sub, line = configSection(line)
			if line == "" || line[0] == '#' || line[0] == ';' {
				continue
			}
		}
		// A continued or quoted value is not followed: a line that git
		// reads as part of a value is at worst reported as a key here.
		key, value, _ := strings.Cut(line, "=")
		key = strings.ToLower(strings.TrimSpace(key))
		value = strings.TrimSpace(value)
		name := section + "." + key
		if sub != "" {
			name = section + ".<" + sub + ">." + key
		}
		if !harmlessSetting(section, sub != "", key, value) && !seen[name] {
			seen[name] = true
			risks = append(risks, "the setting "+name)
		}
	}
	if sc.Err() != nil {
		risks = append(risks, filepath.Base(path)+": a config too long to check")
	}
	return risks
}

// configSection reads a section header: [core], [remote "origin"],
// [remote.origin] (the old spelling), and returns what follows it on the
// line (git reads a setting there too). The section is lower case, as git
// compares it.
func configSection(line string) (section, sub, after string) {
	body, after, _ := strings.Cut(line[1:], "]")
	after = strings.TrimSpace(after)
	if name, rest, ok := strings.Cut(body, " "); ok {
		return strings.ToLower(strings.TrimSpace(name)), strings.Trim(strings.TrimSpace(rest), `"`), after
	}
	name, rest, _ := strings.Cut(body, ".")
	return strings.ToLower(strings.TrimSpace(name)), strings.TrimSpace(rest), after
}

// harmlessKeys are the settings, by section, that make git run nothing:
// what init and clone write, and preferences. Anything else (core's
// fsmonitor, hooksPath, pager, editor and sshCommand, includes, filters,
// diff and merge drivers, credential helpers, aliases, a remote's
// uploadpack, a submodule's update) may run a program.
var harmlessKeys = map[string][]string{
	"core":       {"repositoryformatversion", "filemode", "bare", "logallrefupdates", "ignorecase", "precomposeunicode", "symlinks", "autocrlf", "eol", "safecrlf", "quotepath", "whitespace"},
	"extensions": {"objectformat", "refstorage", "worktreeconfig", "preciousobjects"},
	"user":       {"name", "email"},
	"remote":     {"url", "pushurl", "fetch", "push", "mirror", "tagopt", "prune", "skipdefaultupdate"},
	"branch":     {"remote", "merge", "rebase", "pushremote", "description"},
	"pull":       {"rebase", "ff"},
	"push":       {"default", "autosetupremote"},
	"fetch":      {"prune"},
	"init":       {"defaultbranch"},
}

func harmlessSetting(section string, hasSub bool, key, value string) bool {
	if (section == "remote" || section == "branch") != hasSub {
		return false
	}
	if section == "remote" && (key == "url" || key == "pushurl") && strings.HasPrefix(strings.ToLower(value), "ext::") {
		return false // the ext transport runs its URL as a command
	}
	for _, k := range harmlessKeys[section] {
		if k == key {
			return true
		}
	}
	return false
}
