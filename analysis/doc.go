// Package analysis turns verdict counts into evidence: binomial rates with
// intervals, comparisons of two or several groups, trend and drift tests,
// power and sample size, bootstrap intervals, and falsification claims
// evaluated as data.
//
// Inputs are plain counts (Count: "successes" are violations over valid
// runs) or verdict rows (Outcome) reduced by Tally. Functions follow gonum's
// stat style: full statistical names, a formula and a reference in each doc
// comment. Programmer errors (a confidence level outside (0, 1), mismatched
// slice lengths) panic with the prefix "analysis: "; data problems (no
// trials, more successes than trials) return errors.
//
// Every numeric result is checked in the tests against values computed
// independently with SciPy 1.10.1 (offline) or taken from R documentation
// examples and published tables (Newcombe 1998, Agresti); each test names
// its source.
package analysis
