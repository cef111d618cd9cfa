// module: github.com/pkg/errors@v0.9.1
package main

import (
	"fmt"
	"io"

	"github.com/pkg/errors"
)

func main() {
	err := errors.Wrap(io.EOF, "reading header")
	fmt.Println(err, errors.Cause(err) == io.EOF)
	err = errors.WithMessage(err, "open")
	fmt.Println(err)
	fmt.Println(errors.Is(err, io.EOF))
}
