// module: github.com/sergi/go-diff@v1.3.1
package main

import (
	"fmt"

	"github.com/sergi/go-diff/diffmatchpatch"
)

func main() {
	dmp := diffmatchpatch.New()
	diffs := dmp.DiffMain("the quick brown fox", "the quick red fox", false)
	for _, d := range diffs {
		fmt.Println(d.Type, d.Text)
	}
	fmt.Println(dmp.DiffLevenshtein(diffs), dmp.DiffText2(diffs))
}
