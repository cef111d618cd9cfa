// Command goexec is a Go program that runs other programs with os/exec,
// for weft's process-tree tests: Go's runtime forks with
// clone(CLONE_VM|CLONE_VFORK) from a multi-threaded process and waits
// with waitid and wait4.
package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
)

func main() {
	err := exec.Command("/bin/true").Run()
	fmt.Printf("true: %v\n", err)
	err = exec.Command("/bin/sh", "-c", "exit 7").Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		fmt.Printf("sh: exit %d pid>1000 %v\n", ee.ExitCode(), ee.Pid() > 1000)
	} else {
		fmt.Printf("sh: %v\n", err)
	}
	cmd := exec.Command("/bin/echo", "hello from a child of a Go program")
	cmd.Stdout = os.Stdout
	fmt.Printf("echo: %v\n", cmd.Run())
	out, err := exec.Command("/bin/echo", "captured through a pipe").Output()
	fmt.Printf("output: %q %v\n", out, err)
	_, err = exec.Command("/nonexistent/weft").Output()
	fmt.Printf("missing: %v\n", err)
}
