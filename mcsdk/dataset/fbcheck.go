package dataset

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// arrow-go decodes an IPC file's flatbuffer metadata trusting its vector
// lengths and nesting: a corrupt length makes it allocate up to hundreds
// of gigabytes (a crash no recover can catch) and a cyclic child offset
// recurses without end. checkIPCMetadata walks the footer and every
// message header first, with bounds checks, and refuses such files. It
// checks only what arrow-go would allocate or recurse on; all other errors
// are left to arrow-go, which reports them.
//
// Layouts follow format/File.fbs, Schema.fbs and Message.fbs of the Arrow
// specification (vtable slot numbers are the field order there).

const (
	fbMaxFields     = 256       // fields in a schema, all levels
	fbMaxDepth      = 8         // nesting of fields (a verdict schema needs 2)
	fbMaxFooterSize = 256 << 20 // footer bytes read before arrow-go does
	// fbMaxUncompressed bounds what a record batch's compressed buffers
	// may claim uncompressed: arrow-go allocates what they claim.
	fbMaxUncompressed = 256 << 20
)

var errFlatbuffer = errors.New("corrupt Arrow metadata")

// checkIPCMetadata checks the file r of the given size and returns the
// number of rows its record batches declare.
func checkIPCMetadata(r io.ReaderAt, size int64) (rows int64, err error) {
	const tail = 10 // int32 footer length + "ARROW1"
	if size < tail {
		return 0, nil
	}
	buf := make([]byte, tail)
	if _, err := r.ReadAt(buf, size-tail); err != nil || string(buf[4:]) != "ARROW1" {
		return 0, nil
	}
	n := int64(int32(binary.LittleEndian.Uint32(buf)))
	if n <= 0 || n > size-tail || n > fbMaxFooterSize {
		return 0, nil
	}
	footer := make([]byte, n)
	if _, err := r.ReadAt(footer, size-tail-n); err != nil {
		return 0, nil
	}
	blocks, err := checkFooter(fbuf(footer))
	if err != nil {
		return 0, err
	}
	for _, b := range blocks {
		n, err := checkMessage(r, size, b)
		if err != nil {
			return 0, err
		}
		rows += n
	}
	return rows, nil
}

// block is a footer entry: where a message and its body are.
type block struct {
	offset, meta, body int64
	records            bool // a record batch, not a dictionary batch
}

// checkFooter checks the Footer table and returns its blocks.
func checkFooter(b fbuf) ([]block, error) {
	footer, err := b.root()
	if err != nil {
		return nil, err
	}
	if schema, ok, err := footer.table(1); err != nil {
		return nil, err
	} else if ok {
		if err := checkSchemaFB(schema); err != nil {
			return nil, err
		}
	}
	var blocks []block
	for _, slot := range []int{2, 3} { // dictionaries, recordBatches: struct Block (24 bytes)
		start, count, err := footer.vector(slot, 24)
		if err != nil {
			return nil, err
		}
		for i := 0; i < count; i++ {
			p := start + 24*i
			blocks = append(blocks, block{offset: int64(b.u64(p)), meta: int64(int32(b.u32(p + 8))), body: int64(b.u64(p + 16)), records: slot == 3})
		}
	}
	return blocks, nil
}

func checkSchemaFB(schema fbTable) error {
	if err := schema.tables(2, nil); err != nil { // custom_metadata
		return err
	}
	budget := fbMaxFields
	return schema.tables(1, func(f fbTable) error { return checkField(f, 0, &budget) })
}

// checkField checks a Field table: its children (slot 5), custom metadata
// (slot 6) and, for a Union type (type_type 14, slot 2), the typeIds vector.
func checkField(f fbTable, depth int, budget *int) error {
	*budget--
	if depth > fbMaxDepth || *budget < 0 {
		return fmt.Errorf("%w: fields nested too deep or too many", errFlatbuffer)
	}
	if err := f.tables(6, nil); err != nil {
		return err
	}
	if typ, ok := f.u8(2); ok && typ == 14 {
		if u, ok, err := f.table(3); err != nil {
			return err
		} else if ok {
			if _, _, err := u.vector(1, 4); err != nil {
				return err
			}
		}
	}
	return f.tables(5, func(c fbTable) error { return checkField(c, depth+1, budget) })
}

