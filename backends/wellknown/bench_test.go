package wellknown

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sync/atomic"
	"testing"

	"github.com/skillstore/skillstore/discovery"
)

// roundTrip answers every request with the next of bodies, in turn.
type roundTrip struct {
	bodies [][]byte
	n      atomic.Int64
}

func (rt *roundTrip) RoundTrip(*http.Request) (*http.Response, error) {
	b := rt.bodies[int(rt.n.Add(1))%len(rt.bodies)]
	return &http.Response{StatusCode: http.StatusOK, Status: "200 OK", Header: http.Header{}, Body: io.NopCloser(bytes.NewReader(b))}, nil
}

// BenchmarkRefresh: a refresh that finds a changed index of n skills,
// every one of whose artifacts is kept (issue 17: at 20,000 entries the
// sweep of kept artifacts compared every digest with every entry). The
// time per refresh should grow about tenfold from 2,000 to 20,000.
func BenchmarkRefresh(b *testing.B) {
	for _, n := range []int{2_000, 20_000} {
		b.Run(fmt.Sprintf("entries=%d", n), func(b *testing.B) {
			var skills []map[string]string
			for i := range n {
				d := sha256.Sum256(fmt.Append(nil, i))
				skills = append(skills, map[string]string{"name": fmt.Sprintf("skill-%d", i), "type": "archive", "description": "x",
					"url": fmt.Sprintf("s/%d.zip", i), "digest": "sha256:" + hex.EncodeToString(d[:])})
			}
			body, err := json.Marshal(map[string]any{"$schema": discovery.Schema, "skills": skills})
			if err != nil {
				b.Fatal(err)
			}
			rt := &roundTrip{bodies: [][]byte{body, append(body, '\n')}} // the same skills, another hash
			s, err := Open("https://example.com/.well-known/agent-skills/", Options{Client: &http.Client{Transport: rt}})
			if err != nil {
				b.Fatal(err)
			}
			ctx := context.Background()
			if err := s.Refresh(ctx); err != nil {
				b.Fatal(err)
			}
			for digest := range s.cur.Load().digests { // every artifact kept
				done := make(chan struct{})
				close(done)
				d := &download{digest: digest, done: done, k: &kept{}, cancel: func() {}}
				d.elem = s.lru.PushFront(d)
				s.artifacts[digest] = d
			}
			b.ResetTimer()
			for b.Loop() {
				if err := s.Refresh(ctx); err != nil {
					b.Fatal(err)
				}
			}
			if len(s.artifacts) != n {
				b.Fatalf("%d artifacts kept; want %d", len(s.artifacts), n)
			}
		})
	}
}
