package skilldiff

// op is one step of an edit script from lines a to lines b.
type op uint8

const (
	opEq  op = iota // a line of both: a's next line equals b's next line
	opDel           // a's next line is dropped
	opIns           // b's next line is inserted
)

// The default bounds of the line diff (Options.MaxEdits and the work cap).
const (
	// DefaultMaxEdits bounds the edit distance, in lines, the line diff
	// searches for: its memory grows as the square of it (4 MB at 1000),
	// its time as the lines times it.
	DefaultMaxEdits = 1000
	// maxWork bounds the steps of one line diff (line comparisons and
	// diagonals tried): about a tenth of a second.
	maxWork = 64 << 20
)

// lineDiff is the edit script from a to b, lines by their IDs: common
// lines at both ends are matched first, then the middle by Myers'
// algorithm ("An O(ND) difference algorithm", 1986), which finds a
// shortest script. When the middle needs more than maxEdits edits, or
// more than maxWork steps, the middle is replaced whole (every line of
// a's middle dropped, every line of b's inserted): still a correct
// script, not a shortest one; exact reports which.
func lineDiff(a, b []int32, maxEdits int) (ops []op, exact bool) {
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	ma, mb := a[pre:len(a)-suf], b[pre:len(b)-suf]
	ops = make([]op, 0, len(a)+len(b)-pre-suf)
	for range pre {
		ops = append(ops, opEq)
	}
	mid, exact := myers(ma, mb, maxEdits)
	if exact {
		ops = append(ops, mid...)
	} else {
		for range ma {
			ops = append(ops, opDel)
		}
		for range mb {
			ops = append(ops, opIns)
		}
	}
	for range suf {
		ops = append(ops, opEq)
	}
	return ops, exact
}

// myers is a shortest edit script from a to b, or ok false when it has
// more than maxD edits or takes more than maxWork steps. It keeps the
// furthest point of every diagonal after each edit count d, (d+1)² int32
// in all.
func myers(a, b []int32, maxD int) ([]op, bool) {
	n, m := len(a), len(b)
	if n == 0 || m == 0 {
		ops := make([]op, 0, n+m)
		for range n {
			ops = append(ops, opDel)
		}
		for range m {
			ops = append(ops, opIns)
		}
		return ops, true
	}
	maxD = min(maxD, n+m)
	// trace[d][k+d] is the furthest x on diagonal k (x-y) with d edits,
	// or -1 when none is in the grid.
	var trace [][]int32
	work := 0
	for d := 0; d <= maxD; d++ {
		v := make([]int32, 2*d+1)
		for k := -d; k <= d; k += 2 {
			x, _ := furthest(trace, d, k, n, m)
			if x < 0 {
				v[k+d] = -1
				continue
			}
			y, sx := x-k, x
			for x < n && y < m && a[x] == b[y] {
				x++
				y++
			}
			work += x - sx
			v[k+d] = int32(x)
			if x == n && y == m {
				trace = append(trace, v)
				return backtrack(trace, d, n, m), true
			}
		}
		trace = append(trace, v)
		if work += d + 1; work > maxWork {
			return nil, false
		}
	}
	return nil, false
}

// at is the furthest x on diagonal k after d edits, -1 when none.
func at(trace [][]int32, d, k int) int {
	if d < 0 || k < -d || k > d {
		return -1
	}
	return int(trace[d][k+d])
}

// furthest is where diagonal k starts with d edits, before its snake:
// one edit from diagonal k+1 (an insertion, down) or k-1 (a deletion,
// right), whichever reaches further in the grid; from is that diagonal.
// x is -1 when neither is in the grid. d 0 starts at (0, 0).
func furthest(trace [][]int32, d, k, n, m int) (x, from int) {
	if d == 0 {
		return 0, 0
	}
	x, from = -1, 0
	if down := at(trace, d-1, k+1); down >= 0 && down-k <= m {
		x, from = down, k+1
	}
	if right := at(trace, d-1, k-1); right >= 0 && right+1 <= n && right+1 > x {
		x, from = right+1, k-1
	}
	return x, from
}

// backtrack walks the trace back from (n, m), reached with d edits.
func backtrack(trace [][]int32, d, n, m int) []op {
	ops := make([]op, 0, n+m)
	x, y := n, m
	for ; d > 0; d-- {
		k := x - y
		sx, from := furthest(trace, d, k, n, m)
		for x > sx { // the snake: equal lines
			ops = append(ops, opEq)
			x--
			y--
		}
		if from == k+1 {
			ops = append(ops, opIns)
			y--
		} else {
			ops = append(ops, opDel)
			x--
		}
	}
	for ; x > 0; x-- {
		ops = append(ops, opEq)
	}
	for i, j := 0, len(ops)-1; i < j; i, j = i+1, j-1 {
		ops[i], ops[j] = ops[j], ops[i]
	}
	return ops
}
