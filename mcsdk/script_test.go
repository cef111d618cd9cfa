package mcsdk

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestResolveScript resolves "#!" lines as Linux's fs/binfmt_script.c
// does: the interpreter, then the rest of the line as one optional
// argument, then the script's path and the node's arguments; scripts
// nest; an ELF (or any other) file is left alone.
func TestResolveScript(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	plain := write("plain.sh", "#!/bin/sh\necho hi\n")
	spaced := write("spaced.sh", "#!  /usr/bin/env  python3 -u  \nprint(1)\n")
	nested := write("nested.sh", "#!"+plain+" -x\n")
	elf := write("elf", "\x7fELF…")
	long := write("long.sh", "#!/bin/"+strings.Repeat("x", 300))
	tests := []struct {
		path     string
		wantPath string
		wantArgs []string
		err      string
	}{
		{plain, "/bin/sh", []string{plain, "a", "b"}, ""},
		{spaced, "/usr/bin/env", []string{"python3 -u", spaced, "a", "b"}, ""},
		{nested, "/bin/sh", []string{plain, "-x", nested, "a", "b"}, ""},
		{elf, elf, []string{"a", "b"}, ""},
		{long, "", nil, "longer than 256 bytes"},
	}
	for _, tc := range tests {
		path, args, err := resolveScript(tc.path, []string{"a", "b"})
		if (err == nil) != (tc.err == "") || err != nil && !strings.Contains(err.Error(), tc.err) {
			t.Errorf("%s: error %v, want %q", tc.path, err, tc.err)
			continue
		}
		if err == nil && (path != tc.wantPath || !slices.Equal(args, tc.wantArgs)) {
			t.Errorf("%s: %s %q, want %s %q", tc.path, path, args, tc.wantPath, tc.wantArgs)
		}
	}
}
