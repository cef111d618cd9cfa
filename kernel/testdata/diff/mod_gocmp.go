// module: github.com/google/go-cmp@v0.7.0
package main

import (
	"fmt"

	"github.com/google/go-cmp/cmp"
)

type S struct {
	A int
	B []string
}

func main() {
	fmt.Println(cmp.Equal(S{1, []string{"x"}}, S{1, []string{"x"}}), cmp.Equal(S{1, nil}, S{2, nil}))
}
