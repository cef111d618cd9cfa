// module: github.com/mitchellh/hashstructure/v2@v2.0.2
package main

import (
	"fmt"

	"github.com/mitchellh/hashstructure/v2"
)

type point struct {
	X, Y int
	Tags []string `hash:"set"`
}

func main() {
	a, _ := hashstructure.Hash(point{1, 2, []string{"a", "b"}}, hashstructure.FormatV2, nil)
	b, _ := hashstructure.Hash(point{1, 2, []string{"b", "a"}}, hashstructure.FormatV2, nil)
	c, _ := hashstructure.Hash(map[string]int{"x": 1}, hashstructure.FormatV2, nil)
	fmt.Println(a, a == b, c)
}
