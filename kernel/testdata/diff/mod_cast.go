// module: github.com/spf13/cast@v1.7.1
package main

import (
	"fmt"

	"github.com/spf13/cast"
)

type myInt int

func main() {
	fmt.Println(cast.ToInt("42"), cast.ToString(3.5), cast.ToBool("true"), cast.ToFloat64("2.25"))
	fmt.Println(cast.ToInt(myInt(7)), cast.ToStringSlice([]any{"a", 1}))
}
