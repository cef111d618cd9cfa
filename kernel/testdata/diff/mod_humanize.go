// module: github.com/dustin/go-humanize@v1.0.1
package main

import (
	"fmt"

	"github.com/dustin/go-humanize"
)

func main() {
	fmt.Println(humanize.Bytes(82854982), humanize.Comma(1234567), humanize.Ordinal(22))
	fmt.Println(humanize.SI(0.00000012, "F"), humanize.IBytes(1<<30))
}
