//go:build !(linux && amd64)

package supervisor

// Syscalls returns nothing: no world runs on this platform.
func (w *World) Syscalls() []SyscallUse { return nil }

// QueryReplies returns nothing: no world runs on this platform.
func (w *World) QueryReplies() []QueryReply { return nil }

// Waiting reports nothing: no world runs on this platform.
func (w *World) Waiting(int) bool { return false }

// Received returns nothing: no world runs on this platform.
func (w *World) Received() []Received { return nil }
