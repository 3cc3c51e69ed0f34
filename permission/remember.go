package permission

// The answers a person gave with "always": a session remembers them
// itself, since many clients do not.

// Remember records an "always" answer for keys.
func (p *Policy) Remember(keys []string, allow bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, k := range keys {
		if allow {
			p.always[k] = true
		} else {
			p.never[k] = true
		}
	}
}

func (p *Policy) remembered(key string) (always, never bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.always[key], p.never[key]
}

// rememberedCommand is remembered for s's key (commandKey), which it
// builds only when some answer is remembered: a command is looked up
// several times a decision, and most sessions remember nothing.
func (p *Policy) rememberedCommand(tool string, s Simple) (always, never bool) {
	p.mu.Lock()
	none := len(p.always) == 0 && len(p.never) == 0
	p.mu.Unlock()
	if none {
		return false, false
	}
	return p.remembered(commandKey(tool, s))
}
