package analysis

import (
	"math"
	"testing"
)

// near reports whether got is within relative tolerance tol of want
// (absolute tolerance tol when want is zero).
func near(got, want, tol float64) bool {
	if got == want {
		return true
	}
	if want == 0 {
		return math.Abs(got) <= tol
	}
	return math.Abs(got-want) <= tol*math.Abs(want)
}

// checkNear fails t when got is not near want.
func checkNear(t *testing.T, what string, got, want, tol float64) {
	t.Helper()
	if !near(got, want, tol) {
		t.Errorf("%s = %.17g, want %.17g (rel tol %g, rel err %.3g)", what, got, want, tol, math.Abs(got-want)/math.Abs(want))
	}
}
