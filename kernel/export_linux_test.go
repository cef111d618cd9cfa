//go:build linux

package kernel

// Descendants exports descendants to the external tests.
var Descendants = descendants
