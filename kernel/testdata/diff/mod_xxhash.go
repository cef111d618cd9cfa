// module: github.com/cespare/xxhash/v2@v2.3.0
package main

import (
	"fmt"

	"github.com/cespare/xxhash/v2"
)

func main() {
	fmt.Println(xxhash.Sum64String("weft"), xxhash.Sum64([]byte("")))
}
