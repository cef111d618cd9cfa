package main

import (
	"fmt"
	"math"
)

const (
	KB = 1 << (10 * (iota + 1))
	MB
	GB
)

const big = 1 << 100

type Weekday int

const (
	Sunday Weekday = iota
	Monday
	Tuesday
)

func main() {
	fmt.Println(KB, MB, GB, big>>98, Tuesday)
	fmt.Println(math.Pi/2, 1e3/7.0, 7/2, 7.0/2)
	var f float32 = 0.1
	u := uint8(200)
	fmt.Println(float64(f), math.MaxInt64, u+100)
}
