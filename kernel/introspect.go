package kernel

import (
	"github.com/weft-mc/weft/kernel/engine"
	"github.com/weft-mc/weft/kernel/wire"
)

// complete answers complete_request.
func (k *Kernel) complete(ch wire.Channel, m *wire.Message) error {
	var req struct {
		Code      string `json:"code"`
		CursorPos int    `json:"cursor_pos"`
	}
	if err := m.DecodeContent(&req); err != nil {
		return err
	}
	matches, start, end := k.eng.Complete(req.Code, req.CursorPos)
	if matches == nil {
		matches = []string{}
	}
	return k.reply(ch, m, "complete_reply", map[string]any{
		"status": "ok", "matches": matches, "cursor_start": start, "cursor_end": end, "metadata": map[string]any{},
	})
}

// inspect answers inspect_request.
func (k *Kernel) inspect(ch wire.Channel, m *wire.Message) error {
	var req struct {
		Code      string `json:"code"`
		CursorPos int    `json:"cursor_pos"`
	}
	if err := m.DecodeContent(&req); err != nil {
		return err
	}
	text, found := k.eng.Inspect(req.Code, req.CursorPos)
	data := map[string]any{}
	if found {
		data["text/plain"] = text
	}
	return k.reply(ch, m, "inspect_reply", map[string]any{
		"status": "ok", "found": found, "data": data, "metadata": map[string]any{},
	})
}

// isComplete answers is_complete_request.
func (k *Kernel) isComplete(ch wire.Channel, m *wire.Message) error {
	var req struct {
		Code string `json:"code"`
	}
	if err := m.DecodeContent(&req); err != nil {
		return err
	}
	status, indent := engine.IsComplete(req.Code)
	content := map[string]any{"status": status}
	if status == "incomplete" {
		content["indent"] = indent
	}
	return k.reply(ch, m, "is_complete_reply", content)
}

// historyRequest answers history_request from this session's cells
// (hist_access_type tail, range or search; session 0 is the current one).
func (k *Kernel) historyRequest(ch wire.Channel, m *wire.Message) error {
	var req struct {
		Output     bool   `json:"output"`
		AccessType string `json:"hist_access_type"`
		Start      int    `json:"start"`
		Stop       int    `json:"stop"`
		N          int    `json:"n"`
		Pattern    string `json:"pattern"`
		Unique     bool   `json:"unique"`
	}
	if err := m.DecodeContent(&req); err != nil {
		return err
	}
	k.mu.Lock()
	entries := append([]historyEntry(nil), k.history...)
	k.mu.Unlock()
	entries = selectHistory(entries, req.AccessType, req.Start, req.Stop, req.N, req.Pattern, req.Unique)
	out := make([]any, 0, len(entries))
	for _, h := range entries {
		if req.Output {
			out = append(out, []any{0, h.line, []any{h.code, nil}})
		} else {
			out = append(out, []any{0, h.line, h.code})
		}
	}
	return k.reply(ch, m, "history_reply", map[string]any{"status": "ok", "history": out})
}