// checkMessage checks the Message at b: its custom metadata and its
// RecordBatch header (directly or inside a DictionaryBatch). It returns
// the length of a record batch.
func checkMessage(r io.ReaderAt, size int64, b block) (int64, error) {
	if b.offset < 0 || b.meta < 8 || b.meta > size || b.offset > size-b.meta {
		return 0, nil // arrow-go refuses the block itself
	}
	buf := make([]byte, b.meta)
	if _, err := r.ReadAt(buf, b.offset); err != nil {
		return 0, nil
	}
	start := 4
	if binary.LittleEndian.Uint32(buf) == 0xFFFFFFFF {
		start = 8
	}
	bd := msgBody{r: r, off: b.offset + b.meta, len: b.body}
	if bd.len < 0 || bd.len > size-bd.off {
		return 0, nil // arrow-go refuses a body beyond the file
	}
	msg, err := fbuf(buf[start:]).root()
	if err != nil {
		return 0, err
	}
	if err := msg.tables(4, nil); err != nil {
		return 0, err
	}
	header, ok, err := msg.table(2)
	if err != nil || !ok {
		return 0, err
	}
	switch kind, _ := msg.u8(1); kind {
	case 2: // DictionaryBatch: data (slot 1) is a RecordBatch
		data, ok, err := header.table(1)
		if err != nil || !ok {
			return 0, err
		}
		return 0, checkRecordBatchFB(data, bd)
	case 3:
		if !b.records {
			return 0, nil
		}
		return header.i64(0), checkRecordBatchFB(header, bd)
	}
	return 0, nil
}

// msgBody is where a message's body lies in the file.
type msgBody struct {
	r        io.ReaderAt
	off, len int64
}

// checkRecordBatchFB checks nodes (16-byte structs), buffers (16-byte
// structs) and variadic counts. A compressed batch (LZ4 frame or ZSTD,
// per buffer: compacted datasets are) must name a known codec, and its
// buffers, read from the body, may claim at most fbMaxUncompressed bytes
// uncompressed in all: arrow-go allocates whatever they claim.
func checkRecordBatchFB(rb fbTable, bd msgBody) error {
	for _, v := range []struct{ slot, size int }{{1, 16}, {2, 16}, {4, 8}} {
		if _, _, err := rb.vector(v.slot, v.size); err != nil {
			return err
		}
	}
	comp, ok, err := rb.table(3)
	if err != nil || !ok {
		return err
	}
	if codec, _ := comp.u8(0); codec > 1 { // LZ4_FRAME = 0, ZSTD = 1
		return fmt.Errorf("%w: unknown compression codec %d", errFlatbuffer, codec)
	}
	if method, _ := comp.u8(1); method != 0 { // BUFFER
		return fmt.Errorf("%w: unknown compression method %d", errFlatbuffer, method)
	}
	return checkUncompressed(rb, bd)
}

// checkUncompressed sums the uncompressed lengths that the compressed
// buffers of rb declare (an int64 before each buffer's data; -1 for data
// left uncompressed) and refuses more than fbMaxUncompressed.
func checkUncompressed(rb fbTable, bd msgBody) error {
	start, count, _ := rb.vector(2, 16)
	var total int64
	var pre [8]byte
	for i := 0; i < count; i++ {
		p := start + 16*i
		off, n := int64(rb.b.u64(p)), int64(rb.b.u64(p+8))
		if n == 0 {
			continue
		}
		if n < 8 || off < 0 || off > bd.len-n {
			return fmt.Errorf("%w: compressed buffer %d lies outside its body", errFlatbuffer, i)
		}
		if _, err := bd.r.ReadAt(pre[:], bd.off+off); err != nil {
			return fmt.Errorf("%w: compressed buffer %d: %v", errFlatbuffer, i, err)
		}
		u := int64(binary.LittleEndian.Uint64(pre[:]))
		if u == -1 {
			continue
		}
		if u < 0 || u > fbMaxUncompressed-total {
			return fmt.Errorf("%w: compressed buffers claim more than %d bytes uncompressed", errFlatbuffer, fbMaxUncompressed)
		}
		total += u
	}
	return nil
}

