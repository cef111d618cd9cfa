// module: github.com/spaolacci/murmur3@v1.1.0
package main

import (
	"fmt"

	"github.com/spaolacci/murmur3"
)

func main() {
	fmt.Println(murmur3.Sum32([]byte("weft")))
	h1, h2 := murmur3.Sum128([]byte("weft"))
	fmt.Println(h1, h2)
}
