//go:build linux && amd64 && weftverify

package supervisor

// verifyDigests makes every kept or carried memory digest be checked
// against a fresh one, and a difference fail the hash (hashMemory): go
// test -tags weftverify.
const verifyDigests = true
