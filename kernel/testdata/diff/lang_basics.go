package main

import "fmt"

// The everyday statements and operators of analysis cells, interpreted:
// the constructs of the interpreter's allow-list (engine/allow.go) that
// other cases do not hold.

type account struct {
	name    string
	balance int
}

func classify(n int) string {
	switch {
	case n < 0:
		return "negative"
	case n == 0:
		return "zero"
	case n > 100 || n >= 1000:
		return "large"
	}
	switch n % 3 {
	case 0:
		return "fizz"
	case 1, 2:
		if !(n > 50 && n%2 == 0) {
			return "small"
		}
	default:
		return "unreachable"
	}
	return "even above 50"
}

func bits(x, y uint8) (uint8, uint8, uint8, uint8) {
	return x & y, x ^ y, x &^ y, ^x
}

func collatz(n int) (steps int) {
	for {
		if n == 1 {
			break
		}
		steps++
		if n%2 == 0 {
			n /= 2
			continue
		}
		n = 3*n + 1
	}
	return steps
}

func firstPair(grid [][]int, want int) (int, int) {
outer:
	for i, row := range grid {
		for j, v := range row {
			if v < 0 {
				continue outer
			}
			if v == want {
				return i, j
			}
		}
	}
	return -1, -1
}

func safeDiv(a, b int) (q int, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("recovered: %v", r)
		}
	}()
	if b == 0 {
		panic("division by zero")
	}
	return a / b, nil
}

func main() {
	for _, n := range []int{-5, 0, 7, 9, 52, 64, 150} {
		fmt.Println(n, classify(n))
	}
	fmt.Println(bits(0b1100, 0b1010))
	fmt.Println(collatz(27))
	fmt.Println(firstPair([][]int{{1, -1, 9}, {4, 9, 2}}, 9))
	fmt.Println(safeDiv(7, 2))
	fmt.Println(safeDiv(7, 0))

	x := 100
	x -= 7
	x *= 3
	x /= 2
	x %= 50
	x |= 0x40
	x &= 0x7f
	x ^= 5
	x <<= 2
	x >>= 1
	x &^= 8
	x--
	fmt.Println(x, -x, +x)

	acc := new(account)
	acc.name = "ops"
	acc.balance += 10
	fmt.Println(*acc, acc.name)

	stock := map[string]int{"a": 1, "b": 2, "c": 3}
	delete(stock, "b")
	fmt.Println(len(stock), stock)

	src := []int{1, 2, 3, 4}
	dst := make([]int, 2)
	n := copy(dst, src)
	fmt.Println(n, dst)

	r := 'x'
	fmt.Println(r, string(r), "tab\there", `raw\n`)

	ready := make(chan int, 1)
	done := make(chan string)
	go func() { done <- "worker" }()
	ready <- 42
	for i := 0; i < 2; i++ {
		select {
		case v := <-ready:
			fmt.Println("ready", v)
		default:
			fmt.Println("nothing ready")
		}
	}
	fmt.Println("done", <-done)
	close(ready)
	v, ok := <-ready
	fmt.Println(v, ok || true, !ok)

	const big = 1 << 40
	fmt.Println(big/1024, float64(big)/3)
	i := 0
loop:
	if i < 3 {
		i++
		goto loop
	}
	fmt.Println("goto", i)
}
