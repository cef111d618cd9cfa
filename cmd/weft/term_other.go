//go:build !linux

package main

import "os"

// isTerminal reports whether f is a character device (a terminal, most
// likely); the Linux build asks the terminal driver itself.
func isTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// killChildren has nothing to do where weft runs no targets.
func killChildren() {}
