module github.com/weft-mc/weft/targets/raft

go 1.26
