//go:build linux && amd64 && !weftverify

package supervisor

// verifyCloexec: see cloexec_verify_linux.go.
const verifyCloexec = false
