// Package charts draws weft's analysis charts with go-echarts and renders
// them so that they work with no network at all.
//
// Every chart is built from plain Go rows defined here (RateBar,
// InvariantCount, RunRate, Outcome, DepthCount, ThroughputPoint, TraceEvent),
// so callers convert their own tables without this package importing theirs.
// A *Chart renders three ways:
//
//   - HTML: a notebook fragment, a <div> plus <script>s that draw as soon as
//     they run (no load events), inlining echarts once per fragment behind an
//     `if (!window.echarts)` guard;
//   - Page / WriteFile: a standalone HTML page with echarts inlined and a
//     Content-Security-Policy that forbids every network fetch;
//   - Element: the <div> plus drawing <script> alone, for pages such as a
//     report that inline the library once themselves (CSPMeta and
//     Library.Script in their <head>; see ExampleLibrary_Script).
//
// Package browsertest (below this one) opens such pages in headless
// Chromium and reports whether every chart painted, with no console errors
// and no network requests.
//
// The echarts JavaScript is never committed: scripts/setup.sh installs the
// npm package into build/js, and LoadLibrary finds it there (or in
// $WEFT_JS_DIR). Output is a pure function of the inputs: element ids come
// from the chart's name and a hash of its content, map keys are sorted and
// no clock or random source is read, so rendering twice gives equal bytes.
package charts
