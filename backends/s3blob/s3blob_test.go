package s3blob_test

import (
	"slices"
	"testing"

	"github.com/skillstore/skillstore/backends"
	_ "github.com/skillstore/skillstore/backends/s3blob"
)

// TestRegistered: importing the package adds its scheme to backends.Open.
func TestRegistered(t *testing.T) {
	if !slices.Contains(backends.Schemes(), "s3") {
		t.Errorf("schemes %v lack s3", backends.Schemes())
	}
}