// fbuf is flatbuffer bytes; its accessors check every bound.
type fbuf []byte

func (b fbuf) in(p, n int) bool { return p >= 0 && n >= 0 && p <= len(b) && n <= len(b)-p }

func (b fbuf) u32(p int) uint32 { return binary.LittleEndian.Uint32(b[p:]) }
func (b fbuf) u64(p int) uint64 { return binary.LittleEndian.Uint64(b[p:]) }

// root returns the root table.
func (b fbuf) root() (fbTable, error) {
	if !b.in(0, 4) {
		return fbTable{}, errFlatbuffer
	}
	return b.tableAt(int(b.u32(0)))
}

// tableAt returns the table at p after checking its vtable.
func (b fbuf) tableAt(p int) (fbTable, error) {
	if !b.in(p, 4) {
		return fbTable{}, errFlatbuffer
	}
	vt := p - int(int32(b.u32(p)))
	if !b.in(vt, 4) {
		return fbTable{}, errFlatbuffer
	}
	vtLen := int(binary.LittleEndian.Uint16(b[vt:]))
	if vtLen < 4 || vtLen%2 != 0 || !b.in(vt, vtLen) {
		return fbTable{}, errFlatbuffer
	}
	return fbTable{b: b, pos: p, vt: vt, vtLen: vtLen}, nil
}

// fbTable is a checked flatbuffer table.
type fbTable struct {
	b              fbuf
	pos, vt, vtLen int
}

// field returns the absolute position of slot's value, if present.
func (t fbTable) field(slot int) (int, bool) {
	o := 4 + 2*slot
	if o+2 > t.vtLen {
		return 0, false
	}
	off := int(binary.LittleEndian.Uint16(t.b[t.vt+o:]))
	if off == 0 {
		return 0, false
	}
	return t.pos + off, true
}

// i64 returns the int64 at slot, 0 if absent.
func (t fbTable) i64(slot int) int64 {
	p, ok := t.field(slot)
	if !ok || !t.b.in(p, 8) {
		return 0
	}
	return int64(t.b.u64(p))
}

func (t fbTable) u8(slot int) (byte, bool) {
	p, ok := t.field(slot)
	if !ok || !t.b.in(p, 1) {
		return 0, false
	}
	return t.b[p], true
}

// indirect follows the offset stored at slot.
func (t fbTable) indirect(slot int) (int, bool, error) {
	p, ok := t.field(slot)
	if !ok {
		return 0, false, nil
	}
	if !t.b.in(p, 4) {
		return 0, false, errFlatbuffer
	}
	return p + int(t.b.u32(p)), true, nil
}

// table returns the sub-table at slot, if present.
func (t fbTable) table(slot int) (fbTable, bool, error) {
	p, ok, err := t.indirect(slot)
	if err != nil || !ok {
		return fbTable{}, false, err
	}
	sub, err := t.b.tableAt(p)
	return sub, err == nil, err
}

// vector returns the element start and count of the vector at slot after
// checking that count elements of size bytes fit in the buffer.
func (t fbTable) vector(slot, size int) (start, count int, err error) {
	p, ok, err := t.indirect(slot)
	if err != nil || !ok {
		return 0, 0, err
	}
	if !t.b.in(p, 4) {
		return 0, 0, errFlatbuffer
	}
	count = int(t.b.u32(p))
	if count > (len(t.b)-p-4)/size {
		return 0, 0, fmt.Errorf("%w: a vector of %d elements in %d bytes", errFlatbuffer, count, len(t.b))
	}
	return p + 4, count, nil
}

// tables checks the vector of tables at slot and calls each (if not nil)
// on every element.
func (t fbTable) tables(slot int, each func(fbTable) error) error {
	start, count, err := t.vector(slot, 4)
	if err != nil {
		return err
	}
	for i := 0; i < count; i++ {
		p := start + 4*i
		sub, err := t.b.tableAt(p + int(t.b.u32(p)))
		if err != nil {
			return err
		}
		if each != nil {
			if err := each(sub); err != nil {
				return err
			}
		}
	}
	return nil
}
