package mcsdk

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"strings"
)

// maxScriptDepth is how many interpreters deep a script may go, as
// Linux's BINPRM_MAX_RECURSION (4) allows: a script whose interpreter is a
// script, and so on.
const maxScriptDepth = 4

// scriptPrefix is how much of a file Linux reads for its "#!" line
// (BINPRM_BUF_SIZE, fs/binfmt_script.c).
const scriptPrefix = 256

// resolveScript turns the start of a node whose executable is a script
// ("#!interpreter [arg]") into the start of its interpreter, as the
// kernel's binfmt_script does: the interpreter runs with argv [interpreter,
// the optional argument (the rest of the line, one argument), the script's
// path, the node's arguments…]. weft starts the interpreter itself so that
// it can read its symbols and patch its code like any executable's. A
// path that is not a script is returned unchanged.
func resolveScript(path string, args []string) (string, []string, error) {
	for depth := 0; ; depth++ {
		interp, arg, ok, err := scriptLine(path)
		if err != nil || !ok {
			return path, args, err
		}
		if depth == maxScriptDepth {
			return "", nil, fmt.Errorf("%s: more than %d levels of #! interpreters", path, maxScriptDepth)
		}
		pre := []string{}
		if arg != "" {
			pre = append(pre, arg)
		}
		args = append(append(pre, path), args...)
		path = interp
	}
}

// scriptLine reads the "#!" line of the file at path: the interpreter and
// its optional argument; ok is false when the file does not start with
// "#!".
func scriptLine(path string) (interp, arg string, ok bool, err error) {
	f, err := os.Open(path)
	if err != nil {
		return "", "", false, err
	}
	defer f.Close()
	buf := make([]byte, scriptPrefix)
	n, err := io.ReadFull(f, buf)
	if err != nil && err != io.ErrUnexpectedEOF && err != io.EOF {
		return "", "", false, err
	}
	buf = buf[:n]
	if !bytes.HasPrefix(buf, []byte("#!")) {
		return "", "", false, nil
	}
	line, _, found := bytes.Cut(buf[2:], []byte("\n"))
	if !found && n == scriptPrefix {
		return "", "", false, fmt.Errorf("%s: its #! line is longer than %d bytes", path, scriptPrefix)
	}
	text := strings.Trim(string(line), " \t")
	interp, arg, _ = strings.Cut(text, " ")
	if i := strings.IndexByte(interp, '\t'); i >= 0 {
		interp, arg = interp[:i], interp[i+1:]+" "+arg
	}
	arg = strings.Trim(arg, " \t")
	if interp == "" {
		return "", "", false, fmt.Errorf("%s: its #! line names no interpreter", path)
	}
	return interp, arg, true, nil
}
