package engine

import (
	"context"
	"os/exec"
	"strings"
	"time"
)

// docTimeout bounds one `go doc` run.
const docTimeout = 10 * time.Second

// goDoc returns the documentation `go doc` prints for symbol (an import
// path, or path.Name), or "" if the go command is missing or does not know
// it. Results are cached for the session. go doc runs in the kernel's
// working directory, so the packages of the module there (weft's, when
// the notebook is in weft's tree) are found besides the standard library.
func (e *Engine) goDoc(symbol string) string {
	if d, ok := e.docs[symbol]; ok {
		return d
	}
	goCmd, err := exec.LookPath("go")
	if err != nil {
		return ""
	}
	ctx, cancel := context.WithTimeout(context.Background(), docTimeout)
	defer cancel()
	out, err := exec.CommandContext(ctx, goCmd, "doc", symbol).Output()
	d := ""
	if err == nil {
		d = strings.TrimSpace(string(out))
	}
	e.docs[symbol] = d
	return d
}

// withDoc appends documentation text to a description.
func withDoc(desc, doc string) string {
	if doc == "" {
		return desc
	}
	return desc + "\n\n" + doc
}
