package model

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// ModelSettings describes or corrects one model in the user's settings
// file: a gateway's price, a local model's window.
type ModelSettings struct {
	ContextWindow int64  `json:"contextWindow"`
	MaxOutput     int64  `json:"maxOutput"`
	Thinking      *bool  `json:"thinking"`
	Price         *Price `json:"price"` // US dollars per million tokens; no peak pricing
}

// CompactionSettings tunes when and how a long conversation is compacted.
type CompactionSettings struct {
	// Threshold is the share of the context window a request may fill
	// before the history is compacted (default 0.8).
	Threshold float64 `json:"threshold"`
	// ToolResultBudget is the share of the window that tool results may
	// keep before old ones are replaced by placeholders (default 0.25).
	ToolResultBudget float64 `json:"toolResultBudget"`
	// MaxToolResultBytes caps one tool result at its source (default
	// 100,000 bytes); the rest is dropped with a note.
	MaxToolResultBytes int `json:"maxToolResultBytes"`
}

// Settings is the model part of the user's settings file
// ($XDG_CONFIG_HOME/dsh-bridge/settings.json): only the user's file is
// read, never a workspace's.
type Settings struct {
	Models     map[string]ModelSettings `json:"models"`
	Compaction CompactionSettings       `json:"compaction"`
}

// LoadSettings reads the "models" and "compaction" keys of a settings
// file. A missing file is not an error; a malformed one is, and yields the
// defaults.
func LoadSettings(path string) (Settings, error) {
	var s Settings
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return s.withDefaults(), nil
	}
	if err != nil {
		return s.withDefaults(), err
	}
	if err := json.Unmarshal(data, &s); err != nil {
		return Settings{}.withDefaults(), fmt.Errorf("%s: %w", path, err)
	}
	for id, m := range s.Models {
		if m.ContextWindow < 0 || m.MaxOutput < 0 {
			return Settings{}.withDefaults(), fmt.Errorf("%s: models.%s: sizes must not be negative", path, id)
		}
		if p := m.Price; p != nil && (p.CacheHit < 0 || p.CacheMiss < 0 || p.Output < 0) {
			return Settings{}.withDefaults(), fmt.Errorf("%s: models.%s: prices must not be negative", path, id)
		}
	}
	c := s.Compaction
	if c.Threshold < 0 || c.Threshold > 1 || c.ToolResultBudget < 0 || c.ToolResultBudget > 1 || c.MaxToolResultBytes < 0 {
		return Settings{}.withDefaults(), fmt.Errorf("%s: compaction: threshold and toolResultBudget are shares between 0 and 1", path)
	}
	return s.withDefaults(), nil
}

func (s Settings) withDefaults() Settings {
	if s.Compaction.Threshold == 0 {
		s.Compaction.Threshold = 0.8
	}
	if s.Compaction.ToolResultBudget == 0 {
		s.Compaction.ToolResultBudget = 0.25
	}
	if s.Compaction.MaxToolResultBytes == 0 {
		s.Compaction.MaxToolResultBytes = 100_000
	}
	return s
}

// Defaults returns the settings used when the user wrote none.
func Defaults() Settings { return Settings{}.withDefaults() }
