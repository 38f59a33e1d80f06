package registry

import (
	"context"
	"errors"
	"testing"
	"time"
)

// TestZipBudget: the downloads of one registry hold at most maxZipBytes
// of blobs at once; one that would pass it waits until bytes are given
// back, or its context ends.
func TestZipBudget(t *testing.T) {
	var z zipBudget
	ctx := context.Background()
	if err := z.take(ctx, maxZipBytes-10); err != nil {
		t.Fatal(err)
	}
	short, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
	defer cancel()
	if err := z.take(short, 11); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("a download past the budget: %v, want it to wait", err)
	}
	if err := z.take(ctx, 10); err != nil {
		t.Fatalf("a download within the budget: %v", err)
	}
	done := make(chan error)
	go func() { done <- z.take(ctx, 100) }()
	select {
	case err := <-done:
		t.Fatalf("took 100 bytes of a full budget: %v", err)
	case <-time.After(20 * time.Millisecond):
	}
	z.give(maxZipBytes - 10)
	if err := <-done; err != nil {
		t.Fatalf("after bytes were given back: %v", err)
	}
}
