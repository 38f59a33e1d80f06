package store

import (
	"testing"
	"time"
)

// TestDocModTime: Skill keeps SKILL.md's time in Unix nanoseconds, and
// gives it back as it was; none (the zero time, a zero Skill) stays none,
// apart from the Unix epoch.
func TestDocModTime(t *testing.T) {
	var zero Skill
	if !zero.DocModTime().IsZero() {
		t.Errorf("a zero Skill's DocModTime is %v", zero.DocModTime())
	}
	for _, when := range []time.Time{{}, time.Unix(0, 0), time.Unix(1, 0), time.Date(2026, 11, 28, 1, 2, 3, 4, time.UTC), time.Date(1700, 1, 1, 0, 0, 0, 0, time.UTC)} {
		sk := Skill{docMod: unixNano(when)}
		if got := sk.DocModTime(); !got.Equal(when) || got.IsZero() != when.IsZero() {
			t.Errorf("%v came back as %v", when, got)
		}
	}
	if unixNano(time.Time{}) == unixNano(time.Unix(0, 0)) {
		t.Error("the zero time and the Unix epoch are the same docMod")
	}
}
