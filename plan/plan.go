package plan

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/dsh-bridge/dsh-bridge/registry"
)

// ToolName is the plan tool's model-facing name.
const ToolName = "todo_write"

// MaxItems caps a plan's length.
const MaxItems = 100

// Item is one item of the plan.
type Item struct {
	Content  string `json:"content" desc:"What this step does, in a short imperative sentence."`
	Status   string `json:"status" enum:"pending,in_progress,completed" desc:"pending, in_progress (the one being worked on) or completed."`
	Priority string `json:"priority,omitempty" enum:"high,medium,low" desc:"high, medium (the default) or low."`
}

// Args are todo_write's arguments.
type Args struct {
	Todos []Item `json:"todos" desc:"The whole plan, every item each time, in order."`
}

// Parse reads the plan from todo_write's arguments; items without a
// priority get "medium". It checks what the schema checks, for a log
// written by another version.
func Parse(arguments []byte) ([]Item, error) {
	var a Args
	if err := json.Unmarshal(arguments, &a); err != nil {
		return nil, err
	}
	return a.Todos, check(a.Todos)
}

func check(items []Item) error {
	if len(items) > MaxItems {
		return fmt.Errorf("a plan has at most %d items, got %d", MaxItems, len(items))
	}
	for i := range items {
		it := &items[i]
		if strings.TrimSpace(it.Content) == "" {
			return fmt.Errorf("todos[%d].content is empty", i)
		}
		switch it.Status {
		case "pending", "in_progress", "completed":
		default:
			return fmt.Errorf("todos[%d].status %q is not pending, in_progress or completed", i, it.Status)
		}
		switch it.Priority {
		case "":
			it.Priority = "medium"
		case "high", "medium", "low":
		default:
			return fmt.Errorf("todos[%d].priority %q is not high, medium or low", i, it.Priority)
		}
	}
	return nil
}

// Tool returns a new todo_write definition.
func Tool() (*registry.Tool, error) {
	t, err := registry.Define(registry.TypedTool[Args, string]{
		Name: ToolName,
		Description: "Write the plan of multi-step work, shown to the user as a checklist. Send the whole list each time, " +
			"with one item in_progress while you work on it and each marked completed when done; an empty list removes the plan.",
		Execute: func(_ context.Context, a Args, _ registry.RunContext) (string, error) {
			if err := check(a.Todos); err != nil {
				return "", err
			}
			if len(a.Todos) == 0 {
				return "The plan was removed.", nil
			}
			done := 0
			for _, it := range a.Todos {
				if it.Status == "completed" {
					done++
				}
			}
			return fmt.Sprintf("The plan has %d items, %d completed.", len(a.Todos), done), nil
		},
	})
	if err != nil {
		return nil, err
	}
	t.Effect = registry.EffectRead // no side effect: never asks
	return t, nil
}
