// Package report turns one or several campaign datasets into a standalone
// falsification report: a single HTML file that opens offline and says what
// was run, what the data show and which predictions survived.
//
// A report holds, in order:
//
//   - the title, the model and its variants, from the manifests (model path
//     and hash, binary hashes, seeds, tool version, machines, wall time);
//   - one row per variant: runs, valid, invalid, violated, errors and the
//     violation rate with its Wilson 95 % interval;
//   - the standard statistics of analysis.Summarize (pairwise Fisher tests
//     with Holm's correction, trend, drift across runs);
//   - charts: rates with error bars, violations by invariant, the
//     seed × variant outcome map, and drift when a variant has several runs;
//   - falsification claims: by default the ordering claim
//     rate(v1) > rate(v2) > … > rate(vk) over the variants in manifest order,
//     then any claims the caller adds;
//   - one traced failure per variant (its lowest violating seed that has a
//     recording): a timeline chart of the recording, the last state changes
//     up to the first violation, and the commands that reproduce it.
//
// The page inlines its CSS and echarts once, carries a Content-Security-Policy
// that forbids every fetch, and is a pure function of its inputs: the same
// datasets, options and echarts give the same bytes (the only times shown are
// the campaigns' own, from their manifests).
package report
