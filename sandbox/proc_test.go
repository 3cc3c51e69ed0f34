package sandbox

import (
	"slices"
	"testing"
)

// TestDescendantsOf: the walk of a fake process table (the supervisor,
// pid 100, leads session and group 100), as the macOS supervisor reads
// it from sysctl kern.proc and the Linux one from /proc.
func TestDescendantsOf(t *testing.T) {
	sup := process{pid: 100, ppid: 50, pgid: 100, sid: 100, start: 10}
	bridge := process{pid: 50, ppid: 1, pgid: 40, sid: 40, start: 5}
	launchd := process{pid: 1, ppid: 0, pgid: 1, sid: 1, start: 1}
	kernel := process{pid: 0, ppid: 0, pgid: 0, sid: 0, start: 0}
	base := []process{kernel, launchd, bridge, sup}
	for _, tc := range []struct {
		name  string
		table []process
		want  []int
	}{
		{"nothing started", nil, nil},
		{"a command and its child", []process{
			{pid: 101, ppid: 100, pgid: 100, sid: 100, start: 11},
			{pid: 102, ppid: 101, pgid: 100, sid: 100, start: 12},
		}, []int{101, 102}},
		{"a setsid escapee whose parent lives, and its child", []process{
			{pid: 101, ppid: 100, pgid: 100, sid: 100, start: 11},
			{pid: 102, ppid: 101, pgid: 102, sid: 102, start: 12},
			{pid: 103, ppid: 102, pgid: 102, sid: 102, start: 13},
		}, []int{101, 102, 103}},
		{"a grandchild reparented to launchd, still in the session", []process{
			{pid: 102, ppid: 1, pgid: 100, sid: 100, start: 12},
		}, []int{102}},
		{"a reparented grandchild in a group of its own, still in the session", []process{
			{pid: 102, ppid: 1, pgid: 102, sid: 100, start: 12},
			{pid: 103, ppid: 1, pgid: 102, sid: 100, start: 13},
		}, []int{102, 103}},
		{"a reparented member of a group a descendant leads, in another session", []process{
			{pid: 101, ppid: 100, pgid: 101, sid: 100, start: 11},
			{pid: 104, ppid: 1, pgid: 101, sid: 999, start: 14},
		}, []int{101, 104}},
		{"an orphaned setsid escapee is lost (no link is left)", []process{
			{pid: 102, ppid: 1, pgid: 102, sid: 102, start: 12},
		}, nil},
		{"pid reuse: an older process naming a descendant's pid as parent", []process{
			{pid: 101, ppid: 100, pgid: 100, sid: 100, start: 11},
			{pid: 200, ppid: 101, pgid: 200, sid: 200, start: 3}, // its parent was an earlier 101
		}, []int{101}},
		{"pid reuse: an older session whose leader's pid is the supervisor's now", []process{
			{pid: 300, ppid: 1, pgid: 300, sid: 100, start: 2},
		}, nil},
		{"pid reuse: an older process naming the supervisor as parent", []process{
			{pid: 301, ppid: 100, pgid: 301, sid: 301, start: 4},
		}, nil},
		{"unknown starts: parents followed, groups and sessions not", []process{
			{pid: 101, ppid: 100, pgid: 100, sid: 100},
			{pid: 102, ppid: 1, pgid: 101, sid: 100},
		}, []int{101}},
		{"a loop of parents below the supervisor", []process{
			{pid: 101, ppid: 102, pgid: 100, sid: 100, start: 11},
			{pid: 102, ppid: 101, pgid: 100, sid: 100, start: 12},
		}, []int{101, 102}},
		{"a loop of parents elsewhere", []process{
			{pid: 401, ppid: 402, pgid: 401, sid: 401, start: 11},
			{pid: 402, ppid: 401, pgid: 401, sid: 401, start: 12},
		}, nil},
		{"a zombie is skipped, its child is not", []process{
			{pid: 101, ppid: 100, pgid: 100, sid: 100, start: 11, zombie: true},
			{pid: 102, ppid: 101, pgid: 102, sid: 102, start: 12},
		}, []int{102}},
		{"the bridge's other children are not the supervisor's", []process{
			{pid: 60, ppid: 50, pgid: 40, sid: 40, start: 6},
			{pid: 61, ppid: 50, pgid: 40, sid: 40, start: 20},
		}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := descendantsOf(sup.pid, append(slices.Clone(base), tc.table...))
			if !slices.Equal(got, tc.want) {
				t.Errorf("descendantsOf = %v, want %v", got, tc.want)
			}
		})
	}
	t.Run("a supervisor missing from the table", func(t *testing.T) {
		got := descendantsOf(100, []process{{pid: 101, ppid: 100, pgid: 100, sid: 100, start: 11}})
		if !slices.Equal(got, []int{101}) {
			t.Errorf("descendantsOf = %v, want [101]", got)
		}
	})
}
