// module: github.com/BurntSushi/toml@v1.6.0
package main

import (
	"fmt"

	"github.com/BurntSushi/toml"
)

type Config struct {
	Title string
	Ports []int
	Owner struct{ Name string }
}

func main() {
	var c Config
	_, err := toml.Decode("title = \"weft\"\nports = [80, 443]\n[owner]\nname = \"ann\"\n", &c)
	fmt.Println(c.Title, c.Ports, c.Owner.Name, err)
}
