//go:build linux && amd64

package supervisor

import "github.com/weft-mc/weft/mcsdk/vkernel"

// The /proc table moved to vkernel (procfs.go, checked there by
// TestProcTable); TestProcFileTable reads it through these names, as it
// read the supervisor's table before the move.

type procServe = vkernel.ProcServe

const (
	procAbsent  = vkernel.ProcAbsent
	procVirtual = vkernel.ProcVirtual
	procRandom  = vkernel.ProcRandom
	procNative  = vkernel.ProcNative
)

// procFile is a row of vkernel's table.
type procFile struct {
	path    string
	serve   procServe
	content func(*vkernel.ProcSnapshot) []byte
	holds   string
}

func procRow(f vkernel.ProcFile) procFile {
	return procFile{path: f.Path, serve: f.Serve, content: f.Render, holds: f.Holds}
}

var procFiles = func() []procFile {
	var rows []procFile
	for _, f := range vkernel.ProcFiles() {
		rows = append(rows, procRow(f))
	}
	return rows
}()

func lookupProcFile(path string) (procFile, bool) {
	f, ok := vkernel.LookupProcFile(path)
	return procRow(f), ok
}
