// module: github.com/montanaflynn/stats@v0.7.1
package main

import (
	"fmt"

	"github.com/montanaflynn/stats"
)

func main() {
	d := stats.Float64Data{1, 2, 3, 4, 10}
	m, _ := d.Mean()
	med, _ := d.Median()
	sd, _ := stats.StandardDeviation(d)
	fmt.Printf("%.4f %.4f %.4f\n", m, med, sd)
	_, err := stats.Mean(nil)
	fmt.Println(err == stats.ErrEmptyInput, err)
}
