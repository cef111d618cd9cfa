//go:build linux && amd64 && !weftverify

package supervisor

// verifyWaiters: see waiters_verify_linux.go.
const verifyWaiters = false
