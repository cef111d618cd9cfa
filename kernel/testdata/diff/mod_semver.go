// module: github.com/Masterminds/semver/v3@v3.3.1
package main

import (
	"fmt"

	"github.com/Masterminds/semver/v3"
)

func main() {
	v := semver.MustParse("1.2.3-beta.1")
	c, _ := semver.NewConstraint(">= 1.2.0-0, < 2")
	fmt.Println(v.Major(), v.Minor(), v.Prerelease(), c.Check(v))
	fmt.Println(v.IncMinor().String(), semver.MustParse("1.10.0").GreaterThan(semver.MustParse("1.9.9")))
}
