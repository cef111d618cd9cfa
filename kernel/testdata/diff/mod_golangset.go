// module: github.com/deckarep/golang-set/v2@v2.6.0
package main

import (
	"fmt"

	mapset "github.com/deckarep/golang-set/v2"
)

func main() {
	a := mapset.NewSet(1, 2, 3)
	b := mapset.NewSet(2, 3, 4)
	fmt.Println(a.Intersect(b).Cardinality(), a.Contains(1), a.Union(b).Cardinality())
}
