package charts

import (
	"embed"
	"io/fs"
)

// embedded holds echarts.min.js when scripts/setup.sh copied it here
// before building (embedded/README.md); otherwise only the README.
//
//go:embed embedded
var embedded embed.FS

// embeddedName is the library's path in embedded.
const embeddedName = "embedded/echarts.min.js"

// embeddedLibrary returns the echarts built into weft, if it was.
func embeddedLibrary() (*Library, bool) {
	b, err := fs.ReadFile(embedded, embeddedName)
	if err != nil || len(b) == 0 {
		return nil, false
	}
	return newLibrary("(built into weft)", b), true
}
