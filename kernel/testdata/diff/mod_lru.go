// module: github.com/hashicorp/golang-lru/v2@v2.0.7
package main

import (
	"fmt"

	lru "github.com/hashicorp/golang-lru/v2"
)

func main() {
	c, _ := lru.New[string, int](2)
	c.Add("a", 1)
	c.Add("b", 2)
	c.Get("a")
	c.Add("c", 3)
	fmt.Println(c.Keys(), c.Contains("b"))
}
