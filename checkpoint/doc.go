// Package checkpoint records what a session's turns do to files and
// undoes it: the pre-image of every file a turn changes, kept
// content-addressed in the session's state folder (never in the
// workspace), and the rewind that restores them.
//
// # Recording
//
// A [Recorder] follows one session. [Recorder.Begin] starts a turn;
// [Recorder.BeforeWrite] is called by the host before it writes a file
// (edit, write), and captures the file's bytes and mode, or that it was
// absent, the first time the turn touches the path. Commands are opaque,
// so [Recorder.BeforeCommand] makes sure a snapshot of the workspace's
// files (a walk of their fingerprints: size, modification time, mode,
// and the change time and inode where the platform's stat has them; no
// file is read) is there before a command starts, and [Recorder.End]
// walks again once the turn is over and compares: a file that appeared
// is recorded as absent before (undo deletes it); a file a command
// changed or removed is recorded with its pre-image when the turn
// captured one; or when an earlier turn of the recorder left it and it
// still had the fingerprint that turn saw when this one began (a link:
// each turn's results are stored, so the content is there); or when
// the root is a git repository whose index, as copied when the turn
// began, held the file unchanged (same size, modification and change
// time; the blob read by its id from git's objects and checked against
// it, of the same length); else as [Image.Unknown] (a rewind reports it
// and leaves it). The index a command leaves is never read. The first
// snapshot (and the index copy) is taken in the background when the
// turn begins, while the model thinks; End is the only walk on the
// turn's path. Folders named .git are not walked, nor the folders the
// recorder is told to skip (the session's state folder) or its store's;
// nothing in them is recorded. A folder is [Image.Dir]; a path under
// what is now a file is absent.
//
// End returns the turn's [Change]s, each with its pre-image and the
// turn's result (After: the content's hash, not the content), in the
// order the turn first touched the paths.
//
// # Rewinding
//
// [Plan] is a pure function of the changes of the turns to undo (oldest
// first) and the files as they are now: per path, the pre-image of the
// oldest change is the target. A path whose content is the target
// already needs nothing. A path whose content is the newest change's
// result, with every change in the chain starting from the previous
// one's result, is restored. Anything else — content that is neither,
// a chain someone else broke between two turns, or a missing link (a
// change with an unknown pre-image after the first) — is a conflict
// ([Rewind.Conflicts]): the caller asks, and [Apply] restores a
// conflicting path only when told to. Unknown pre-images are never
// written. Apply restores in the reverse order of the changes, writes
// through a temporary file renamed into place (bytes as recorded, so
// line endings are kept) with the recorded mode, removes files that
// were absent, removes a folder that stands where a file goes back only
// when nothing but folders is left in it ([ErrNotEmpty] else), and
// refuses any path its check rejects.
package checkpoint
