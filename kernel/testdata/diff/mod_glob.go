// module: github.com/gobwas/glob@v0.2.3
package main

import (
	"fmt"

	"github.com/gobwas/glob"
)

func main() {
	g := glob.MustCompile("*.{go,md}")
	fmt.Println(g.Match("main.go"), g.Match("README.md"), g.Match("x.txt"))
}
