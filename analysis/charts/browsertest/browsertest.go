// Package browsertest opens an HTML file in headless Chromium and reports
// whether every chart on it drew, what the page logged as errors and which
// network requests it made. weft's chart and report tests use it to prove
// that pages render offline.
//
// It drives Chromium through the DevTools protocol over
// --remote-debugging-pipe, so it needs no port and no websocket library.
package browsertest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// ChromiumEnv names an environment variable that overrides the browser path.
const ChromiumEnv = "WEFT_CHROMIUM"

// DefaultSelector matches the chart containers analysis/charts writes.
const DefaultSelector = "[data-weft-chart]"

// Options say how to open a page. The zero value is usable.
type Options struct {
	Chromium   string        // browser binary; Chromium() when empty
	Selector   string        // CSS selector of chart containers; DefaultSelector when empty
	Timeout    time.Duration // for the whole visit; 60 s when 0
	PaintWait  time.Duration // after the load event, how long charts may take to paint; 10 s when 0
	Width      int           // viewport in CSS pixels; 1280 when 0
	Height     int           // viewport in CSS pixels; 1024 when 0
	Screenshot bool          // if set, Result.Screenshot holds a PNG of the whole page
	ReadyExpr  string        // optional JavaScript expression; the page is settled only once it is true
	_          struct{}
}

// Container is what one chart container held once the page settled.
type Container struct {
	ID       string
	Kind     string // its data-weft-chart attribute
	Canvases int
	SVGs     int
	Painted  bool // a canvas has a non-transparent pixel, or an svg has shapes
}

// Result is what a visit saw.
type Result struct {
	URL        string
	Settled    bool // Options.ReadyExpr (if any) became true
	Containers []Container
	Errors     []string        // console errors, uncaught exceptions, error log entries, CSP violations
	Requests   []string        // every request other than the page itself (data: and blob: URLs excluded)
	Screenshot []byte          // PNG of the whole page when Options.Screenshot is set
	Value      json.RawMessage // what OpenURL's expression evaluated to (JSON), once the page settled
}

// Problems lists, in words, everything that makes the visit a failure: no
// containers, containers that did not paint, errors and network requests.
// An empty list means the page rendered offline and cleanly.
func (r *Result) Problems() []string {
	var ps []string
	if !r.Settled {
		ps = append(ps, "page never became ready (Options.ReadyExpr stayed false)")
	}
	if len(r.Containers) == 0 {
		ps = append(ps, "no chart containers found")
	}
	for _, c := range r.Containers {
		if !c.Painted {
			ps = append(ps, fmt.Sprintf("chart %s (%s) did not paint: %d canvas, %d svg", c.ID, c.Kind, c.Canvases, c.SVGs))
		}
	}
	for _, e := range r.Errors {
		ps = append(ps, "error: "+e)
	}
	for _, u := range r.Requests {
		ps = append(ps, "network request: "+u)
	}
	return ps
}

// Chromium returns the browser to use: $WEFT_CHROMIUM, else chromium (or
// chromium-browser, google-chrome) on PATH, else /usr/bin/chromium.
func Chromium() (string, error) {
	if p := os.Getenv(ChromiumEnv); p != "" {
		if _, err := os.Stat(p); err != nil {
			return "", fmt.Errorf("browsertest: %s=%s: %w", ChromiumEnv, p, err)
		}
		return p, nil
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p, nil
		}
	}
	if _, err := os.Stat("/usr/bin/chromium"); err == nil {
		return "/usr/bin/chromium", nil
	}
	return "", errors.New("browsertest: chromium not found; install Debian's chromium package (scripts/setup.sh does) or set " + ChromiumEnv)
}

// Require returns the browser path for a test. When there is none the test
// fails if CI=true and is skipped otherwise.
func Require(t testing.TB) string {
	t.Helper()
	p, err := Chromium()
	if err == nil {
		return p
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("%v (CI=true, so this fails instead of skipping)", err)
	}
	t.Skipf("%v; skipping (set CI=true to make this fail)", err)
	return ""
}

// Open loads the HTML file at path in a fresh headless Chromium with its own
// profile (see Browser.Open) and stops the browser again.
func Open(ctx context.Context, path string, o Options) (*Result, error) {
	b, err := Launch(ctx, o)
	if err != nil {
		return nil, err
	}
	defer b.Close()
	return b.Open(ctx, path)
}

// Open loads the HTML file at path in a new tab, waits for the load event and
// then until every chart container has painted (or PaintWait passed), and
// reports what it saw. It returns an error only when the browser could not be
// driven; rendering problems are in the Result (see Problems). Pages are
// opened one after another, each in its own tab, closed afterwards.
func (b *Browser) Open(ctx context.Context, path string) (*Result, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	if _, err := os.Stat(abs); err != nil {
		return nil, fmt.Errorf("browsertest: %w", err)
	}
	return b.OpenURL(ctx, (&url.URL{Scheme: "file", Path: abs}).String(), "")
}

