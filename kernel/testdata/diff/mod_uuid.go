// module: github.com/google/uuid@v1.6.0
package main

import (
	"encoding/json"
	"fmt"

	"github.com/google/uuid"
)

func main() {
	u := uuid.NewSHA1(uuid.NameSpaceDNS, []byte("weft"))
	fmt.Println(u, u.Version(), u.Variant())
	b, _ := json.Marshal(u)
	fmt.Println(string(b))
	fmt.Println(uuid.MustParse("6ba7b811-9dad-11d1-80b4-00c04fd430c8").String())
}
