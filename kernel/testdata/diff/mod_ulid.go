// module: github.com/oklog/ulid/v2@v2.1.0
package main

import (
	"fmt"

	"github.com/oklog/ulid/v2"
)

func main() {
	id := ulid.MustParse("01ARZ3NDEKTSV4RRFFQ69G5FAV")
	fmt.Println(id.Time(), id.String(), len(id.Entropy()))
}
