// module: github.com/google/btree@v1.1.3
package main

import (
	"fmt"

	"github.com/google/btree"
)

func main() {
	tr := btree.NewOrderedG[int](4)
	for _, x := range []int{5, 3, 9, 1, 7} {
		tr.ReplaceOrInsert(x)
	}
	tr.Ascend(func(x int) bool { fmt.Print(x, " "); return true })
	fmt.Println(tr.Len())
}
