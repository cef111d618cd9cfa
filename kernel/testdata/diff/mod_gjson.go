// module: github.com/tidwall/gjson@v1.18.0
package main

import (
	"fmt"

	"github.com/tidwall/gjson"
)

func main() {
	j := `{"name":{"first":"Tom","last":"Anderson"},"age":37,"friends":[{"n":"a","age":44},{"n":"b","age":68}]}`
	fmt.Println(gjson.Get(j, "name.last"), gjson.Get(j, "age").Int(), gjson.Get(j, "friends.#.n"), gjson.Get(j, "friends.#(age>50).n"))
}