// OpenURL loads pageURL (file:, or http: from a server such as weft serve)
// in a new tab as Open does and, when expr is not empty, evaluates that
// JavaScript expression once the page settled: its value, as JSON, is
// Result.Value. Requests to pageURL's own host are in Result.Requests like
// any other.
func (b *Browser) OpenURL(ctx context.Context, pageURL, expr string) (*Result, error) {
	ctx, cancel := context.WithTimeout(ctx, b.opts.Timeout)
	defer cancel()
	res, err := b.visit(ctx, pageURL, expr)
	if err != nil {
		return nil, fmt.Errorf("%w\nchromium output:\n%s", err, b.stderrTail())
	}
	return res, nil
}

func (o Options) withDefaults() Options {
	if o.Selector == "" {
		o.Selector = DefaultSelector
	}
	if o.Timeout <= 0 {
		o.Timeout = 60 * time.Second
	}
	if o.PaintWait <= 0 {
		o.PaintWait = 10 * time.Second
	}
	if o.Width <= 0 {
		o.Width = 1280
	}
	if o.Height <= 0 {
		o.Height = 1024
	}
	return o
}

// Browser is one running headless Chromium with a throw-away profile.
type Browser struct {
	opts    Options
	cmd     *exec.Cmd
	profile string
	conn    *cdp
	stderr  *lockedBuffer
	toChild *os.File

	mu    sync.Mutex
	pages map[string]*pageState // by DevTools session id
}

// pageState is what one tab reported.
type pageState struct {
	url        string
	navigating bool // the load events that count come after Page.navigate
	errs       []string
	requests   []string
	loaded     chan struct{}
	loadOnce   sync.Once
}

// Launch starts Chromium for o (defaults filled in as documented on Options).
func Launch(ctx context.Context, o Options) (*Browser, error) {
	o = o.withDefaults()
	if o.Chromium == "" {
		p, err := Chromium()
		if err != nil {
			return nil, err
		}
		o.Chromium = p
	}
	profile, err := os.MkdirTemp("", "weft-chromium-")
	if err != nil {
		return nil, err
	}
	b := &Browser{opts: o, profile: profile, stderr: &lockedBuffer{}, pages: map[string]*pageState{}}
	if err := b.start(); err != nil {
		os.RemoveAll(profile)
		return nil, err
	}
	// One round trip proves the browser answers.
	ctx, cancel := context.WithTimeout(ctx, o.Timeout)
	defer cancel()
	if err := b.conn.call(ctx, "", "Browser.getVersion", nil, nil); err != nil {
		b.Close()
		return nil, fmt.Errorf("%w\nchromium output:\n%s", err, b.stderrTail())
	}
	return b, nil
}

func (b *Browser) start() error {
	o := b.opts
	cmdR, cmdW, err := os.Pipe() // browser reads commands from fd 3
	if err != nil {
		return err
	}
	outR, outW, err := os.Pipe() // browser writes replies to fd 4
	if err != nil {
		return err
	}
	b.cmd = exec.Command(o.Chromium,
		"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--no-default-browser-check", "--disable-background-networking", "--disable-component-update",
		"--disable-sync", "--disable-extensions", "--disable-default-apps", "--mute-audio", "--hide-scrollbars",
		"--user-data-dir="+b.profile, "--remote-debugging-pipe",
		fmt.Sprintf("--window-size=%d,%d", o.Width, o.Height), "about:blank")
	b.cmd.ExtraFiles = []*os.File{cmdR, outW}
	b.cmd.Stderr = b.stderr
	b.cmd.Stdout = b.stderr
	if err := b.cmd.Start(); err != nil {
		return fmt.Errorf("browsertest: starting %s: %w", o.Chromium, err)
	}
	cmdR.Close()
	outW.Close()
	b.toChild = cmdW
	b.conn = newCDP(cmdW, outR, b.event)
	return nil
}

// Close stops the browser and removes its profile.
func (b *Browser) Close() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = b.conn.call(ctx, "", "Browser.close", nil, nil)
	b.toChild.Close()
	waited := make(chan struct{})
	go func() { _ = b.cmd.Wait(); close(waited) }()
	select {
	case <-waited:
	case <-time.After(10 * time.Second):
		_ = b.cmd.Process.Kill()
		<-waited
	}
	os.RemoveAll(b.profile)
}

func (b *Browser) stderrTail() string {
	s := b.stderr.String()
	if len(s) > 4000 {
		s = s[len(s)-4000:]
	}
	return s
}

// lockedBuffer collects the browser's output from exec's copying goroutine.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
