// module: github.com/shopspring/decimal@v1.4.0
package main

import (
	"fmt"

	"github.com/shopspring/decimal"
)

func main() {
	a := decimal.RequireFromString("0.1")
	b := decimal.NewFromFloat(0.2)
	fmt.Println(a.Add(b), a.Add(b).Equal(decimal.RequireFromString("0.3")))
	fmt.Println(decimal.NewFromInt(10).Div(decimal.NewFromInt(3)).StringFixed(4))
}
