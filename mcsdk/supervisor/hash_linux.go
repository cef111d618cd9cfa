//go:build linux && amd64

package supervisor

import (
	"encoding/binary"
	"hash"
	"io/fs"
	"os"
	"path/filepath"
)

// hashDataDirs writes every node's data directory to h: each entry's path
// relative to the directory, its type and, for regular files, the content
// and (with LoseUnsynced) the content a crash would revert it to. A
// restarted node reads these files, so two states that differ only on
// disk must not merge. Entries are walked in lexical order; inode numbers,
// which the host assigns, are not written.
func (w *World) hashDataDirs(h hash.Hash) error {
	if w.dataRoot == "" {
		return nil
	}
	var b [8]byte
	put := func(v uint64) { binary.LittleEndian.PutUint64(b[:], v); h.Write(b[:]) }
	putBytes := func(p []byte) { put(uint64(len(p))); h.Write(p) }
	for i := range w.nodes {
		dir := w.DataDir(i)
		put(uint64(i))
		err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(dir, path)
			putBytes([]byte(rel))
			put(uint64(d.Type()))
			if !d.Type().IsRegular() {
				return nil
			}
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			putBytes(data)
			if w.cfg.LoseUnsynced {
				ino, ok := inode(path)
				synced, had := w.synced[ino]
				if ok && had {
					put(1)
					putBytes(synced)
				} else {
					put(0)
				}
			}
			return nil
		})
		if err != nil && !os.IsNotExist(err) {
			return err
		}
	}
	return nil
}
