package lru

import "testing"

func TestByteAccounting(t *testing.T) {
	c := New[string, string](100)
	steps := []struct {
		key       string
		size      int64
		wantBytes int64
		wantLen   int
	}{
		{"a", 40, 40, 1},
		{"b", 40, 80, 2},
		{"a", 10, 50, 2},  // replacing subtracts the old size
		{"c", 60, 70, 2},  // evicts b, the least recently used
		{"d", 101, 70, 2}, // larger than the budget: not stored
		{"c", 101, 10, 1}, // an oversize replacement drops the old value
	}
	for i, s := range steps {
		c.Add(s.key, s.key, s.size)
		if st := c.Stats(); st.Bytes != s.wantBytes || st.Entries != s.wantLen {
			t.Fatalf("step %d: %+v; want %d bytes in %d entries", i, st, s.wantBytes, s.wantLen)
		}
	}
	if _, ok := c.Get("b"); ok {
		t.Error("b should have been evicted")
	}
	c.Remove("a")
	if st := c.Stats(); st.Bytes != 0 || st.Entries != 0 || st.Evictions != 1 {
		t.Errorf("after Remove: %+v", st)
	}
}
