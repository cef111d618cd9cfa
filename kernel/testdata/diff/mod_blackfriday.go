// module: github.com/russross/blackfriday/v2@v2.1.0
package main

import (
	"fmt"

	"github.com/russross/blackfriday/v2"
)

func main() {
	out := blackfriday.Run([]byte("# Title\n\nSome *emphasis* and `code`.\n\n- a\n- b\n"))
	fmt.Print(string(out))
}
