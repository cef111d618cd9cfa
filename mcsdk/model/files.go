package model

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// NodeFile is a file of a [[node]] entry that weft puts into the node's
// run directory before it starts: files are copied as they are, templates
// with their {placeholders} filled for the node (as in args).
//
//	[[node]]
//	files     = ["certs/ca.pem"]          # beside the model; the same name in the run directory
//	templates = ["sentinel.conf"]         # {port}, {id}, {port.peer}… filled in
type NodeFile struct {
	Name     string // relative to the model's directory and to the run directory
	Src      string // absolute path
	Template bool
}

// FileData is one file's name and content for a node.
type FileData struct {
	Name string
	Data []byte
	Mode os.FileMode
}

// nodeFiles reads a [[node]] entry's files and templates.
func (p *parser) nodeFiles(t map[string]any, path string) []NodeFile {
	var out []NodeFile
	for _, key := range []string{"files", "templates"} {
		if _, ok := t[key]; !ok {
			continue
		}
		for k, name := range p.stringsAt(t, path, key) {
			pos := p.m.ValuePos(path+"."+key, k)
			clean := filepath.Clean(name)
			if filepath.IsAbs(name) || clean == "." || clean == ".." || strings.HasPrefix(clean, "../") {
				p.errAt(pos, "%s.%s[%d] = %q: want a path relative to the model's directory, inside it", displayPath(path), key, k, name)
				continue
			}
			src := filepath.Join(p.m.absDir(), clean)
			if !fileExists(src) {
				p.errAt(pos, "%s.%s[%d]: %s does not exist", displayPath(path), key, k, src)
				continue
			}
			if key == "templates" {
				p.checkTemplate(src, path+"."+key, k)
			}
			out = append(out, NodeFile{Name: clean, Src: src, Template: key == "templates"})
		}
	}
	return out
}

// checkTemplate reports the first unknown placeholder of a template.
func (p *parser) checkTemplate(src, path string, k int) {
	b, err := os.ReadFile(src)
	if err != nil {
		p.errAt(p.m.ValuePos(path, k), "%s[%d]: %v", displayPath(path), k, err)
		return
	}
	if _, bad := substitute(string(b), p.m.placeholders(0)); bad >= 0 {
		name := string(b[bad:])
		name = name[:strings.IndexByte(name, '}')]
		line := 1 + strings.Count(string(b[:bad]), "\n")
		p.errAt(p.m.ValuePos(path, k), "%s[%d]: %s:%d: unknown placeholder {%s} (known: %s)", displayPath(path), k, src, line, name, placeholderNames)
	}
}

// NodeFiles returns the files node i finds in its run directory at its
// start: its files copied, its templates with placeholders filled.
func (m *Model) NodeFiles(i int) ([]FileData, error) {
	if i < 0 || i >= len(m.NodeDefs) {
		return nil, nil
	}
	var out []FileData
	for _, f := range m.NodeDefs[i].Files {
		st, err := os.Stat(f.Src)
		if err != nil {
			return nil, err
		}
		b, err := os.ReadFile(f.Src)
		if err != nil {
			return nil, err
		}
		if f.Template {
			s, _ := substitute(string(b), m.placeholders(i))
			b = []byte(s)
		}
		out = append(out, FileData{Name: f.Name, Data: b, Mode: st.Mode().Perm()})
	}
	return out, nil
}

// String names the file for messages.
func (f NodeFile) String() string { return fmt.Sprintf("%s (%s)", f.Name, f.Src) }
