module github.com/weft-mc/weft

go 1.26.0

require (
	github.com/BurntSushi/toml v1.6.0 // indirect
	github.com/apache/arrow-go/v18 v18.8.0 // indirect
	github.com/go-echarts/go-echarts/v2 v2.6.7 // indirect
	github.com/go-zeromq/goczmq/v4 v4.2.2 // indirect
	github.com/go-zeromq/zmq4 v0.17.0 // indirect
	github.com/klauspost/compress v1.20.4 // indirect
	github.com/seccomp/libseccomp-golang v0.11.1 // indirect
	github.com/traefik/yaegi v0.16.1 // indirect
	golang.org/x/sync v0.22.0 // indirect
	golang.org/x/sys v0.50.0 // indirect
	golang.org/x/text v0.41.0 // indirect
	gonum.org/v1/gonum v0.17.0 // indirect
)
