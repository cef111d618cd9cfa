// module: github.com/agnivade/levenshtein@v1.2.0
package main

import (
	"fmt"

	"github.com/agnivade/levenshtein"
)

func main() {
	fmt.Println(levenshtein.ComputeDistance("kitten", "sitting"), levenshtein.ComputeDistance("", "abc"))
}
