package gcsblob_test

import (
	"slices"
	"testing"

	"github.com/skillstore/skillstore/backends"
	_ "github.com/skillstore/skillstore/backends/gcsblob"
)

// TestRegistered: importing the package adds its scheme to backends.Open.
func TestRegistered(t *testing.T) {
	if !slices.Contains(backends.Schemes(), "gs") {
		t.Errorf("schemes %v lack gs", backends.Schemes())
	}
}
