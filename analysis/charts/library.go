package charts

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// EchartsVersion is the echarts release go-echarts v2.6.7 is written against
// and the one scripts/package.json pins.
const EchartsVersion = "5.4.3"

// JSDirEnv names the environment variable that points at the directory npm
// installed into (the one holding node_modules), normally <repo>/build/js.
const JSDirEnv = "WEFT_JS_DIR"

// echartsRel is echarts.min.js relative to the npm install directory.
const echartsRel = "node_modules/echarts/dist/echarts.min.js"

var versionPat = regexp.MustCompile(`version="(\d+\.\d+\.\d+)"`)

// Library is the echarts JavaScript, read from a local npm install.
type Library struct {
	Path    string // file it was read from
	Version string // echarts version found in the file ("" if not recognised)
	src     string
}

// FindLibrary returns the path of echarts.min.js. It looks in $WEFT_JS_DIR
// (which names build/js, the npm install directory) if set, else in build/js
// of the working directory or any parent, then of the executable's directory
// or any parent.
func FindLibrary() (string, error) {
	if dir := os.Getenv(JSDirEnv); dir != "" {
		p := filepath.Join(dir, filepath.FromSlash(echartsRel))
		if isFile(p) {
			return p, nil
		}
		return "", fmt.Errorf("charts: %s=%s but %s is missing; run scripts/setup.sh (it installs echarts with npm)", JSDirEnv, dir, p)
	}
	var starts []string
	if wd, err := os.Getwd(); err == nil {
		starts = append(starts, wd)
	}
	if exe, err := os.Executable(); err == nil {
		starts = append(starts, filepath.Dir(exe))
	}
	for _, s := range starts {
		if p, ok := walkUp(s); ok {
			return p, nil
		}
	}
	return "", fmt.Errorf("charts: echarts.min.js not found in build/js/%s above %s; run scripts/setup.sh or set %s to the directory holding node_modules/echarts",
		echartsRel, strings.Join(starts, " or "), JSDirEnv)
}

func walkUp(dir string) (string, bool) {
	for {
		p := filepath.Join(dir, "build", "js", filepath.FromSlash(echartsRel))
		if isFile(p) {
			return p, true
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", false
		}
		dir = parent
	}
}

func isFile(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular()
}

// LoadLibrary returns echarts: from $WEFT_JS_DIR when that is set, else
// the copy built into weft (scripts/setup.sh embeds it, so weft works from
// any directory), else the file FindLibrary finds.
func LoadLibrary() (*Library, error) {
	if os.Getenv(JSDirEnv) == "" {
		if lib, ok := embeddedLibrary(); ok {
			return lib, nil
		}
	}
	p, err := FindLibrary()
	if err != nil {
		return nil, err
	}
	return ReadLibrary(p)
}

// ReadLibrary reads echarts from the file at path.
func ReadLibrary(path string) (*Library, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("charts: reading echarts: %w", err)
	}
	if len(b) == 0 {
		return nil, errors.New("charts: " + path + " is empty")
	}
	return newLibrary(path, b), nil
}

// newLibrary makes the library of source b read from path.
func newLibrary(path string, b []byte) *Library {
	lib := &Library{Path: path, src: scriptSafe(string(b))}
	if m := versionPat.FindStringSubmatch(lib.src); m != nil {
		lib.Version = m[1]
	}
	return lib
}

// scriptSafe keeps JavaScript from ending or confusing the <script> element
// that holds it. Both sequences can only occur inside string or regular
// expression literals, where the escaped forms mean the same.
func scriptSafe(js string) string {
	js = strings.ReplaceAll(js, "</script", `<\/script`)
	js = strings.ReplaceAll(js, "</SCRIPT", `<\/SCRIPT`)
	return strings.ReplaceAll(js, "<!--", `<\!--`)
}

// wrapped is the library as one statement that defines window.echarts even
// where an AMD loader (classic Jupyter's require.js) or CommonJS globals
// exist: the UMD header sees define, exports and module as undefined.
func (l *Library) wrapped() string {
	return "(function(define, exports, module) {\n" + l.src + "\n}).call(window);"
}

// Script returns a <script> element that defines window.echarts, for the
// <head> of a page that holds several charts' Elements.
func (l *Library) Script() string {
	return "<script type=\"text/javascript\">\n" + l.wrapped() + "\n</script>\n"
}

// GuardedScript returns a <script> element that defines window.echarts only
// if no earlier output did, as notebook fragments need.
func (l *Library) GuardedScript() string {
	return "<script type=\"text/javascript\">\nif (!window.echarts) {\n" + l.wrapped() + "\n}\n</script>\n"
}
