package checkpoint

import "syscall"

// statExtra is, on Windows, the creation time (ns) in the change time's
// place and no file number: a directory listing gives neither a change
// time nor a file index (both need a handle opened on each file, too
// dear for a walk). The creation time still sees a file replaced by
// another (unless the file system's tunneling carries it over); a
// rewrite in place that keeps size and modification time is not seen.
func statExtra(sys any) (ctime int64, ino uint64) {
	d, ok := sys.(*syscall.Win32FileAttributeData)
	if !ok {
		return 0, 0
	}
	return d.CreationTime.Nanoseconds(), 0
}
