package wire

import (
	"encoding/json"
	"fmt"
	"os"
)

// ConnectionInfo is the content of a Jupyter connection file.
type ConnectionInfo struct {
	Transport       string `json:"transport"`
	IP              string `json:"ip"`
	ShellPort       int    `json:"shell_port"`
	ControlPort     int    `json:"control_port"`
	StdinPort       int    `json:"stdin_port"`
	IOPubPort       int    `json:"iopub_port"`
	HBPort          int    `json:"hb_port"`
	Key             string `json:"key"`
	SignatureScheme string `json:"signature_scheme"`
	KernelName      string `json:"kernel_name,omitempty"`
}

// ReadConnectionFile parses the connection file at path.
func ReadConnectionFile(path string) (ConnectionInfo, error) {
	var ci ConnectionInfo
	b, err := os.ReadFile(path)
	if err != nil {
		return ci, err
	}
	if err := json.Unmarshal(b, &ci); err != nil {
		return ci, fmt.Errorf("wire: connection file %s: %w", path, err)
	}
	if ci.Transport == "" {
		ci.Transport = "tcp"
	}
	if ci.SignatureScheme == "" {
		ci.SignatureScheme = "hmac-sha256"
	}
	return ci, nil
}

// Endpoint returns the ZeroMQ endpoint for port, e.g. "tcp://127.0.0.1:5555".
func (ci ConnectionInfo) Endpoint(port int) string {
	if ci.Transport == "ipc" {
		return fmt.Sprintf("ipc://%s-%d", ci.IP, port)
	}
	return fmt.Sprintf("%s://%s:%d", ci.Transport, ci.IP, port)
}

// Signer returns the Signer for this connection's key and scheme.
func (ci ConnectionInfo) Signer() (Signer, error) {
	return NewSigner(ci.SignatureScheme, []byte(ci.Key))
}
