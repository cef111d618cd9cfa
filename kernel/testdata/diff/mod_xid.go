// module: github.com/rs/xid@v1.6.0
package main

import (
	"fmt"

	"github.com/rs/xid"
)

func main() {
	id, err := xid.FromString("9m4e2mr0ui3e8a215n4g")
	fmt.Println(id.Counter(), id.Pid(), id.Time().Unix(), err)
}
