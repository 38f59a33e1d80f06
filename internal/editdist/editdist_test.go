package editdist

import "testing"

func TestDistance(t *testing.T) {
	tests := []struct {
		a, b  string
		limit int
		want  int
	}{
		{"", "", 2, 0},
		{"calculator", "calculator", 2, 0},
		{"calculater", "calculator", 2, 1},
		{"cmomit", "commit", 2, 2},
		{"kitten", "sitting", 5, 3},
		{"kitten", "sitting", 2, 3}, // past the limit: limit+1
		{"a", "abcdef", 2, 3},
		{string(make([]byte, 200)), string(make([]byte, 200)), 2, 3},
	}
	for _, tt := range tests {
		if got := Distance(tt.a, tt.b, tt.limit); got != tt.want {
			t.Errorf("Distance(%q, %q, %d) = %d, want %d", tt.a, tt.b, tt.limit, got, tt.want)
		}
	}
}
