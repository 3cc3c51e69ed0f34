package winjob

import (
	"errors"
	"fmt"
	"os/exec"
	"sync"
	"syscall"
	"unsafe"

	"golang.org/x/sys/windows"
)

// Job is a Job Object that kills its processes when it is closed. Its
// methods may be called concurrently.
type Job struct {
	mu sync.Mutex
	h  windows.Handle // 0 once closed
}

// New makes a job whose processes end when it is closed.
func New() (*Job, error) {
	h, err := windows.CreateJobObject(nil, nil) // nil attributes: not inheritable
	if err != nil {
		return nil, fmt.Errorf("creating a job object: %w", err)
	}
	info := windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION{}
	info.BasicLimitInformation.LimitFlags = windows.JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE
	if _, err := windows.SetInformationJobObject(h, windows.JobObjectExtendedLimitInformation,
		uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info))); err != nil {
		windows.CloseHandle(h)
		return nil, fmt.Errorf("setting the job's kill-on-close limit: %w", err)
	}
	return &Job{h: h}, nil
}

var ntResumeProcess = windows.NewLazySystemDLL("ntdll.dll").NewProc("NtResumeProcess")

// Start starts cmd suspended, puts it in the job, and then lets it run.
// When it cannot be put in the job, it is killed and Start fails: a
// command never runs outside its job.
func (j *Job) Start(cmd *exec.Cmd) error {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.CreationFlags |= windows.CREATE_SUSPENDED
	if err := cmd.Start(); err != nil {
		return err
	}
	if err := j.adopt(uint32(cmd.Process.Pid)); err != nil {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		return err
	}
	return nil
}

// adopt puts the suspended process pid in the job and resumes it.
func (j *Job) adopt(pid uint32) error {
	p, err := windows.OpenProcess(windows.PROCESS_SET_QUOTA|windows.PROCESS_TERMINATE|windows.PROCESS_SUSPEND_RESUME, false, pid)
	if err != nil {
		return fmt.Errorf("opening the command's process: %w", err)
	}
	defer windows.CloseHandle(p)
	j.mu.Lock()
	h := j.h
	if h == 0 {
		j.mu.Unlock()
		return errors.New("the job is closed")
	}
	err = windows.AssignProcessToJobObject(h, p)
	j.mu.Unlock()
	if err != nil {
		return fmt.Errorf("putting the command in its job: %w", err)
	}
	if st, _, _ := ntResumeProcess.Call(uintptr(p)); st != 0 {
		return fmt.Errorf("resuming the command: %w", windows.NTStatus(st))
	}
	return nil
}

// Kill ends every process in the job; the job stays open.
func (j *Job) Kill() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.h == 0 {
		return nil
	}
	return windows.TerminateJobObject(j.h, 1)
}

// Close closes the job, which ends every process still in it.
// Idempotent.
func (j *Job) Close() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.h == 0 {
		return nil
	}
	err := windows.CloseHandle(j.h)
	j.h = 0
	return err
}
