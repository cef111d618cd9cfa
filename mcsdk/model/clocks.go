package model

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
)

// Bounds on clock faults: a rate error of at most 10% and offsets and
// jumps of at most a day.
const (
	maxDriftPPM   = 100_000
	maxClockUS    = 86_400_000_000
	maxClockJumps = 10_000
)

// defaultClockJump is the size (µs) of a clock step when the model sets
// clock_jumps without clock_jump: up to a second either way.
const defaultClockJump = "uniform:-1000000-1000000"

// ClockFaults are [faults] clock_offset, clock_drift_ppm, clock_jumps
// and clock_jump, parsed at load (Faults.Clock).
type ClockFaults struct {
	Offset, DriftPPM, Jump SignedRange
	Jumps                  int
}

// Any reports whether the model asks for any clock fault.
func (c ClockFaults) Any() bool {
	return c.Offset.lo != 0 || c.Offset.hi != 0 || c.DriftPPM.lo != 0 || c.DriftPPM.hi != 0 || c.Jumps > 0
}

// SignedRange is "constant:X" or "uniform:A-B" over signed integers.
type SignedRange struct {
	lo, hi int64
	text   string
}

// parseSignedRange parses a signed distribution whose values must lie in
// [-bound, bound]; "" is constant 0.
func parseSignedRange(s string, bound int64) (SignedRange, error) {
	if s == "" {
		return SignedRange{text: "constant:0"}, nil
	}
	kind, arg, ok := strings.Cut(s, ":")
	num := func(x string) (int64, error) {
		v, err := strconv.ParseInt(strings.TrimSpace(x), 10, 64)
		if err != nil || v < -bound || v > bound {
			return 0, fmt.Errorf("%q: %q is not an integer between %d and %d", s, x, -bound, bound)
		}
		return v, nil
	}
	r := SignedRange{text: s}
	var err error
	switch {
	case !ok:
		err = fmt.Errorf("%q: want constant:X or uniform:A-B (signed integers)", s)
	case kind == "constant":
		r.lo, err = num(arg)
		r.hi = r.lo
	case kind == "uniform":
		// The separator is the first '-' after the lower bound's own sign.
		i := strings.Index(strings.TrimSpace(arg)[1:], "-")
		if i < 0 {
			return r, fmt.Errorf("%q: want uniform:A-B", s)
		}
		a := strings.TrimSpace(arg)
		if r.lo, err = num(a[:i+1]); err == nil {
			r.hi, err = num(a[i+2:])
		}
		if err == nil && r.hi < r.lo {
			err = fmt.Errorf("%q: upper bound below lower bound", s)
		}
	default:
		err = fmt.Errorf("%q: unknown distribution %q (want constant:X or uniform:A-B)", s, kind)
	}
	return r, err
}

// Draw draws a value uniformly in the range; a constant draws nothing.
func (d SignedRange) Draw(r *rand.Rand) int64 {
	if d.hi == d.lo {
		return d.lo
	}
	return d.lo + r.Int64N(d.hi-d.lo+1)
}

// clocks checks the [faults] clock keys and records them parsed.
func (v *sectionCheck) clocks() {
	f := &v.m.Faults
	f.Clock = ClockFaults{Jumps: f.ClockJumps}
	for _, k := range []struct {
		key, text string
		bound     int64
		into      *SignedRange
	}{
		{"clock_offset", f.ClockOffset, maxClockUS, &f.Clock.Offset},
		{"clock_drift_ppm", f.ClockDriftPPM, maxDriftPPM, &f.Clock.DriftPPM},
		{"clock_jump", orDefault(f.ClockJump, defaultClockJump), maxClockUS, &f.Clock.Jump},
	} {
		r, err := parseSignedRange(k.text, k.bound)
		if err != nil {
			v.at("faults."+k.key, nil, "faults.%s: %v", k.key, err)
		}
		*k.into = r
	}
	if f.ClockJumps < 0 || f.ClockJumps > maxClockJumps {
		v.at("faults.clock_jumps", nil, "faults.clock_jumps = %d: want between 0 and %d", f.ClockJumps, maxClockJumps)
	}
	if f.ClockJump != "" && f.ClockJumps == 0 {
		v.at("faults.clock_jump", nil, "faults.clock_jump needs clock_jumps (how many steps to draw)")
	}
}

// orDefault is s, or d if s is empty.
func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}
