// Command compact rewrites a campaign's dataset for shipping in datasets/
// (dataset.Compact): one ZSTD-compressed Arrow IPC verdict file, the
// recordings of failing runs, every file checksummed in the manifest.
// scripts/datasets.sh runs it.
//
//	go run ./scripts/compact IN OUT
package main

import (
	"fmt"
	"os"

	"github.com/weft-mc/weft/mcsdk/dataset"
)

func main() {
	if len(os.Args) != 3 || os.Args[1] == "-h" || os.Args[1] == "--help" {
		fmt.Fprintln(os.Stderr, "usage: compact IN OUT\n\nrewrites the dataset IN into the new directory OUT: one ZSTD-compressed Arrow IPC file, the recordings of failing runs, checksums in the manifest")
		os.Exit(2)
	}
	res, err := dataset.Compact(os.Args[2], os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, "compact:", err)
		os.Exit(1)
	}
	fmt.Printf("%s: %d rows in %d bytes, %d recordings (%d of holding runs dropped)\n", os.Args[2], res.Rows, res.Bytes, res.Recordings, res.Dropped)
}
