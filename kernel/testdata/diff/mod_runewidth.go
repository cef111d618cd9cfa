// module: github.com/mattn/go-runewidth@v0.0.20
package main

import (
	"fmt"

	"github.com/mattn/go-runewidth"
)

func main() {
	fmt.Println(runewidth.StringWidth("つのだ☆HIRO"), runewidth.RuneWidth('世'))
	fmt.Println(runewidth.Truncate("Hello, 世界", 9, "…"))
}
