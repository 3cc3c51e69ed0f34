package registry

import (
	"errors"
	"slices"
	"testing"
)

func TestScope_Dispose(t *testing.T) {
	reg := New(WithCodeMode())
	parent := reg.NewScope("parent", nil)
	child := reg.NewScope("child", parent)
	if _, err := reg.Register(rawTool("global"), nil); err != nil {
		t.Fatal(err)
	}
	if _, err := reg.Register(rawTool("mine"), parent); err != nil {
		t.Fatal(err)
	}
	if _, err := reg.Restrict(parent, Restriction{Deny: []string{"global"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := reg.PresentAs(parent, Both); err != nil {
		t.Fatal(err)
	}
	var changes []string
	reg.OnChange(func(c Change) error {
		changes = append(changes, c.Name)
		return errors.New("a failing listener cannot stop a disposal")
	})
	hooked := 0
	parent.OnDispose(func() { hooked++ })
	untied := parent.OnDispose(func() { t.Error("an untied hook ran") })
	untied()

	parent.Dispose()
	parent.Dispose()
	if hooked != 1 {
		t.Errorf("the hook ran %d times", hooked)
	}
	if !slices.Equal(changes, []string{"mine"}) {
		t.Errorf("changes %v", changes)
	}
	if reg.Get("mine", parent) != nil || reg.Get("mine", child) != nil {
		t.Error("the scope's tool is still visible")
	}
	if reg.Get("global", child) == nil {
		t.Error("the scope's restriction still hides a global tool from its child")
	}
	if reg.EffectivePresentation(child) != Native {
		t.Error("the scope's presentation outlived it")
	}
	if _, err := reg.Register(rawTool("late"), parent); !errors.Is(err, ErrScopeDisposed) {
		t.Errorf("registering on a disposed scope: %v", err)
	}
	ran := false
	parent.OnDispose(func() { ran = true })
	if !ran || !parent.Disposed() || child.Disposed() {
		t.Errorf("late hook ran %v, disposed %v, child disposed %v", ran, parent.Disposed(), child.Disposed())
	}
}
