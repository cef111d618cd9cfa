// module: github.com/iancoleman/strcase@v0.3.0
package main

import (
	"fmt"

	"github.com/iancoleman/strcase"
)

func main() {
	fmt.Println(strcase.ToSnake("HTTPServerName"), strcase.ToCamel("some_thing_here"), strcase.ToKebab("AnyKind of_string"))
}
