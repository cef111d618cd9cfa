package main

import "fmt"

type myInt int

type celsius float64

func kind(v any) string {
	switch v.(type) {
	case int:
		return "int"
	case myInt:
		return "myInt"
	case float64:
		return "float64"
	case celsius:
		return "celsius"
	}
	return "other"
}

func main() {
	fmt.Println(kind(3), kind(myInt(3)), kind(2.5), kind(celsius(2.5)), kind("s"))
}
