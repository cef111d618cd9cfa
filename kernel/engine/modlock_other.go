//go:build !unix

package engine

import "os"

// lockModDir has no lock where flock is missing: a work module is
// removed only by its engine's Close.
func lockModDir(string) *os.File { return nil }
