// module: github.com/Knetic/govaluate@v3.0.0+incompatible
package main

import (
	"fmt"

	"github.com/Knetic/govaluate"
)

func main() {
	e, err := govaluate.NewEvaluableExpression("(a + b) * 2 > 10 && name == 'x'")
	if err != nil {
		panic(err)
	}
	r, err := e.Evaluate(map[string]any{"a": 3, "b": 4, "name": "x"})
	fmt.Println(r, err)
}
