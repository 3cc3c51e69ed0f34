package main

import (
	"encoding/json"
	"fmt"
)

// Repository is dsh-bridge's home, and releaseURL where its release
// archives are published.
const (
	Repository = "https://github.com/dsh-bridge/dsh-bridge"
	releaseURL = Repository + "/releases/download/v%s/%s"
)

// License is the registry's licence field: package.json says UNLICENSED
// (no licence granted) and the repository has chosen none, which the
// registry spells "proprietary". The owner's choice replaces it and the
// placeholder LICENSE.
const License = "proprietary"

type binaryTarget struct {
	Archive string `json:"archive"`
	Cmd     string `json:"cmd"`
}

type agentEntry struct {
	ID           string                             `json:"id"`
	Name         string                             `json:"name"`
	Version      string                             `json:"version"`
	Description  string                             `json:"description"`
	Repository   string                             `json:"repository"`
	License      string                             `json:"license"`
	Icon         string                             `json:"icon"`
	Distribution map[string]map[string]binaryTarget `json:"distribution"`
}

// agentJSON is the registry entry of version: a binary distribution for
// every target, cmd naming the bridge at the archive's top level, where
// the archives put it.
func agentJSON(version string) ([]byte, error) {
	bin := map[string]binaryTarget{}
	for _, t := range all {
		bin[t.platform()] = binaryTarget{
			Archive: fmt.Sprintf(releaseURL, version, t.archiveName(version)),
			Cmd:     cmdOf(t),
		}
	}
	e := agentEntry{
		ID:      "dsh-bridge",
		Name:    "dsh-bridge",
		Version: version,
		Description: "A coding agent for DeepSeek and other OpenAI-compatible models: every tool call a card in the editor " +
			"(diffs, highlighted reads, live terminals), every approval a permission prompt",
		Repository:   Repository,
		License:      License,
		Icon:         "./icon.svg",
		Distribution: map[string]map[string]binaryTarget{"binary": bin},
	}
	b, err := json.MarshalIndent(e, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// cmdOf is the registry's cmd for t: ./dsh-bridge, or dsh-bridge.exe on
// Windows (the registry's own examples).
func cmdOf(t target) string {
	if t.goos == "windows" {
		return "dsh-bridge.exe"
	}
	return "./dsh-bridge"
}
