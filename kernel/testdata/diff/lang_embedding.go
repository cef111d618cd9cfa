package main

import "fmt"

type Animal struct{ Name string }

func (a Animal) Describe() string { return "animal " + a.Name }

func (a Animal) Sound() string { return "..." }

type Dog struct {
	Animal
	Breed string
}

func (d Dog) Sound() string { return "woof" }

type Sounder interface{ Sound() string }

func main() {
	d := Dog{Animal{"rex"}, "lab"}
	fmt.Println(d.Describe(), d.Sound(), d.Animal.Sound(), d.Name)
	var s Sounder = d
	fmt.Println(s.Sound())
	fmt.Printf("%+v\n", d)
}
