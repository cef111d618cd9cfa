//go:build !unix

package kernel

// captureStdout is a no-op where file descriptors cannot be redirected.
func (k *Kernel) captureStdout() (restore func(), err error) { return func() {}, nil }
