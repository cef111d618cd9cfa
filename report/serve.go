package report

import (
	"net/http"
	"strings"

	"github.com/weft-mc/weft/analysis/charts"
)

// Handler serves the report of dirs with its run browser: "/" is the
// report with every run listed, "/run/ID" a run's page (its sequence
// diagram and events, read from its recording when asked) and
// "/run/ID.svg" the diagram alone (both narrowed by the query: nodes,
// kinds, from and to in ms, zoom; see ParseEventFilter) and
// "/run/ID/history" Porcupine's view
// of the run's clients' history alone. Nothing is embedded up front, so a
// dataset of any size browses quickly. The report is built once.
func Handler(dirs []string, opt Options, lib *charts.Library) (http.Handler, error) {
	opt.AllRuns = true
	opt.RunLink = func(e *RunEntry) string { return "/run/" + e.ID() }
	r, err := Build(dirs, opt)
	if err != nil {
		return nil, err
	}
	page := r.Render(lib)
	byID := make(map[string]*RunEntry, len(r.Runs))
	for i := range r.Runs {
		byID[r.Runs[i].ID()] = &r.Runs[i]
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write(page)
	})
	mux.HandleFunc("GET /run/{id}/history", func(w http.ResponseWriter, req *http.Request) {
		entry := byID[req.PathValue("id")]
		if entry == nil {
			http.NotFound(w, req)
			return
		}
		e := *entry
		if err := e.Load(); err != nil {
			http.Error(w, err.Error(), http.StatusNotFound)
			return
		}
		if len(e.History) == 0 {
			http.Error(w, "report: the model has no [workload], so the run has no clients' history", http.StatusNotFound)
			return
		}
		// Porcupine's page is self-contained: it gets the policy of every
		// page here, so it cannot reach the network either.
		w.Header().Set("Content-Security-Policy", charts.ContentSecurityPolicy)
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write(e.History)
	})
	mux.HandleFunc("GET /run/{id}", func(w http.ResponseWriter, req *http.Request) {
		id := req.PathValue("id")
		svg := strings.HasSuffix(id, ".svg")
		entry := byID[strings.TrimSuffix(id, ".svg")]
		if entry == nil {
			http.NotFound(w, req)
			return
		}
		e := *entry // loaded per request: nothing is cached
		f, err := ParseEventFilter(req.URL.Query())
		if err != nil {
			http.Error(w, "report: "+err.Error(), http.StatusBadRequest)
			return
		}
		e.Filter = &f
		if err := e.Load(); err != nil {
			http.Error(w, err.Error(), http.StatusNotFound)
			return
		}
		if svg {
			w.Header().Set("Content-Type", "image/svg+xml")
			w.Write(e.Diagram)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write(RunPage(&e, "/#runs"))
	})
	return mux, nil
}
