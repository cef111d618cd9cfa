package display

import (
	"fmt"
	"html"
	"reflect"
	"sort"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// TableRows is how many rows a table shows unless told otherwise.
const TableRows = 20

// Table renders v as a table, HTML with an aligned text/plain fallback,
// showing the first TableRows rows and the total: a slice or array (of
// structs: one column per exported field; of other values: one column), a
// map (sorted keys; struct values spread into columns), an Arrow record
// batch or table. Other values render as Auto does. Cells' last values
// that are slices of structs, maps, Arrow records or tables render this
// way by themselves.
func Table(v any) Data { return TableN(v, TableRows) }

// TableN is Table showing at most n rows (all if n ≤ 0).
func TableN(v any, n int) Data {
	g, ok := gridOf(v, n, true)
	if !ok {
		return Auto(v)
	}
	return g.data()
}

// grid is a table: a header, the rows shown, and how many rows there are.
type grid struct {
	header []string
	rows   [][]string
	total  int
}

// gridOf lays v out as a grid of at most n rows; scalars are false unless
// any is set (slices of numbers stay lists when rendered automatically).
func gridOf(v any, n int, any bool) (grid, bool) {
	if n <= 0 {
		n = int(^uint(0) >> 1)
	}
	switch x := v.(type) {
	case arrow.RecordBatch:
		return recordGrid(x, n, int(x.NumRows())), true
	case arrow.Table:
		r := array.NewTableReader(x, int64(min(n, int(max(x.NumRows(), 1)))))
		defer r.Release()
		g := grid{total: int(x.NumRows())}
		for _, f := range x.Schema().Fields() {
			g.header = append(g.header, f.Name)
		}
		if r.Next() {
			g.rows = recordGrid(r.RecordBatch(), n, 0).rows
		}
		return g, true
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Slice, reflect.Array:
		if isStruct(rv.Type().Elem()) || any {
			return sliceGrid(rv, n), true
		}
	case reflect.Map:
		return mapGrid(rv, n), true
	}
	return grid{}, false
}

func recordGrid(rec arrow.RecordBatch, n, total int) grid {
	g := grid{total: total}
	for _, f := range rec.Schema().Fields() {
		g.header = append(g.header, f.Name)
	}
	rows := min(n, int(rec.NumRows()))
	for i := 0; i < rows; i++ {
		row := make([]string, rec.NumCols())
		for j := range row {
			if c := rec.Column(j); !c.IsNull(i) {
				row[j] = c.ValueStr(i)
			}
		}
		g.rows = append(g.rows, row)
	}
	return g
}

func isStruct(t reflect.Type) bool {
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t.Kind() == reflect.Struct
}

// fields returns the exported fields of struct type t (or *t).
func fields(t reflect.Type) []reflect.StructField {
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	var out []reflect.StructField
	for i := 0; i < t.NumField(); i++ {
		if f := t.Field(i); f.IsExported() {
			out = append(out, f)
		}
	}
	return out
}

func sliceGrid(rv reflect.Value, n int) grid {
	g := grid{total: rv.Len(), header: []string{"value"}}
	et := rv.Type().Elem()
	fs := []reflect.StructField(nil)
	if isStruct(et) {
		fs = fields(et)
		g.header = nil
		for _, f := range fs {
			g.header = append(g.header, f.Name)
		}
	}
	for i := 0; i < min(n, rv.Len()); i++ {
		g.rows = append(g.rows, rowOf(rv.Index(i), fs))
	}
	return g
}

// rowOf formats a value as cells: one per field of fs, or one.
func rowOf(v reflect.Value, fs []reflect.StructField) []string {
	if fs == nil {
		return []string{cell(v)}
	}
	for v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface {
		if v.IsNil() {
			return make([]string, len(fs))
		}
		v = v.Elem()
	}
	row := make([]string, len(fs))
	for i, f := range fs {
		row[i] = cell(v.FieldByIndex(f.Index))
	}
	return row
}

func mapGrid(rv reflect.Value, n int) grid {
	keys := rv.MapKeys()
	sort.Slice(keys, func(i, j int) bool { return fmt.Sprint(keys[i]) < fmt.Sprint(keys[j]) })
	g := grid{total: len(keys), header: []string{"key", "value"}}
	var fs []reflect.StructField
	if isStruct(rv.Type().Elem()) {
		fs = fields(rv.Type().Elem())
		g.header = []string{"key"}
		for _, f := range fs {
			g.header = append(g.header, f.Name)
		}
	}
	for _, k := range keys[:min(n, len(keys))] {
		g.rows = append(g.rows, append([]string{cell(k)}, rowOf(rv.MapIndex(k), fs)...))
	}
	return g
}

// cell formats one value: pointers are followed (nil is empty), string
// slices joined.
func cell(v reflect.Value) string {
	for v.IsValid() && (v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface) {
		if v.IsNil() {
			return ""
		}
		v = v.Elem()
	}
	if !v.IsValid() || !v.CanInterface() {
		return ""
	}
	switch x := v.Interface().(type) {
	case time.Duration:
		return x.String()
	case []string:
		return strings.Join(x, ", ")
	case float64:
		return fmt.Sprintf("%.6g", x)
	}
	return fmt.Sprint(v.Interface())
}

// footer says how many rows are shown.
func (g grid) footer() string {
	if len(g.rows) < g.total {
		return fmt.Sprintf("%d of %d rows", len(g.rows), g.total)
	}
	if g.total == 1 {
		return "1 row"
	}
	return fmt.Sprintf("%d rows", g.total)
}

func (g grid) data() Data {
	return Data{Data: MIMEMap{MIMETypeHTML: g.html(), MIMETypeText: g.text()}}
}

func (g grid) html() string {
	var b strings.Builder
	b.WriteString("<table>\n<thead><tr>")
	for _, h := range g.header {
		b.WriteString("<th>" + html.EscapeString(h) + "</th>")
	}
	b.WriteString("</tr></thead>\n<tbody>\n")
	for _, r := range g.rows {
		b.WriteString("<tr>")
		for _, c := range r {
			b.WriteString("<td>" + html.EscapeString(c) + "</td>")
		}
		b.WriteString("</tr>\n")
	}
	b.WriteString("</tbody>\n</table>\n<p><small>" + g.footer() + "</small></p>")
	return b.String()
}

func (g grid) text() string {
	width := make([]int, len(g.header))
	for i, h := range g.header {
		width[i] = len([]rune(h))
	}
	for _, r := range g.rows {
		for i, c := range r {
			width[i] = max(width[i], len([]rune(c)))
		}
	}
	var b strings.Builder
	line := func(cells []string) {
		for i, c := range cells {
			if i > 0 {
				b.WriteString("  ")
			}
			b.WriteString(c + strings.Repeat(" ", width[i]-len([]rune(c))))
		}
		b.WriteString("\n")
	}
	line(g.header)
	for _, r := range g.rows {
		line(r)
	}
	b.WriteString("(" + g.footer() + ")")
	return b.String()
}
