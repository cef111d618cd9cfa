// Command gohttp is a small Go HTTP server for weft's tests: GET /set?v=N
// stores N, GET /val answers "VAL N". It listens on 127.0.0.1:PORT
// (its first argument).
package main

import (
	"fmt"
	"net/http"
	"os"
	"strconv"
	"sync/atomic"
)

func main() {
	var val atomic.Int64
	http.HandleFunc("/set", func(w http.ResponseWriter, r *http.Request) {
		n, err := strconv.ParseInt(r.URL.Query().Get("v"), 10, 64)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		val.Store(n)
		fmt.Fprintln(w, "OK")
	})
	http.HandleFunc("/val", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "VAL %d\n", val.Load())
	})
	if err := http.ListenAndServe("127.0.0.1:"+os.Args[1], nil); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
