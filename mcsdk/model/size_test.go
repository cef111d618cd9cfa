package model

import "testing"

// TestParseSize: the one size syntax of weft (model bounds, the CLI's
// size flags, the kernel's WEFT_CELL_MEMORY): a count of bytes with an
// optional binary unit, in either spelling and any case.
func TestParseSize(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int64
		bad  bool
	}{
		{in: "0", want: 0},
		{in: "1048576", want: 1 << 20},
		{in: "512B", want: 512},
		{in: "64KiB", want: 64 << 10},
		{in: "64K", want: 64 << 10},
		{in: "64kb", want: 64 << 10},
		{in: "512 MiB", want: 512 << 20},
		{in: "512m", want: 512 << 20},
		{in: "2GiB", want: 2 << 30},
		{in: "2G", want: 2 << 30},
		{in: "2GB", want: 2 << 30},
		{in: " 3g ", want: 3 << 30},
		{in: "1TiB", want: 1 << 40},
		{in: "1T", want: 1 << 40},
		{in: "", bad: true},
		{in: "G", bad: true},
		{in: "lots", bad: true},
		{in: "2X", bad: true},
		{in: "-1G", bad: true},
		{in: "1.5G", bad: true},
		{in: "99999999999G", bad: true},
		{in: "4611686018427387905", bad: true}, // 2^62+1: over the bound
	} {
		got, err := ParseSize(c.in)
		switch {
		case c.bad && err == nil:
			t.Errorf("ParseSize(%q) = %d, want an error", c.in, got)
		case !c.bad && err != nil:
			t.Errorf("ParseSize(%q): %v", c.in, err)
		case !c.bad && got != c.want:
			t.Errorf("ParseSize(%q) = %d, want %d", c.in, got, c.want)
		}
	}
}
