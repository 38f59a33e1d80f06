package discovery

import (
	"testing"
	"time"

	"github.com/skillstore/skillstore/internal/testutil"
)

// Builds is how many artifact builds p started.
func Builds(p *Publisher) int64 { return p.artifacts.Builds() }

// LimitCachesForTest empties p's body caches and bounds them: mem bytes
// in memory (bodies up to a quarter of it each), disk bytes on disk. The
// kinds, digests and sizes built are kept.
func LimitCachesForTest(p *Publisher, mem, disk int64) { p.artifacts.Limit(mem, mem/4, disk) }

// WaitForTest waits until no build of p's is running.
func WaitForTest(t testing.TB, p *Publisher) {
	testutil.Eventually(t, "the .well-known builds ended", func() bool { return !p.indexes.Running() && !p.artifacts.Running() })
}

// ExpireIndexForTest makes p build its next index afresh.
func ExpireIndexForTest(p *Publisher) {
	p.index.mu.Lock()
	p.index.built = time.Time{}
	p.index.mu.Unlock()
}
