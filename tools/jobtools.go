package tools

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/dsh-bridge/dsh-bridge/card"
	"github.com/dsh-bridge/dsh-bridge/registry"
)

// Job tool limits.
const (
	JobOutputDefaultWait = 30 * time.Second
	JobOutputMaxWait     = 10 * time.Minute
	// JobOutputLimit caps the text job_output and job_kill return; their
	// FinalizeContent enforces it on every outcome.
	JobOutputLimit = 30 * 1024
)

type jobOutputArgs struct {
	JobID     string   `json:"job_id" desc:"The background job's id, as bash returned it."`
	Wait      bool     `json:"wait,omitempty" desc:"Wait for new output or the end of the job."`
	TimeoutMs *float64 `json:"timeout_ms,omitempty" desc:"How long to wait, in milliseconds (default 30000, at most 600000)."`
}

type jobOutputValue struct {
	Text string      `json:"text"`
	Job  JobSnapshot `json:"job"`
}

type jobKillArgs struct {
	JobID  string `json:"job_id" desc:"The background job's id."`
	Reason string `json:"reason,omitempty" desc:"Why the job is stopped."`
}

type jobKillValue struct {
	Outcome string      `json:"outcome" enum:"cancellation-requested,already-finished"`
	Job     JobSnapshot `json:"job"`
}

func statusLine(s JobSnapshot) string {
	if s.Detail != "" {
		return "[status: " + s.Status + ", " + s.Detail + "]"
	}
	return "[status: " + s.Status + "]"
}

// capContent is the job tools' FinalizeContent: it caps every text block
// at JobOutputLimit bytes, on every outcome.
func capContent(_ registry.Execution, r registry.Result) ([]card.Content, bool) {
	changed := false
	out := make([]card.Content, len(r.Content))
	for i, c := range r.Content {
		out[i] = c
		if t := c.TextValue(); c.Type() == card.TypeText && len(t) > JobOutputLimit {
			cut := t[len(t)-JobOutputLimit:]
			out[i] = card.Text("[earlier output cut to the last 30 KiB]\n" + strings.ToValidUTF8(cut, ""))
			changed = true
		}
	}
	return out, changed
}

func newJobTools(jobs *Jobs) ([]*registry.Tool, error) {
	output, err := registry.Define(registry.TypedTool[jobOutputArgs, jobOutputValue]{
		Name:        "job_output",
		Description: "Read a background job's new output since the last read, and its status. Set wait to block until there is new output or the job ends.",
		Execute: func(ctx context.Context, a jobOutputArgs, _ registry.RunContext) (jobOutputValue, error) {
			if strings.TrimSpace(a.JobID) == "" {
				return jobOutputValue{}, errors.New("job_id must be a non-empty string")
			}
			wait := JobOutputDefaultWait
			if a.TimeoutMs != nil {
				if *a.TimeoutMs <= 0 {
					return jobOutputValue{}, errors.New("timeout_ms must be a positive number")
				}
				wait = min(time.Duration(*a.TimeoutMs*float64(time.Millisecond)), JobOutputMaxWait)
			}
			text, snap, err := jobs.Output(ctx, a.JobID, a.Wait, wait)
			return jobOutputValue{Text: text, Job: snap}, err
		},
		Render: func(_ jobOutputArgs, v jobOutputValue) ([]card.Content, error) {
			text := v.Text
			if text == "" {
				text = "(no new output)"
			}
			if !strings.HasSuffix(text, "\n") {
				text += "\n"
			}
			return []card.Content{card.Text(text + statusLine(v.Job))}, nil
		},
		FinalizeContent: capContent,
		PresentCall: func(a jobOutputArgs) card.CallView {
			return &card.Generic{Title: "Read output from background job " + a.JobID, Kind: card.KindRead}
		},
	})
	if err != nil {
		return nil, err
	}
	list, err := registry.Define(registry.TypedTool[struct{}, []JobSnapshot]{
		Name:        "job_list",
		Description: "List this session's background jobs and their status.",
		Execute: func(context.Context, struct{}, registry.RunContext) ([]JobSnapshot, error) {
			return jobs.List(), nil
		},
		Render: func(_ struct{}, v []JobSnapshot) ([]card.Content, error) {
			if len(v) == 0 {
				return []card.Content{card.Text("(no background jobs)")}, nil
			}
			lines := make([]string, len(v))
			for i, s := range v {
				lines[i] = s.ID + " [" + s.Kind + "] " + s.Status + " — " + s.Label
			}
			return []card.Content{card.Text(strings.Join(lines, "\n"))}, nil
		},
		PresentCall: func(struct{}) card.CallView {
			return &card.Generic{Title: "List background jobs", Kind: card.KindRead}
		},
	})
	if err != nil {
		return nil, err
	}
	kill, err := registry.Define(registry.TypedTool[jobKillArgs, jobKillValue]{
		Name:        "job_kill",
		Description: "Stop a background job and everything it started.",
		Execute: func(_ context.Context, a jobKillArgs, _ registry.RunContext) (jobKillValue, error) {
			if strings.TrimSpace(a.JobID) == "" {
				return jobKillValue{}, errors.New("job_id must be a non-empty string")
			}
			finished, snap, err := jobs.Kill(a.JobID, a.Reason)
			if err != nil {
				return jobKillValue{}, err
			}
			if finished {
				return jobKillValue{Outcome: "already-finished", Job: snap}, nil
			}
			return jobKillValue{Outcome: "cancellation-requested", Job: snap}, nil
		},
		Render: func(_ jobKillArgs, v jobKillValue) ([]card.Content, error) {
			what := "cancellation requested"
			if v.Outcome == "already-finished" {
				what = "already finished"
			}
			return []card.Content{card.Text("job " + v.Job.ID + ": " + what + "\n" + statusLine(v.Job))}, nil
		},
		FinalizeContent: capContent,
		PresentCall: func(a jobKillArgs) card.CallView {
			return &card.Generic{Title: "Stop background job " + a.JobID, Kind: card.KindExecute}
		},
	})
	if err != nil {
		return nil, err
	}
	return []*registry.Tool{output, list, kill}, nil
}
