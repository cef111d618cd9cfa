package mcsdk

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"

	"github.com/weft-mc/weft/mcsdk/model"
	"github.com/weft-mc/weft/mcsdk/supervisor"
)

// Binary is a built (or prebuilt) target executable for one variant.
type Binary struct {
	Variant string
	Path    string
	Hash    string // sha256 of the executable's bytes
}

// buildSeq numbers builds, for their temporary files.
var buildSeq atomic.Int64

// CacheDir is where weft keeps built targets by default:
// $XDG_CACHE_HOME/weft, else ~/.cache/weft (supervisor.CacheDir; a
// Host's Toolchain.CacheDir, which weft's CLI sets from $WEFT_CACHE,
// overrides it).
func CacheDir() string { return supervisor.CacheDir() }

// Build is BuildWith the default toolchain (cc, CacheDir()).
func Build(m *model.Model, variant string) (Binary, error) {
	return BuildWith(m, variant, supervisor.Toolchain{})
}

// BuildWith returns the executable for variant of m: the model's prebuilt
// binary, or its C source compiled with tc's compiler and the variant's
// flags. Builds are cached in tc's cache directory by the hash of source,
// flags and compiler, one binary per variant, so a rebuilt binary always
// reflects the current source.
func BuildWith(m *model.Model, variant string, tc supervisor.Toolchain) (Binary, error) {
	v, err := m.Variant(variant)
	if err != nil {
		return Binary{}, err
	}
	if m.Binary != "" {
		h, err := fileHash(m.Binary)
		return withNodeBinaries(m, Binary{Variant: v.Name, Path: m.Binary, Hash: h}, err)
	}
	if m.Source == "" && len(m.NodeDefs) > 0 { // every [[node]] names its binary
		return withNodeBinaries(m, Binary{Variant: v.Name, Path: m.NodeBinary(0)}, nil)
	}
	if m.Source == "" {
		return Binary{}, fmt.Errorf("%s: the model names neither a source nor a binary", m.Path)
	}
	src, err := os.ReadFile(m.Source)
	if err != nil {
		return Binary{}, err
	}
	cc := tc.Compiler()
	flags := append(strings.Fields(m.CFlags), strings.Fields(v.CFlags)...)
	key := sha256.New()
	fmt.Fprintf(key, "weft-build-v1\x00%s\x00%s\x00%s\x00", cc, strings.Join(flags, "\x00"), filepath.Base(m.Source))
	key.Write(src)
	// Local headers next to the source take part in the build too.
	if hs, _ := filepath.Glob(filepath.Join(filepath.Dir(m.Source), "*.h")); hs != nil {
		for _, h := range hs {
			b, _ := os.ReadFile(h)
			fmt.Fprintf(key, "\x00%s\x00", filepath.Base(h))
			key.Write(b)
		}
	}
	dir := filepath.Join(tc.Cache(), "bin")
	out := filepath.Join(dir, hex.EncodeToString(key.Sum(nil))[:24]+"-"+v.Name)
	if _, err := os.Stat(out); err != nil {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return Binary{}, err
		}
		// Unique per build, not only per process: two checks of one
		// process (parallel tests, a notebook) may build the same binary.
		tmp := fmt.Sprintf("%s.tmp%d-%d", out, os.Getpid(), buildSeq.Add(1))
		args := append([]string{"-o", tmp}, flags...)
		args = append(args, m.Source)
		cmd := exec.Command(cc, args...)
		if msg, err := cmd.CombinedOutput(); err != nil {
			os.Remove(tmp)
			return Binary{}, fmt.Errorf("building %s (variant %s): %s %s: %v\n%s", m.Source, v.Name, cc, strings.Join(args, " "), err, msg)
		}
		if err := os.Rename(tmp, out); err != nil {
			os.Remove(tmp)
			return Binary{}, err
		}
	}
	h, err := fileHash(out)
	return withNodeBinaries(m, Binary{Variant: v.Name, Path: out, Hash: h}, err)
}

func fileHash(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
