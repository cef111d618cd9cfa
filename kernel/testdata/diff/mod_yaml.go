// module: gopkg.in/yaml.v3@v3.0.1
package main

import (
	"fmt"

	"gopkg.in/yaml.v3"
)

type T struct {
	A string
	B []int `yaml:"b"`
}

func main() {
	var t T
	err := yaml.Unmarshal([]byte("a: hello\nb: [1, 2]\n"), &t)
	fmt.Println(t.A, t.B, err)
	out, _ := yaml.Marshal(map[string]int{"x": 1})
	fmt.Print(string(out))
}
