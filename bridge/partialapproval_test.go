package bridge_test

import (
	"encoding/json"
	"strings"
	"testing"
)

// twoHunks is an edit of numbered(20) that changes l3 and l15: two hunks,
// @@ -1,6 +1,6 @@ and @@ -12,7 +12,7 @@.
func twoHunks(id string) fakeCall {
	old := strings.Join(strings.SplitAfter(numbered(15), "\n")[2:15], "")
	new := strings.Replace(strings.Replace(old, "l3\n", "L3\n", 1), "l15\n", "L15\n", 1)
	return fakeCall{id, "edit", args("file_path", "a.txt", "old_string", old, "new_string", new)}
}

// selectHunks answers a permission request with option and
// _meta.dsh.hunks = hunks (raw JSON), recording how many hunks each
// request offered (_meta.dsh.partialApproval.hunks; -1: not offered).
func selectHunks(option, hunks string, offered *[]int) func(json.RawMessage) any {
	return func(p json.RawMessage) any {
		var r struct {
			Meta struct {
				Dsh struct {
					PartialApproval *struct{ Hunks int } `json:"partialApproval"`
				} `json:"dsh"`
			} `json:"_meta"`
		}
		json.Unmarshal(p, &r)
		n := -1
		if r.Meta.Dsh.PartialApproval != nil {
			n = r.Meta.Dsh.PartialApproval.Hunks
		}
		*offered = append(*offered, n)
		return map[string]any{
			"outcome": map[string]any{"outcome": "selected", "optionId": option},
			"_meta":   map[string]any{"dsh": map[string]any{"hunks": json.RawMessage(hunks)}},
		}
	}
}

// TestBridge_PartialApproval: an answer that accepts some of the hunks a
// proposal offered applies exactly those, to an edit and to a write over
// a file, and the model is told which hunks were applied and which the
// person rejected, with their lines; "always" with hunks remembers nothing.
func TestBridge_PartialApproval(t *testing.T) {
	file := numbered(20)
	only15 := strings.Replace(file, "l15\n", "L15\n", 1)
	only3 := strings.Replace(file, "l3\n", "L3\n", 1)
	write := fakeCall{"e", "write", args("file_path", "a.txt", "content", strings.Replace(only15, "l3\n", "L3\n", 1))}
	for _, tc := range []struct {
		name         string
		call         fakeCall
		option       string
		hunks        string
		want         string
		told, notTol []string
	}{
		{"edit, the second hunk", twoHunks("e"), "allow_once", "[1]", only15,
			[]string{"approved 1 of the 2 proposed hunks", "(hunk 2)", "hunk 1 @@ -1,6 +1,6 @@\n-l3\n+L3"}, []string{"L15"}},
		{"edit, the first hunk", twoHunks("e"), "allow_once", "[0]", only3,
			[]string{"(hunk 1)", "hunk 2 @@ -12,7 +12,7 @@\n-l15\n+L15"}, []string{"-l3"}},
		{"edit, both in any order", twoHunks("e"), "allow_once", "[1, 0]", strings.Replace(only15, "l3\n", "L3\n", 1),
			[]string{"approved 2 of the 2", "(hunk 1, 2)"}, []string{"@@"}},
		{"write over a file, the first hunk", write, "allow_once", "[0]", only3,
			[]string{"Updated file", "approved 1 of the 2", "hunk 2 @@ -12,7 +12,7 @@\n-l15\n+L15"}, nil},
		{"always allow", twoHunks("e"), "allow_always", "[1]", only15,
			[]string{"approved 1 of the 2"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			second := tc.call
			second.id = "again"
			h := setup(t, cardCaps(), fakeTurn{calls: []fakeCall{tc.call}}, fakeTurn{calls: []fakeCall{second}}, fakeTurn{text: "ok"})
			h.file("a.txt", file)
			var offered []int
			answer := selectHunks(tc.option, tc.hunks, &offered)
			var after string
			h.onPermission = func(p json.RawMessage) any {
				if len(offered) == 1 { // the second call: note the file, reject it
					after = h.content("a.txt")
					offered = append(offered, 0)
					return selectOption("reject_once")(p)
				}
				return answer(p)
			}
			h.prompt(h.session, "change it")
			if after == "" {
				t.Fatalf("the second call was not asked about (asked %d times): always with hunks remembered", len(offered))
			}
			if after != tc.want {
				t.Errorf("a.txt =\n%s\nwant\n%s", after, tc.want)
			}
			if offered[0] != 2 {
				t.Errorf("the request offered %d hunks, want 2", offered[0])
			}
			got := h.toolMessages(1)["e"]
			for _, s := range tc.told {
				if !strings.Contains(got, s) {
					t.Errorf("the model was not told %q:\n%s", s, got)
				}
			}
			for _, s := range tc.notTol {
				if strings.Contains(got, s) {
					t.Errorf("the model was told %q:\n%s", s, got)
				}
			}
		})
	}
}

