package main

import "testing"

// TestArgQuote: a program run's rerun line can be pasted into a shell:
// empty and spaced arguments are quoted, placeholders are not.
func TestArgQuote(t *testing.T) {
	for _, tc := range []struct{ arg, want string }{
		{"--save", "--save"},
		{"", "''"},
		{"{id}", "{id}"},
		{"127.0.0.1:{port}", "127.0.0.1:{port}"},
		{"{a,b}", "'{a,b}'"},
		{"two words", "'two words'"},
		{"it's", `'it'\''s'`},
		{"{port} x", "'{port} x'"},
	} {
		if got := argQuote(tc.arg); got != tc.want {
			t.Errorf("argQuote(%q) = %s, want %s", tc.arg, got, tc.want)
		}
	}
}
