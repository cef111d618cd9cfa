package browsertest

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// watchJS runs before any page script: it records Content-Security-Policy
// violations (every blocked fetch) so they are reported even if the browser
// logs them nowhere else.
const watchJS = `window.__weftViolations = [];
document.addEventListener("securitypolicyviolation", function (e) {
  window.__weftViolations.push(e.violatedDirective + " blocked " + (e.blockedURI || "(inline)"));
});`

// probeJS evaluates the ready expression (first %s) and reports every
// container matching the selector (second %s): canvases, svgs and whether
// anything was painted.
const probeJS = `(function () {
  var out = [], settled = false;
  try { settled = !!(%s); } catch (e) {}
  var els = document.querySelectorAll(%s);
  for (var i = 0; i < els.length; i++) {
    var el = els[i], painted = false;
    var cs = el.querySelectorAll("canvas"), svgs = el.querySelectorAll("svg");
    for (var j = 0; j < cs.length && !painted; j++) {
      try {
        var c = cs[j], ctx = c.getContext("2d");
        if (ctx && c.width > 0 && c.height > 0) {
          var d = ctx.getImageData(0, 0, c.width, c.height).data;
          for (var k = 3; k < d.length; k += 4) { if (d[k] !== 0) { painted = true; break; } }
        }
      } catch (e) {}
    }
    for (var j = 0; j < svgs.length && !painted; j++) {
      var box = svgs[j].getBoundingClientRect();
      if (svgs[j].querySelector("path,rect,text,line,circle,polyline,polygon") && box.width > 0 && box.height > 0) { painted = true; }
    }
    out.push({ID: el.id, Kind: el.getAttribute("data-weft-chart") || "", Canvases: cs.length, SVGs: svgs.length, Painted: painted});
  }
  return {url: location.href, ready: document.readyState, settled: settled, containers: out, violations: window.__weftViolations || []};
})()`

type probe struct {
	URL        string      `json:"url"`
	Settled    bool        `json:"settled"`
	Ready      string      `json:"ready"`
	Containers []Container `json:"containers"`
	Violations []string    `json:"violations"`
}

