package sandbox

// process is one entry of a process table: its id, its parent's, its
// process group's and session's (the pids of their leaders), when it
// started (any clock that orders the table's entries; 0 when unknown),
// and whether it has ended and waits to be reaped.
type process struct {
	pid, ppid, pgid, sid int
	start                int64
	zombie               bool
}

// descendantsOf lists the live processes of root's tree in table, each
// before those found through it: root's children and theirs, and the
// members of a process group or session that root or one of those leads
// (the supervisor leads its own session: a grandchild whose parent
// exited is reparented to init or launchd, but stays in it). A zombie is
// already dead and is left out (what is found through it is not).
//
// A table is read while processes come and go, and pids are reused: a
// process that started before the one whose pid it names as its parent
// or leader is another's (that pid's earlier owner's), and is not taken;
// a group or session is followed only when both starts are known. A
// loop of parents (a table read across a reuse) ends the walk there.
// Not found: a process that left root's session (setsid) and whose
// parents have all exited, which names nothing of root's any more.
func descendantsOf(root int, table []process) []int {
	by := func(key func(process) int) map[int][]process {
		m := map[int][]process{}
		for _, p := range table {
			if k := key(p); k != p.pid { // pid 0 on macOS is its own parent; a leader is its own group
				m[k] = append(m[k], p)
			}
		}
		return m
	}
	children := by(func(p process) int { return p.ppid })
	groups := by(func(p process) int { return p.pgid })
	sessions := by(func(p process) int { return p.sid })
	top := process{pid: root}
	for _, p := range table {
		if p.pid == root {
			top = p
		}
	}
	var out []int
	seen := map[int]bool{root: true}
	queue := []process{top}
	for len(queue) > 0 {
		m := queue[0]
		queue = queue[1:]
		visit := func(c process, bound bool) {
			switch {
			case seen[c.pid]:
			case c.start != 0 && m.start != 0 && c.start < m.start: // m's pid, an older owner's
			case bound && (c.start == 0 || m.start == 0):
			default:
				seen[c.pid] = true
				if !c.zombie {
					out = append(out, c.pid)
				}
				queue = append(queue, c)
			}
		}
		for _, c := range children[m.pid] {
			visit(c, false)
		}
		for _, c := range groups[m.pid] {
			visit(c, true)
		}
		for _, c := range sessions[m.pid] {
			visit(c, true)
		}
	}
	return out
}
