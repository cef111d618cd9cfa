//go:build linux && amd64 && weftverify

package supervisor

// verifyWaiters makes every skipped retry run anyway and fail the run if
// it would not have parked unchanged (waiters_linux.go): go test -tags
// weftverify.
const verifyWaiters = true
