module github.com/weft-mc/weft/targets/raft

go 1.26

require (
	go.etcd.io/raft/v3 v3.7.0
	google.golang.org/protobuf v1.36.11
)
