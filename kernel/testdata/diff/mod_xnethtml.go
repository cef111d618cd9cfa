// module: golang.org/x/net@v0.58.0
package main

import (
	"fmt"
	"strings"

	"golang.org/x/net/html"
)

func main() {
	doc, err := html.Parse(strings.NewReader(`<ul><li>a</li><li><a href="/x">b</a></li></ul>`))
	if err != nil {
		panic(err)
	}
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode {
			fmt.Print(n.Data, " ")
			for _, a := range n.Attr {
				fmt.Print(a.Key, "=", a.Val, " ")
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	fmt.Println()
}