func (b *Browser) visit(ctx context.Context, pageURL, expr string) (*Result, error) {
	o := b.opts
	target, session, err := b.attach(ctx)
	if err != nil {
		return nil, err
	}
	defer func() { _ = b.conn.call(ctx, "", "Target.closeTarget", map[string]any{"targetId": target}, nil) }()
	ps := b.page(session)
	b.mu.Lock()
	ps.url = pageURL
	ps.navigating = true
	b.mu.Unlock()
	if err := b.conn.call(ctx, session, "Page.navigate", map[string]any{"url": pageURL}, nil); err != nil {
		return nil, err
	}
	select {
	case <-ps.loaded:
	case <-ctx.Done():
		return nil, fmt.Errorf("browsertest: %s never fired its load event: %w", pageURL, ctx.Err())
	}
	p, err := b.waitPainted(ctx, session, pageURL)
	if err != nil {
		return nil, err
	}
	var value json.RawMessage
	if expr != "" {
		if value, err = b.eval(ctx, session, expr); err != nil {
			return nil, err
		}
	}
	var shot []byte
	if o.Screenshot {
		if shot, err = b.screenshot(ctx, session); err != nil {
			return nil, err
		}
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	res := &Result{URL: pageURL, Settled: p.Settled, Containers: p.Containers, Requests: slices.Clone(ps.requests), Screenshot: shot, Value: value}
	res.Errors = append(slices.Clone(ps.errs), prefixAll("CSP violation: ", p.Violations)...)
	return res, nil
}

// attach opens a page target and enables the domains whose events we record.
func (b *Browser) attach(ctx context.Context) (target, session string, err error) {
	o := b.opts
	var tgt struct {
		TargetID string `json:"targetId"`
	}
	if err := b.conn.call(ctx, "", "Target.createTarget", map[string]any{"url": "about:blank"}, &tgt); err != nil {
		return "", "", err
	}
	var att struct {
		SessionID string `json:"sessionId"`
	}
	if err := b.conn.call(ctx, "", "Target.attachToTarget", map[string]any{"targetId": tgt.TargetID, "flatten": true}, &att); err != nil {
		return "", "", err
	}
	s := att.SessionID
	steps := []struct {
		method string
		params any
	}{
		{"Runtime.enable", nil}, {"Log.enable", nil}, {"Network.enable", nil}, {"Page.enable", nil},
		{"Page.addScriptToEvaluateOnNewDocument", map[string]any{"source": watchJS}},
		{"Emulation.setDeviceMetricsOverride", map[string]any{"width": o.Width, "height": o.Height, "deviceScaleFactor": 1, "mobile": false}},
	}
	for _, st := range steps {
		if err := b.conn.call(ctx, s, st.method, st.params, nil); err != nil {
			return "", "", err
		}
	}
	return tgt.TargetID, s, nil
}

// waitPainted polls the page until every container painted or wait passed;
// the last probe is returned either way.
func (b *Browser) waitPainted(ctx context.Context, session, want string) (*probe, error) {
	ready := b.opts.ReadyExpr
	if ready == "" {
		ready = "true"
	}
	expr := fmt.Sprintf(probeJS, ready, strconv.Quote(b.opts.Selector))
	deadline := time.Now().Add(b.opts.PaintWait)
	for {
		v, err := b.eval(ctx, session, expr)
		if err != nil {
			return nil, err
		}
		var p probe
		if err := json.Unmarshal(v, &p); err != nil {
			return nil, fmt.Errorf("browsertest: probe result: %w", err)
		}
		if p.URL == want && p.Ready == "complete" && p.Settled && len(p.Containers) > 0 && allPainted(p.Containers) || time.Now().After(deadline) {
			return &p, nil
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("browsertest: waiting for charts to paint: %w", ctx.Err())
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// eval evaluates expr in the tab and returns its value as JSON.
func (b *Browser) eval(ctx context.Context, session, expr string) (json.RawMessage, error) {
	var out struct {
		Result struct {
			Value json.RawMessage `json:"value"`
		} `json:"result"`
		ExceptionDetails *struct {
			Text      string `json:"text"`
			Exception struct {
				Description string `json:"description"`
			} `json:"exception"`
		} `json:"exceptionDetails"`
	}
	if err := b.conn.call(ctx, session, "Runtime.evaluate", map[string]any{"expression": expr, "returnByValue": true}, &out); err != nil {
		return nil, err
	}
	if e := out.ExceptionDetails; e != nil {
		return nil, fmt.Errorf("browsertest: evaluating %.60q: %s %s", expr, e.Text, e.Exception.Description)
	}
	return out.Result.Value, nil
}

func allPainted(cs []Container) bool {
	for _, c := range cs {
		if !c.Painted {
			return false
		}
	}
	return true
}

func (b *Browser) screenshot(ctx context.Context, session string) ([]byte, error) {
	var shot struct {
		Data string `json:"data"`
	}
	params := map[string]any{"format": "png", "captureBeyondViewport": true}
	var metrics struct {
		CSSContentSize struct {
			Width, Height float64
		} `json:"cssContentSize"`
	}
	if err := b.conn.call(ctx, session, "Page.getLayoutMetrics", nil, &metrics); err == nil && metrics.CSSContentSize.Height > 0 {
		params["clip"] = map[string]any{"x": 0, "y": 0, "width": metrics.CSSContentSize.Width, "height": metrics.CSSContentSize.Height, "scale": 1}
	}
	if err := b.conn.call(ctx, session, "Page.captureScreenshot", params, &shot); err != nil {
		return nil, err
	}
	png, err := base64.StdEncoding.DecodeString(shot.Data)
	if err != nil {
		return nil, fmt.Errorf("browsertest: screenshot: %w", err)
	}
	return png, nil
}

// page returns the state of the tab with this session, creating it if new
// (events can arrive before attach returns).
func (b *Browser) page(session string) *pageState {
	b.mu.Lock()
	defer b.mu.Unlock()
	ps := b.pages[session]
	if ps == nil {
		ps = &pageState{loaded: make(chan struct{})}
		b.pages[session] = ps
	}
	return ps
}

// event records what a tab reports: errors, requests and its load.
func (b *Browser) event(method, session string, params json.RawMessage) {
	if session == "" {
		return
	}
	ps := b.page(session)
	switch method {
	case "Page.loadEventFired":
		b.mu.Lock()
		nav := ps.navigating
		b.mu.Unlock()
		if nav {
			ps.loadOnce.Do(func() { close(ps.loaded) })
		}
	case "Network.requestWillBeSent":
		var p struct {
			Request struct {
				URL string `json:"url"`
			} `json:"request"`
		}
		if json.Unmarshal(params, &p) == nil {
			b.request(ps, p.Request.URL)
		}
	case "Runtime.consoleAPICalled":
		b.console(ps, params)
	case "Runtime.exceptionThrown":
		var p struct {
			Details struct {
				Text      string `json:"text"`
				Exception struct {
					Description string `json:"description"`
				} `json:"exception"`
			} `json:"exceptionDetails"`
		}
		if json.Unmarshal(params, &p) == nil {
			b.addError(ps, "uncaught: "+p.Details.Text+" "+p.Details.Exception.Description)
		}
	case "Log.entryAdded":
		var p struct {
			Entry struct {
				Level, Source, Text, URL string
			} `json:"entry"`
		}
		if json.Unmarshal(params, &p) == nil && p.Entry.Level == "error" {
			b.addError(ps, fmt.Sprintf("log (%s): %s %s", p.Entry.Source, p.Entry.Text, p.Entry.URL))
		}
	}
}

func (b *Browser) console(ps *pageState, params json.RawMessage) {
	var p struct {
		Type string `json:"type"`
		Args []struct {
			Value       any    `json:"value"`
			Description string `json:"description"`
		} `json:"args"`
	}
	if json.Unmarshal(params, &p) != nil || (p.Type != "error" && p.Type != "assert") {
		return
	}
	var parts []string
	for _, a := range p.Args {
		if a.Description != "" {
			parts = append(parts, a.Description)
		} else {
			parts = append(parts, fmt.Sprint(a.Value))
		}
	}
	b.addError(ps, "console."+p.Type+": "+strings.Join(parts, " "))
}

func (b *Browser) request(ps *pageState, u string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if u == ps.url || strings.HasPrefix(u, "data:") || strings.HasPrefix(u, "blob:") {
		return
	}
	ps.requests = append(ps.requests, u)
}

func (b *Browser) addError(ps *pageState, s string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	ps.errs = append(ps.errs, s)
}

func prefixAll(prefix string, xs []string) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = prefix + x
	}
	return out
}
