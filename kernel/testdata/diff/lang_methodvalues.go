package main

import "fmt"

type Point struct{ X, Y int }

func (p Point) Add(q Point) Point { return Point{p.X + q.X, p.Y + q.Y} }

func (p *Point) Scale(k int) { p.X *= k; p.Y *= k }

func main() {
	p := Point{1, 2}
	add := p.Add
	p.X = 100
	fmt.Println(add(Point{10, 10}))
	scale := p.Scale
	scale(2)
	fmt.Println(p)
	f := Point.Add
	fmt.Println(f(Point{1, 1}, Point{2, 2}))
	g := (*Point).Scale
	g(&p, 3)
	fmt.Println(p)
}
