package mcsdk

import "runtime"

func numCPU() int { return runtime.NumCPU() }
