package workspace

import "testing"

func TestProcessSecret(t *testing.T) {
	for _, tc := range []struct {
		path string
		want bool
	}{
		{"/proc/123/environ", true},
		{"/proc/self/environ", true},
		{"/proc/thread-self/cmdline", true},
		{"/proc/123/mem", true},
		{"/proc/123/task/124/environ", true},
		{"/proc/123/task/124/mem", true},
		{"/proc/kcore", true},
		{"/dev/mem", true},
		{"/dev/kmem", true},
		{"/dev/port", true},
		{"/proc/123/status", false},
		{"/proc/123/task/124/status", false},
		{"/proc/123/fd/environ", false},
		{"/proc/environ", false},
		{"/proc/sys/kernel/environ", false},
		{"/home/me/proc/123/environ", false},
		{"/proc/123/environ2", false},
		{"/dev/null", false},
		{"/work/environ", false},
	} {
		t.Run(tc.path, func(t *testing.T) {
			if got := processSecret(tc.path) != ""; got != tc.want {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
}
