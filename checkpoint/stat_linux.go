package checkpoint

import "syscall"

// statExtra is the change time (ns) and inode number of a Linux stat.
func statExtra(sys any) (ctime int64, ino uint64) {
	st, ok := sys.(*syscall.Stat_t)
	if !ok {
		return 0, 0
	}
	return st.Ctim.Sec*1e9 + st.Ctim.Nsec, st.Ino
}
