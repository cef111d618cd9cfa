package main

import (
	"encoding/json"
	"fmt"
)

type Color int

func (c Color) String() string { return [...]string{"red", "green", "blue"}[c] }

type Temp float64

func (t Temp) MarshalJSON() ([]byte, error) { return []byte(fmt.Sprintf(`"%.1fC"`, float64(t))), nil }

func main() {
	fmt.Println(Color(1), []Color{0, 2})
	fmt.Printf("%v %d %s\n", Color(2), Color(2), Color(0))
	b, err := json.Marshal(map[string]Temp{"t": 21.5})
	fmt.Println(string(b), err)
}
