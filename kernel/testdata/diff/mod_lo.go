// module: github.com/samber/lo@v1.47.0
package main

import (
	"fmt"

	"github.com/samber/lo"
)

func main() {
	fmt.Println(lo.Uniq([]int{1, 2, 2, 3}), lo.Map([]int{1, 2}, func(x int, _ int) string { return fmt.Sprint(x * 2) }))
	fmt.Println(lo.Sum([]float64{1.5, 2}), lo.Reverse([]string{"a", "b"}))
}
