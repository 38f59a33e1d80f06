//go:build !linux

package search_test

import "time"

// threadCPU is measured on Linux only.
func threadCPU() time.Duration { return 0 }
