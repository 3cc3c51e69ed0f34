package acp

import "testing"

func TestOversizedID(t *testing.T) {
	for _, tc := range []struct {
		name, head, tail string
		id               string
		request          bool
	}{
		{"id first", `{"jsonrpc":"2.0","id":12,"result":{"content":"xxxx`, `xxxx"}}`, "12", false},
		{"id last", `{"jsonrpc":"2.0","result":{"content":"xxxx`, `xxxx"},"id":"abc"}`, `"abc"`, false},
		{"an id inside the content is escaped", `{"result":{"content":"say \"id\":7 `, `"},"id":3}`, "3", false},
		{"a request", `{"jsonrpc":"2.0","id":5,"method":"session/prompt","params":{"prompt":[{"text":"xx`, `xx"}]}}`, "5", true},
		{"no id", `{"jsonrpc":"2.0","method":"session/update","params":{"x":"`, `"}}`, "", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			id, req := oversizedID([]byte(tc.head), []byte(tc.tail))
			if string(id) != tc.id || req != tc.request {
				t.Errorf("id %s request %v, want %s %v", id, req, tc.id, tc.request)
			}
		})
	}
}
