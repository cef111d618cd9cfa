// module: github.com/kballard/go-shellquote@v0.0.0-20180428030007-95032a82bc51
package main

import (
	"fmt"

	"github.com/kballard/go-shellquote"
)

func main() {
	words, err := shellquote.Split(`a "b c" 'd e' f\ g`)
	fmt.Printf("%q %v\n", words, err)
	fmt.Println(shellquote.Join("a b", "c"))
}
