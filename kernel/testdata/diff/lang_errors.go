package main

import (
	"errors"
	"fmt"
	"io"
)

var ErrEmpty = errors.New("empty")

type notFound struct{ name string }

func (e *notFound) Error() string { return e.name + " not found" }

func find(name string) error {
	if name == "" {
		return ErrEmpty
	}
	return fmt.Errorf("find: %w", &notFound{name})
}

func main() {
	err := find("")
	fmt.Println(err == ErrEmpty, errors.Is(err, ErrEmpty))
	err = find("x")
	var nf *notFound
	fmt.Println(errors.As(err, &nf), nf.name, err)
	fmt.Println(errors.Is(fmt.Errorf("wrap: %w", io.EOF), io.EOF))
}
