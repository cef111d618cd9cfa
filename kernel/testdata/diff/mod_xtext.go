// module: golang.org/x/text@v0.41.0
package main

import (
	"fmt"

	"golang.org/x/text/cases"
	"golang.org/x/text/language"
)

func main() {
	fmt.Println(cases.Title(language.English).String("hello weft world"), cases.Upper(language.Und).String("straße"))
}