// TestBridge_PartialApprovalRefused: a selection that is no selection of
// the proposal's hunks refuses the call with a result saying why, and
// nothing is written; an empty one rejects.
func TestBridge_PartialApprovalRefused(t *testing.T) {
	file := numbered(20)
	create := fakeCall{"e", "write", args("file_path", "new.txt", "content", "fresh\n")}
	for _, tc := range []struct {
		name    string
		call    fakeCall
		hunks   string
		offered int
		told    string
	}{
		{"out of range", twoHunks("e"), "[2]", 2, "hunk index out of range: 2 (the proposal has 2 hunks, 0 to 1)"},
		{"negative", twoHunks("e"), "[0, -1]", 2, "hunk index out of range: -1"},
		{"twice", twoHunks("e"), "[1, 1]", 2, "hunk index given twice: 1"},
		{"not indices", twoHunks("e"), `["0"]`, 2, "_meta.dsh.hunks is not a list of hunk indices"},
		{"not a list", twoHunks("e"), `{"0": true}`, 2, "_meta.dsh.hunks is not a list of hunk indices"},
		{"a call without hunks", create, "[0]", -1, "the call proposed no hunks to choose from"},
		{"none accepted", twoHunks("e"), "[]", 2, `the user rejected every hunk of tool "edit"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := setup(t, cardCaps(), fakeTurn{calls: []fakeCall{tc.call}}, fakeTurn{text: "ok"})
			h.file("a.txt", file)
			var offered []int
			h.onPermission = selectHunks("allow_once", tc.hunks, &offered)
			h.prompt(h.session, "change it")
			if got := h.content("a.txt"); got != file {
				t.Errorf("a.txt was written:\n%s", got)
			}
			if got := h.content("new.txt"); got != "" {
				t.Errorf("new.txt was written: %q", got)
			}
			if len(offered) != 1 || offered[0] != tc.offered {
				t.Errorf("the requests offered %v hunks, want [%d]", offered, tc.offered)
			}
			if got := h.toolMessages(1)["e"]; !strings.Contains(got, tc.told) || !strings.HasPrefix(got, "Error: ") {
				t.Errorf("the model got %q, want a failure saying %q", got, tc.told)
			}
			if got := finalStatus(h.toolUpdates("e")); got != "failed" {
				t.Errorf("the card ended %q, want failed", got)
			}
		})
	}
}

// TestBridge_PartialApprovalOfAChangedFile: the accepted hunks are applied
// to the file as it is at approval time; when it changed where they apply,
// the call fails cleanly and the file keeps the other change.
func TestBridge_PartialApprovalOfAChangedFile(t *testing.T) {
	file := numbered(20)
	for _, tc := range []struct {
		name, changed, want, told string
	}{
		{"changed elsewhere", strings.Replace(file, "l8\n", "X8\n", 1), strings.Replace(strings.Replace(file, "l8\n", "X8\n", 1), "l15\n", "L15\n", 1), "approved 1 of the 2"},
		{"changed in the hunk", strings.Replace(file, "l14\n", "X14\n", 1), strings.Replace(file, "l14\n", "X14\n", 1), "the file changed since the change was proposed"},
		{"lines added above", "new\n" + file, "new\n" + file, "no longer apply"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := setup(t, cardCaps(), fakeTurn{calls: []fakeCall{twoHunks("e")}}, fakeTurn{text: "ok"})
			h.file("a.txt", file)
			var offered []int
			answer := selectHunks("allow_once", "[1]", &offered)
			h.onPermission = func(p json.RawMessage) any {
				h.file("a.txt", tc.changed)
				return answer(p)
			}
			h.prompt(h.session, "change it")
			if got := h.content("a.txt"); got != tc.want {
				t.Errorf("a.txt =\n%s\nwant\n%s", got, tc.want)
			}
			if got := h.toolMessages(1)["e"]; !strings.Contains(got, tc.told) {
				t.Errorf("the model got %q, want %q", got, tc.told)
			}
		})
	}
}
