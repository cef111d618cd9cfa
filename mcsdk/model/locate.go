package model

import (
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// locator maps TOML keys to byte offsets in the model source. The TOML
// library keeps key positions private, so a small scanner recovers them. It
// runs only on sources the TOML parser has accepted, so it may be lenient.
//
// Keys are dotted paths; entries of an array of tables carry their index:
// "client.request#1.send". Table headers are recorded under their path.
type locator struct {
	name  string
	src   string
	lines []int          // byte offset of each line start
	keys  map[string]loc // path → offsets
}

type loc struct{ key, val int } // byte offsets of the key and of its value

func newLocator(name string, src []byte) *locator {
	l := &locator{name: name, src: string(src), keys: map[string]loc{}}
	l.lines = append(l.lines, 0)
	for i, c := range src {
		if c == '\n' {
			l.lines = append(l.lines, i+1)
		}
	}
	l.scan()
	return l
}

// pos converts a byte offset to a position (1-based line and byte column).
func (l *locator) pos(off int) Pos {
	line := sort.SearchInts(l.lines, off+1) - 1
	if line < 0 {
		line = 0
	}
	return Pos{File: l.name, Line: line + 1, Col: off - l.lines[line] + 1}
}

// posIn converts a byte offset of src to a position without scanning keys.
func (l *locator) posIn(src []byte, off int) Pos {
	line, start := 1, 0
	for i := 0; i < off && i < len(src); i++ {
		if src[i] == '\n' {
			line, start = line+1, i+1
		}
	}
	return Pos{File: l.name, Line: line, Col: off - start + 1}
}

// keyPos is the position of the key at path, or of its nearest enclosing
// table; keyPos of an unknown top-level path is 1:1.
func (l *locator) keyPos(path string) Pos { return l.pos(l.find(path).key) }

// valPos is the position of the value at path (see keyPos).
func (l *locator) valPos(path string) Pos { return l.pos(l.find(path).val) }

func (l *locator) find(path string) loc {
	for {
		if lc, ok := l.keys[path]; ok {
			return lc
		}
		if lc, ok := l.firstUnder(path); ok { // a dotted key: a.b = 1
			return lc
		}
		i := strings.LastIndexByte(path, '.')
		if i < 0 {
			return loc{}
		}
		path = path[:i]
	}
}

// onLine finds the key whose path is key once the array indices are
// dropped ("faults.partition#1.groups" for "faults.partition.groups") and
// that is written on the given line.
func (l *locator) onLine(key string, line int) (loc, bool) {
	for k, lc := range l.keys {
		if dropIndices(k) == key && l.pos(lc.key).Line == line {
			return lc, true
		}
	}
	return loc{}, false
}

// dropIndices removes the "#N" entry indices from a locator path.
func dropIndices(path string) string {
	parts := strings.Split(path, ".")
	for i, p := range parts {
		if j := strings.IndexByte(p, '#'); j >= 0 {
			parts[i] = p[:j]
		}
	}
	return strings.Join(parts, ".")
}

// firstUnder returns the earliest location of a key below path.
func (l *locator) firstUnder(path string) (loc, bool) {
	best, found := loc{}, false
	for k, lc := range l.keys {
		if strings.HasPrefix(k, path+".") && (!found || lc.key < best.key) {
			best, found = lc, true
		}
	}
	return best, found
}

func (l *locator) scan() {
	s, i, table := l.src, 0, ""
	arrays := map[string]int{}
	for i < len(s) {
		i = skipSpace(s, i, true)
		if i >= len(s) {
			return
		}
		switch {
		case strings.HasPrefix(s[i:], "[["):
			parts, end := scanKey(s, i+2)
			table = strings.Join(parts, ".")
			table += "#" + strconv.Itoa(arrays[table])
			arrays[strings.Join(parts, ".")]++
			l.keys[table] = loc{i, i}
			i = skipLine(s, end)
		case s[i] == '[':
			parts, end := scanKey(s, i+1)
			table = strings.Join(parts, ".")
			l.keys[table] = loc{i, i}
			i = skipLine(s, end)
		default:
			parts, end := scanKey(s, i)
			end = skipSpace(s, end, false)
			if end < len(s) && s[end] == '=' {
				end = skipSpace(s, end+1, false)
			}
			path := strings.Join(parts, ".")
			if table != "" {
				path = table + "." + path
			}
			l.keys[path] = loc{i, end}
			i = skipLine(s, skipValue(s, end))
		}
	}
}

// skipSpace skips blanks, and also newlines and comments when lines is set.
func skipSpace(s string, i int, lines bool) int {
	for i < len(s) {
		switch {
		case s[i] == ' ' || s[i] == '\t':
			i++
		case lines && (s[i] == '\n' || s[i] == '\r'):
			i++
		case lines && s[i] == '#':
			i = skipLine(s, i)
		default:
			return i
		}
	}
	return i
}

// skipLine returns the offset after the next newline at or after i.
func skipLine(s string, i int) int {
	if j := strings.IndexByte(s[min(i, len(s)):], '\n'); j >= 0 {
		return i + j + 1
	}
	return len(s)
}

// scanKey reads a possibly dotted, possibly quoted key starting at i and
// returns its parts and the offset after it (before '=' or ']').
func scanKey(s string, i int) ([]string, int) {
	var parts []string
	for {
		i = skipSpace(s, i, false)
		if i >= len(s) {
			return parts, i
		}
		var part string
		if s[i] == '"' || s[i] == '\'' {
			dec, offs, ok := decodeString(s, i)
			part = dec
			if !ok {
				return parts, i
			}
			i = offs[len(offs)-1] + 1
		} else {
			j := i
			for j < len(s) && isBareKey(s[j]) {
				j++
			}
			part, i = s[i:j], j
		}
		parts = append(parts, part)
		i = skipSpace(s, i, false)
		if i >= len(s) || s[i] != '.' {
			return parts, i
		}
		i++
	}
}

func isBareKey(c byte) bool {
	return c == '_' || c == '-' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// skipValue returns the offset after the TOML value starting at i.
func skipValue(s string, i int) int {
	depth := 0
	for i < len(s) {
		c := s[i]
		switch {
		case c == '"' || c == '\'':
			_, offs, ok := decodeString(s, i)
			if !ok {
				return len(s)
			}
			i = offs[len(offs)-1] + 1
			if depth == 0 {
				return i
			}
			continue
		case c == '[' || c == '{':
			depth++
		case c == ']' || c == '}':
			depth--
			if depth <= 0 {
				return i + 1
			}
		case c == '#':
			i = skipLine(s, i)
			if depth == 0 {
				return i
			}
			continue
		case depth == 0 && (c == '\n' || c == ' ' || c == '\t' || c == '\r'):
			return i
		}
		i++
	}
	return i
}

// decodeString decodes the TOML string literal (basic, literal, or either
// multi-line form) whose opening quote is at s[i]. offs[k] is the source
// offset of decoded byte k; the final element (offs[len(dec)]) is the offset
// of the closing delimiter's last character.
func decodeString(s string, i int) (dec string, offs []int, ok bool) {
	if i < 0 || i >= len(s) || s[i] != '"' && s[i] != '\'' {
		return "", nil, false
	}
	q := s[i]
	multi := strings.HasPrefix(s[i:], strings.Repeat(string(q), 3))
	var b strings.Builder
	j := i + 1
	if multi {
		j = i + 3
		if strings.HasPrefix(s[j:], "\r\n") {
			j += 2
		} else if j < len(s) && s[j] == '\n' {
			j++
		}
	}
	for j < len(s) {
		c := s[j]
		if closesString(s, j, q, multi) {
			end := j
			if multi { // up to two quotes may precede the closing delimiter
				run := 0
				for j+run < len(s) && s[j+run] == q && run < 5 {
					run++
				}
				for k := 0; k < run-3; k++ {
					b.WriteByte(q)
					offs = append(offs, j+k)
				}
				end = j + run - 1
			}
			return b.String(), append(offs, end), true
		}
		if !multi && c == '\n' {
			return "", nil, false
		}
		if q == '"' && c == '\\' {
			n, text, good := unescape(s, j, multi)
			if !good {
				return "", nil, false
			}
			for k := 0; k < len(text); k++ {
				offs = append(offs, j)
			}
			b.WriteString(text)
			j += n
			continue
		}
		b.WriteByte(c)
		offs = append(offs, j)
		j++
	}
	return "", nil, false
}

func closesString(s string, j int, q byte, multi bool) bool {
	if !multi {
		return s[j] == q
	}
	return strings.HasPrefix(s[j:], strings.Repeat(string(q), 3))
}

// unescape decodes the escape sequence at s[j] ('\\'), returning the number
// of source bytes consumed and the decoded text.
func unescape(s string, j int, multi bool) (int, string, bool) {
	if j+1 >= len(s) {
		return 0, "", false
	}
	simple := map[byte]string{'b': "\b", 't': "\t", 'n': "\n", 'f': "\f", 'r': "\r", 'e': "\x1b", '"': "\"", '\\': "\\"}
	c := s[j+1]
	if t, ok := simple[c]; ok {
		return 2, t, true
	}
	width := map[byte]int{'x': 2, 'u': 4, 'U': 8}[c]
	if width > 0 && j+2+width <= len(s) {
		n, err := strconv.ParseUint(s[j+2:j+2+width], 16, 32)
		if err != nil {
			return 0, "", false
		}
		return 2 + width, string(utf8.AppendRune(nil, rune(n))), true
	}
	if multi { // line-ending backslash: trim whitespace up to the next non-blank
		k := j + 1
		for k < len(s) && strings.IndexByte(" \t\r\n", s[k]) >= 0 {
			k++
		}
		if strings.IndexByte(s[j+1:k], '\n') >= 0 {
			return k - j, "", true
		}
	}
	return 0, "", false
}

// ValuePos is the position of the value at path, a dotted key in which
// entries of an array of tables carry their index
// ("faults.partition#1.groups"). With indices it is the position of that
// element of an array value, one index per level of nesting
// ("faults.nodes", 2). An absent key positions at its nearest enclosing
// table, a missing element at the array.
func (m *Model) ValuePos(path string, index ...int) Pos {
	if m.loc == nil {
		return Pos{File: m.Path, Line: 1, Col: 1}
	}
	off := m.loc.find(path).val
	if _, ok := m.loc.keys[path]; !ok {
		off = m.loc.inlineEntry(path, off)
	}
	for _, i := range index {
		off = elemOffset(m.loc.src, off, i)
	}
	return m.loc.pos(off)
}

// KeyPos is the position of the key at path (see ValuePos).
func (m *Model) KeyPos(path string) Pos {
	if m.loc == nil {
		return Pos{File: m.Path, Line: 1, Col: 1}
	}
	return m.loc.keyPos(path)
}

// ErrorAt returns an *Error at pos; with ValuePos it positions problems
// that a model's user finds in the sections Parse leaves raw.
func ErrorAt(pos Pos, format string, args ...any) *Error { return errorf(pos, format, args...) }

// inlineEntry handles a path into an inline array of tables
// ("faults.partition#1.groups" written as partition = [{…}, {groups = …}]):
// the offset of the key inside entry 1, or of the entry, or def.
func (l *locator) inlineEntry(path string, def int) int {
	hash := strings.LastIndexByte(path, '#')
	if hash < 0 {
		return def
	}
	base, rest, _ := strings.Cut(path[hash+1:], ".")
	n, err := strconv.Atoi(base)
	arr, ok := l.keys[path[:hash]]
	if err != nil || !ok {
		return def
	}
	off := elemOffset(l.src, arr.val, n)
	if rest == "" || off >= len(l.src) || l.src[off] != '{' {
		return off
	}
	for i := off + 1; i < len(l.src) && l.src[i] != '}'; {
		i = skipSpace(l.src, i, true)
		if i < len(l.src) && l.src[i] == ',' {
			i = skipSpace(l.src, i+1, true)
		}
		parts, end := scanKey(l.src, i)
		if len(parts) == 0 || end <= i {
			break
		}
		end = skipSpace(l.src, end, false)
		if end < len(l.src) && l.src[end] == '=' {
			end = skipSpace(l.src, end+1, false)
		}
		if strings.Join(parts, ".") == rest {
			return end
		}
		i = skipSpace(l.src, elemEnd(l.src, end), true)
	}
	return off
}

// elemOffset returns the offset of element i of the array value at off,
// or off when there is no such element.
func elemOffset(s string, off, i int) int {
	if off < 0 || off >= len(s) || s[off] != '[' {
		return off
	}
	j := skipSpace(s, off+1, true)
	for k := 0; j < len(s) && s[j] != ']'; k++ {
		if k == i {
			return j
		}
		j = skipSpace(s, elemEnd(s, j), true)
		if j < len(s) && s[j] == ',' {
			j = skipSpace(s, j+1, true)
		}
	}
	return off
}

// elemEnd returns the offset after the array element or inline-table
// value starting at j; unlike skipValue it stops a scalar at ',', ']' or '}'.
func elemEnd(s string, j int) int {
	if j < len(s) && strings.IndexByte("[{\"'", s[j]) >= 0 {
		return skipValue(s, j)
	}
	for j < len(s) && strings.IndexByte(",]} \t\r\n#", s[j]) < 0 {
		j++
	}
	return j
}
