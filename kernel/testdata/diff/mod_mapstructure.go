// module: github.com/mitchellh/mapstructure@v1.5.0
package main

import (
	"fmt"

	"github.com/mitchellh/mapstructure"
)

type Person struct {
	Name string
	Age  int
	Tags []string
}

func main() {
	var p Person
	err := mapstructure.Decode(map[string]any{"name": "ann", "age": 30, "tags": []string{"a"}}, &p)
	fmt.Printf("%+v %v\n", p, err)
}
