package azureblob_test

import (
	"slices"
	"testing"

	"github.com/skillstore/skillstore/backends"
	_ "github.com/skillstore/skillstore/backends/azureblob"
)

// TestRegistered: importing the package adds its scheme to backends.Open.
func TestRegistered(t *testing.T) {
	if !slices.Contains(backends.Schemes(), "azblob") {
		t.Errorf("schemes %v lack azblob", backends.Schemes())
	}
}
