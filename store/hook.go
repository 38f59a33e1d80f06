package store

import "github.com/skillstore/skillstore/internal/storehook"

// The read hook, for tests outside this package (see storehook.SetRead).
func init() {
	storehook.SetRead = func(s any, hook func(skill, path string)) {
		s.(*Store).readHook = func(sk *Skill, p string) { hook(sk.Name, p) }
	}
}
