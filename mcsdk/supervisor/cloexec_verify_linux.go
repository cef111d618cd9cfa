//go:build linux && amd64 && weftverify

package supervisor

// verifyCloexec makes every exec compare the descriptors weft's table
// closes on exec with those the host kernel closed, and fail the run if
// they differ (sys_fork.go, closeOnExec): go test -tags weftverify.
const verifyCloexec = true
