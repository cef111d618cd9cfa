package kernel

import (
	"runtime"

	"github.com/weft-mc/weft/kernel/wire"
)

// kernelInfo answers kernel_info_request.
func (k *Kernel) kernelInfo(ch wire.Channel, m *wire.Message) error {
	return k.reply(ch, m, "kernel_info_reply", map[string]any{
		"status":                 "ok",
		"protocol_version":       wire.ProtocolVersion,
		"implementation":         "weft",
		"implementation_version": Version,
		"language_info": map[string]any{
			"name":               "go",
			"version":            runtime.Version(),
			"mimetype":           "text/x-go",
			"file_extension":     ".go",
			"pygments_lexer":     "go",
			"codemirror_mode":    "go",
			"nbconvert_exporter": "",
		},
		"banner":     "weft Go kernel " + Version + " (" + runtime.Version() + ", yaegi): state persists across cells; import \"display\" for rich output",
		"debugger":   false,
		"help_links": []map[string]string{{"text": "Go", "url": "https://go.dev/doc/"}},
	})
}

// shutdown answers shutdown_request, stops any running cell (stopAll) and
// closes Done.
func (k *Kernel) shutdown(ch wire.Channel, m *wire.Message) error {
	var req struct {
		Restart bool `json:"restart"`
	}
	if err := m.DecodeContent(&req); err != nil {
		return err
	}
	err := k.reply(ch, m, "shutdown_reply", map[string]any{"status": "ok", "restart": req.Restart})
	k.stopAll(interruptGrace)
	k.mu.Lock()
	defer k.mu.Unlock()
	k.restart = req.Restart
	if !k.closed {
		k.closed = true
		close(k.done)
	}
	return err
}

// interrupt answers interrupt_request (interrupt_mode "message").
func (k *Kernel) interrupt(ch wire.Channel, m *wire.Message) error {
	k.Interrupt()
	return k.reply(ch, m, "interrupt_reply", map[string]any{"status": "ok"})
}

// commInfo answers comm_info_request: weft opens no comms.
func (k *Kernel) commInfo(ch wire.Channel, m *wire.Message) error {
	return k.reply(ch, m, "comm_info_reply", map[string]any{"status": "ok", "comms": map[string]any{}})
}

// commOpen refuses a comm (weft has no comm targets) by closing it.
func (k *Kernel) commOpen(_ wire.Channel, m *wire.Message) error {
	var req struct {
		CommID string `json:"comm_id"`
	}
	if err := m.DecodeContent(&req); err != nil {
		return err
	}
	return k.publish(m, "comm_close", map[string]any{"comm_id": req.CommID, "data": map[string]any{}})
}
