package workspace

import "testing"

func TestSlashWindowsSpellings(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"index allocation of a folder", `C:\ws\secrets::$INDEX_ALLOCATION\key`, "C:/ws/secrets/key"},
		{"index allocation lower case", `C:\ws\secrets::$index_allocation\key`, "C:/ws/secrets/key"},
		{"named index of a folder", `C:\ws\secrets:$I30:$INDEX_ALLOCATION\key`, "C:/ws/secrets/key"},
		{"index allocation last", `C:\ws\.git::$INDEX_ALLOCATION`, "C:/ws/.git"},
		{"other stream kept", `C:\ws\key:ads`, "C:/ws/key:ads"},
		{"globalroot ??", `\\?\GLOBALROOT\??\C:\ws\key`, "C:/ws/key"},
		{"globalroot GLOBAL??", `\\?\GLOBALROOT\GLOBAL??\c:\ws\key`, "C:/ws/key"},
		{"globalroot DosDevices", `\\.\globalroot\DosDevices\C:\ws\key`, "C:/ws/key"},
		{"globalroot UNC", `\\?\GLOBALROOT\??\UNC\host\share\x`, "//host/share/x"},
		{"globalroot device kept", `\\?\GLOBALROOT\Device\HarddiskVolume1\x`, "GLOBALROOT/Device/HarddiskVolume1/x"},
		{"admin share localhost", `\\localhost\C$\ws\key`, "C:/ws/key"},
		{"admin share loopback lower", `\\127.0.0.1\c$\ws\key`, "C:/ws/key"},
		{"admin share loopback other", `\\127.1.2.3\d$\x`, "D:/x"},
		{"admin share verbatim", `\\?\UNC\127.0.0.1\c$\ws\key`, "C:/ws/key"},
		{"admin share ipv6 literal", `\\0--1.ipv6-literal.net\C$\x`, "C:/x"},
		{"admin share of another host kept", `\\server\C$\ws\key`, "//server/C$/ws/key"},
		{"loopback share not a drive", `\\localhost\ws\key`, "//localhost/ws/key"},
		{"not loopback", `\\127.0.0\C$\x`, "//127.0.0/C$/x"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Slash(tc.in, "windows"); got != tc.want {
				t.Errorf("Slash(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

func TestWinUnjudged(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		unjudged bool
	}{
		{"plain", `C:\ws\x`, false},
		{"relative", `secrets\key`, false},
		{"drive-relative on cwd's drive", `C:secrets\key`, false},
		{"drive-relative lower on cwd's drive", `c:..\out`, false},
		{"drive alone on cwd's drive", `C:`, false},
		{"drive-relative on another drive", `D:secrets\key`, true},
		{"another drive alone", `D:`, true},
		{"another drive rooted", `D:\x`, false},
		{"globalroot device", `\\?\GLOBALROOT\Device\HarddiskVolume1\x`, true},
		{"globalroot through ??", `\\?\GLOBALROOT\??\C:\x`, false},
		{"admin share of a host", `\\server\C$\x`, true},
		{"admin share of localhost", `\\localhost\C$\x`, false},
		{"share of localhost", `\\localhost\ws\x`, true},
		{"share of a server", `\\server\share\x`, false},
		{"stream of a folder", `C:\ws\secrets:$x:$DATA\key`, true},
		{"index of a folder", `C:\ws\secrets::$INDEX_ALLOCATION\key`, false},
		{"git revision is no stream", `HEAD:dir/file`, false},
		{"stream of the file", `C:\ws\key:$DATA`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if why := WinUnjudged(tc.in, `C:\ws`); (why != "") != tc.unjudged {
				t.Errorf("WinUnjudged(%q) = %q, want unjudged %v", tc.in, why, tc.unjudged)
			}
		})
	}
}

func TestOnCwdDrive(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"drive-relative", `C:secrets\key`, `secrets\key`},
		{"lower drive", `c:..\out`, `..\out`},
		{"drive alone", `C:`, `.`},
		{"other drive", `D:x`, `D:x`},
		{"absolute", `C:\x`, `C:\x`},
		{"slash absolute", `C:/x`, `C:/x`},
		{"relative", `x`, `x`},
		{"not a letter", `1:x`, `1:x`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := onCwdDrive(tc.in, `C:\ws`); got != tc.want {
				t.Errorf("onCwdDrive(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

func TestUnjudgedOnlyOnWindows(t *testing.T) {
	for _, goos := range []string{"linux", "darwin"} {
		w := &Workspace{cwd: "/ws", form: FormOf(goos)}
		if why := w.Unjudged(`D:secrets`); why != "" {
			t.Errorf("%s: Unjudged(D:secrets) = %q, want none (a file name there)", goos, why)
		}
	}
	w := &Workspace{cwd: `C:\ws`, form: FormOf("windows")}
	if why := w.Unjudged(`D:secrets`); why == "" {
		t.Error("windows: D:secrets is judged, want unjudged")
	}
}
