package tools

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/dsh-bridge/dsh-bridge/registry"
)

// Job statuses.
const (
	JobRunning   = "running"
	JobStopping  = "stopping"
	JobCompleted = "completed"
	JobKilled    = "killed"
	JobFailed    = "failed"
)

// JobSnapshot is a background job as tools report it.
type JobSnapshot struct {
	ID         string `json:"id"`
	Kind       string `json:"kind"`
	Label      string `json:"label"`
	Status     string `json:"status"`
	Detail     string `json:"detail,omitempty"`
	StartedAt  string `json:"startedAt"`
	FinishedAt string `json:"finishedAt,omitempty"`
}

// Jobs owns a session's background jobs. Every job ends when Close is
// called ("jobs die with their session"). Safe for concurrent use.
type Jobs struct {
	host Host
	mu   sync.Mutex
	seq  int
	jobs map[string]*job
	ids  []string
	done bool
}

type job struct {
	snap    JobSnapshot // guarded by Jobs.mu
	out     *ring
	proc    Process
	read    int           // next unread offset; guarded by Jobs.mu
	exited  chan struct{} // closed when the process has exited
	killing bool
}

// NewJobs returns an empty job table running commands on h.
func NewJobs(h Host) *Jobs { return &Jobs{host: h, jobs: map[string]*job{}} }

// ErrJobsClosed is returned by Start after Close.
var ErrJobsClosed = errors.New("the session's background jobs are closed")

func jobError(msg string) error {
	return registry.NewError("JobError", "JOB_NOT_FOUND", msg)
}

// Start runs script in dir as a background job and returns its id.
func (j *Jobs) Start(ctx context.Context, script, dir string) (string, error) {
	out := newRing()
	proc, err := j.host.Start(ctx, Command{Script: script, Dir: dir, Stdout: out, Stderr: out})
	if err != nil {
		return "", fmt.Errorf("cannot start the command: %w", err)
	}
	j.mu.Lock()
	if j.done {
		j.mu.Unlock()
		proc.Kill()
		proc.Wait()
		return "", ErrJobsClosed
	}
	j.seq++
	id := "job-" + strconv.Itoa(j.seq)
	jb := &job{out: out, proc: proc, exited: make(chan struct{}),
		snap: JobSnapshot{ID: id, Kind: "bash", Label: script, Status: JobRunning, StartedAt: now()}}
	j.jobs[id] = jb
	j.ids = append(j.ids, id)
	j.mu.Unlock()
	go func() {
		st := proc.Wait()
		j.mu.Lock()
		switch {
		case jb.killing:
			jb.snap.Status = JobKilled
		case st.Err != nil:
			jb.snap.Status, jb.snap.Detail = JobFailed, st.Err.Error()
		case st.Signal != "":
			jb.snap.Status, jb.snap.Detail = JobKilled, "signal "+st.Signal
		case st.Code != 0:
			jb.snap.Status, jb.snap.Detail = JobFailed, "exit code "+strconv.Itoa(st.Code)
		default:
			jb.snap.Status = JobCompleted
		}
		jb.snap.FinishedAt = now()
		j.mu.Unlock()
		close(jb.exited)
	}()
	return id, nil
}

func now() string { return time.Now().UTC().Format(time.RFC3339Nano) }

func (j *Jobs) get(id string) (*job, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	jb, ok := j.jobs[id]
	if !ok {
		return nil, jobError(fmt.Sprintf("unknown background job %q", id))
	}
	return jb, nil
}

// Output returns the job's output since the last read. With wait, it
// blocks until there is new output, the job ends, timeout passes or ctx
// ends — whichever is first.
func (j *Jobs) Output(ctx context.Context, id string, wait bool, timeout time.Duration) (string, JobSnapshot, error) {
	jb, err := j.get(id)
	if err != nil {
		return "", JobSnapshot{}, err
	}
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		j.mu.Lock()
		from := jb.read
		j.mu.Unlock()
		text, next, lost, changed := jb.out.since(from)
		finished := false
		select {
		case <-jb.exited:
			finished = true
		default:
		}
		if text != "" || finished || !wait {
			j.mu.Lock()
			jb.read = next
			snap := jb.snap
			j.mu.Unlock()
			if lost {
				text = "[some earlier output was dropped]\n" + text
			}
			return text, snap, nil
		}
		select {
		case <-changed:
		case <-jb.exited:
		case <-deadline.C:
			wait = false
		case <-ctx.Done():
			wait = false
		}
	}
}

// List returns every job, oldest first.
func (j *Jobs) List() []JobSnapshot {
	j.mu.Lock()
	defer j.mu.Unlock()
	out := make([]JobSnapshot, 0, len(j.ids))
	for _, id := range j.ids {
		out = append(out, j.jobs[id].snap)
	}
	return out
}

// Kill stops a job; it reports whether the job had already finished.
func (j *Jobs) Kill(id, reason string) (alreadyFinished bool, snap JobSnapshot, err error) {
	jb, err := j.get(id)
	if err != nil {
		return false, JobSnapshot{}, err
	}
	j.mu.Lock()
	select {
	case <-jb.exited:
		snap = jb.snap
		j.mu.Unlock()
		return true, snap, nil
	default:
	}
	jb.killing = true
	jb.snap.Status = JobStopping
	if reason != "" {
		jb.snap.Detail = reason
	}
	snap = jb.snap
	j.mu.Unlock()
	jb.proc.Kill()
	return false, snap, nil
}

// Close kills every job and waits for them to end. Later Starts fail.
func (j *Jobs) Close() {
	j.mu.Lock()
	j.done = true
	jobs := make([]*job, 0, len(j.jobs))
	for _, jb := range j.jobs {
		jb.killing = true
		jobs = append(jobs, jb)
	}
	j.mu.Unlock()
	for _, jb := range jobs {
		jb.proc.Kill()
		<-jb.exited
	}
}
