package kernel

import (
	"path"
	"strings"
)

// selectHistory filters entries as history_request asks: "tail" keeps the
// last n, "range" keeps lines in [start, stop) (stop 0 means no bound),
// "search" keeps cells matching a glob pattern (n last, optionally unique).
func selectHistory(entries []historyEntry, access string, start, stop, n int, pattern string, unique bool) []historyEntry {
	switch access {
	case "range":
		var out []historyEntry
		for _, h := range entries {
			if h.line >= start && (stop <= 0 || h.line < stop) {
				out = append(out, h)
			}
		}
		return out
	case "search":
		var out []historyEntry
		seen := map[string]bool{}
		for _, h := range entries {
			if ok, _ := path.Match(pattern, h.code); ok || pattern == "" || strings.Contains(h.code, strings.Trim(pattern, "*")) {
				if unique && seen[h.code] {
					continue
				}
				seen[h.code] = true
				out = append(out, h)
			}
		}
		return last(out, n)
	}
	return last(entries, n)
}

func last(entries []historyEntry, n int) []historyEntry {
	if n > 0 && len(entries) > n {
		return entries[len(entries)-n:]
	}
	return entries
}
