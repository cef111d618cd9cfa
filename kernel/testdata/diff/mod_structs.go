// module: github.com/fatih/structs@v1.1.0
package main

import (
	"fmt"

	"github.com/fatih/structs"
)

type Server struct {
	Name string
	Port int
}

func main() {
	s := Server{"web", 80}
	fmt.Println(structs.Map(s), structs.Names(s), structs.IsZero(s))
}
