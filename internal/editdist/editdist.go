// Package editdist measures how far apart two short strings are, for
// "did you mean" suggestions (the access policy's keys, the CLI's skill
// names).
package editdist

// maxLen bounds the strings Distance compares: a longer one is far from
// everything (the cost is quadratic in the lengths).
const maxLen = 128

// Distance is the Levenshtein distance of a and b, bytewise, or limit+1
// once it is certain to be more than limit (or a string is over 128
// bytes).
func Distance(a, b string, limit int) int {
	if len(a) > maxLen || len(b) > maxLen {
		return limit + 1
	}
	if d := len(a) - len(b); d > limit || -d > limit {
		return limit + 1
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		best := cur[0]
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			best = min(best, cur[j])
		}
		if best > limit {
			return limit + 1
		}
		prev, cur = cur, prev
	}
	return min(prev[len(b)], limit+1)
}
