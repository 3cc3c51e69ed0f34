package sandbox

// process is one entry of a process table: its id, its parent's, and
// whether it has ended and waits to be reaped.
type process struct {
	pid, ppid int
	zombie    bool
}

// descendantsOf lists the live descendants of root in table, parents
// before their children. A zombie is already dead and is left out (its
// children, if the table shows any, are not).
func descendantsOf(root int, table []process) []int {
	children := map[int][]process{}
	for _, p := range table {
		if p.pid != p.ppid { // pid 0 on macOS is its own parent
			children[p.ppid] = append(children[p.ppid], p)
		}
	}
	var out []int
	seen := map[int]bool{root: true}
	queue := []int{root}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		for _, c := range children[p] {
			if seen[c.pid] {
				continue // a table read while processes come and go can loop
			}
			seen[c.pid] = true
			if !c.zombie {
				out = append(out, c.pid)
			}
			queue = append(queue, c.pid)
		}
	}
	return out
}
