package supervisor

// An x86-64 instruction-length decoder, for finding the rdtsc and rdtscp
// instructions in a node's code (tscpatch_linux.go). It decodes only what
// determines an instruction's length in 64-bit mode: legacy prefixes,
// REX, the VEX, EVEX and XOP escapes, the opcode maps 0F, 0F38 and 0F3A,
// the ModRM, SIB and displacement bytes, and the immediates (Intel SDM
// vol. 2, ch. 2 and appendix A, the opcode maps; AMD APM vol. 3 for XOP
// and 3DNow!). TestX86LenObjdump checks it against GNU objdump on system
// libraries, weft itself and Debian programs: the same instruction starts.

// insnLen returns the length of the instruction at the start of b, or 0 if
// b does not start a valid 64-bit instruction or is cut short.
func insnLen(b []byte) int {
	i := 0
	opsize16, addr32, rexW, repne, rep := false, false, false, false, false
	for ; i < len(b) && i < 14; i++ {
		c := b[i]
		switch {
		case c == 0x66:
			opsize16 = true
		case c == 0x67:
			addr32 = true
		case c == 0xf2:
			repne = true
		case c == 0xf3:
			rep = true
		case c == 0xf0, c == 0x2e, c == 0x36, c == 0x3e, c == 0x26, c == 0x64, c == 0x65:
		case c >= 0x40 && c <= 0x4f:
			// REX counts only right before the opcode; a legacy prefix
			// after it makes it void.
			if i+1 < len(b) && isLegacyPrefix(b[i+1]) {
				continue
			}
			rexW = c&8 != 0
		default:
			goto opcode
		}
		if c < 0x40 || c > 0x4f {
			rexW = false
		}
	}
	return 0
opcode:
	_ = rep
	if i >= len(b) {
		return 0
	}
	op := b[i]
	i++
	immz := 4
	if opsize16 {
		immz = 2
	}
	if rexW {
		immz = 4
	}
	switch op {
	case 0x0f:
		if i >= len(b) {
			return 0
		}
		op2 := b[i]
		i++
		switch op2 {
		case 0x38:
			if i >= len(b) {
				return 0
			}
			i++ // the opcode
			return modrmEnd(b, i, addr32, false, 0)
		case 0x3a:
			if i >= len(b) {
				return 0
			}
			i++
			return modrmEnd(b, i, addr32, false, 1)
		case 0x0f: // 3DNow!: ModRM, then the opcode as an imm8 suffix
			return modrmEnd(b, i, addr32, false, 1)
		}
		switch m := map0F[op2]; m {
		case mInvalid:
			return 0
		case mNone:
			return i
		case mRel32:
			return end(b, i+4)
		case mModRM:
			imm := 0
			if op2 == 0x78 && (opsize16 || repne) { // EXTRQ / INSERTQ ib, ib (SSE4a)
				imm = 2
			}
			return modrmEnd(b, i, addr32, op2 >= 0x20 && op2 <= 0x23, imm)
		case mModRMImm8:
			return modrmEnd(b, i, addr32, false, 1)
		}
		return 0
	case 0xc5: // two-byte VEX: map 0F
		if i+1 >= len(b) {
			return 0
		}
		return vexEnd(b, i+1, 1, addr32)
	case 0xc4: // three-byte VEX
		if i+2 >= len(b) {
			return 0
		}
		mm := int(b[i] & 0x1f)
		if mm < 1 || mm > 3 {
			return 0
		}
		return vexEnd(b, i+2, mm, addr32)
	case 0x62: // EVEX
		if i+3 >= len(b) {
			return 0
		}
		if b[i]&0x08 != 0 || b[i+1]&0x04 == 0 { // reserved bits: P0[3] = 0, P1[2] = 1
			return 0
		}
		mm := int(b[i] & 0x07)
		op := b[i+3]
		switch mm {
		case 1:
			return modrmEnd(b, i+4, addr32, false, vexMap1Imm(op))
		case 2, 5, 6:
			return modrmEnd(b, i+4, addr32, false, 0)
		case 3:
			return modrmEnd(b, i+4, addr32, false, 1)
		}
		return 0
	case 0x8f:
		if i >= len(b) {
			return 0
		}
		if b[i]&0x38 == 0 { // POP r/m64
			return modrmEnd(b, i, addr32, false, 0)
		}
		// XOP (AMD): maps 8 (imm8), 9 (none), 0Ah (imm32)
		if i+2 >= len(b) {
			return 0
		}
		mm := b[i] & 0x1f
		imm := 0
		switch mm {
		case 8:
			imm = 1
		case 9:
		case 0xa:
			imm = 4
		default:
			return 0
		}
		return modrmEnd(b, i+3, addr32, false, imm)
	}
	switch m := map1[op]; m {
	case mNone:
		return i
	case mImm8:
		return end(b, i+1)
	case mImm16:
		return end(b, i+2)
	case mImmZ:
		return end(b, i+immz)
	case mRel32:
		return end(b, i+4)
	case mModRM:
		return modrmEnd(b, i, addr32, false, 0)
	case mModRMImm8:
		return modrmEnd(b, i, addr32, false, 1)
	case mModRMImmZ:
		return modrmEnd(b, i, addr32, false, immz)
	}
	switch op {
	case 0xa0, 0xa1, 0xa2, 0xa3: // MOV with a moffs: an address-size offset
		if addr32 {
			return end(b, i+4)
		}
		return end(b, i+8)
	case 0xb8, 0xb9, 0xba, 0xbb, 0xbc, 0xbd, 0xbe, 0xbf: // MOV r, imm: imm64 with REX.W
		if rexW {
			return end(b, i+8)
		}
		return end(b, i+immz)
	case 0xc8: // ENTER iw, ib
		return end(b, i+3)
	case 0xf6, 0xf7: // group 3: TEST (/0, /1) has an immediate
		if i >= len(b) {
			return 0
		}
		imm := 0
		if reg := b[i] >> 3 & 7; reg <= 1 {
			imm = 1
			if op == 0xf7 {
				imm = immz
			}
		}
		return modrmEnd(b, i, addr32, false, imm)
	}
	return 0
}

func isLegacyPrefix(c byte) bool {
	switch c {
	case 0x66, 0x67, 0xf0, 0xf2, 0xf3, 0x2e, 0x36, 0x3e, 0x26, 0x64, 0x65:
		return true
	}
	return false
}

// vexEnd finishes a VEX instruction whose opcode is at b[i], in map mm.
func vexEnd(b []byte, i, mm int, addr32 bool) int {
	if i >= len(b) {
		return 0
	}
	op := b[i]
	i++
	switch mm {
	case 1:
		if op == 0x77 { // VZEROUPPER, VZEROALL: no ModRM
			return i
		}
		return modrmEnd(b, i, addr32, false, vexMap1Imm(op))
	case 2:
		return modrmEnd(b, i, addr32, false, 0)
	case 3:
		return modrmEnd(b, i, addr32, false, 1)
	}
	return 0
}

// vexMap1Imm is the immediate size of a VEX or EVEX instruction in map 0F.
func vexMap1Imm(op byte) int {
	switch op {
	case 0x70, 0x71, 0x72, 0x73, 0xc2, 0xc4, 0xc5, 0xc6:
		return 1
	}
	return 0
}

// modrmEnd returns the end of an instruction whose ModRM byte is at b[i],
// followed by imm immediate bytes. regOnly decodes the ModRM as a register
// form whatever its mod (MOV to or from a control or debug register).
func modrmEnd(b []byte, i int, addr32, regOnly bool, imm int) int {
	_ = addr32 // 32-bit addressing in 64-bit mode has the same ModRM and SIB forms
	if i >= len(b) {
		return 0
	}
	m := b[i]
	i++
	mod, rm := m>>6, m&7
	if mod == 3 || regOnly {
		return end(b, i+imm)
	}
	if rm == 4 { // SIB
		if i >= len(b) {
			return 0
		}
		sib := b[i]
		i++
		if mod == 0 && sib&7 == 5 {
			i += 4
		}
	} else if mod == 0 && rm == 5 { // RIP-relative
		i += 4
	}
	switch mod {
	case 1:
		i++
	case 2:
		i += 4
	}
	return end(b, i+imm)
}

func end(b []byte, i int) int {
	if i > len(b) || i > 15 {
		return 0
	}
	return i
}

// Operand forms in the opcode maps, as far as they set the length.
const (
	mInvalid   = iota // invalid in 64-bit mode, or handled by a case of its own
	mNone             // no operand bytes
	mImm8             // an imm8 (or rel8)
	mImm16            // an imm16
	mImmZ             // an imm16 or imm32 by operand size
	mRel32            // a rel32
	mModRM            // a ModRM (and SIB, displacement)
	mModRMImm8        // a ModRM, then an imm8
	mModRMImmZ        // a ModRM, then an imm16 or imm32
)

// map1 is the one-byte opcode map. Prefixes, REX, the escapes and the
// opcodes decoded by a case of their own (moffs, MOV imm64, ENTER, group 3)
// are mInvalid here.
var map1 = func() (m [256]byte) {
	for op := 0; op < 0x40; op++ {
		switch op & 7 {
		case 0, 1, 2, 3:
			m[op] = mModRM
		case 4:
			m[op] = mImm8
		case 5:
			m[op] = mImmZ
		}
	}
	// 06, 07, 0E, 16, 17, 1E, 1F, 27, 2F, 37, 3F: invalid; 0F escape;
	// 26, 2E, 36, 3E: prefixes.
	for op := 0x50; op <= 0x5f; op++ {
		m[op] = mNone
	}
	m[0x63] = mModRM
	m[0x68] = mImmZ
	m[0x69] = mModRMImmZ
	m[0x6a] = mImm8
	m[0x6b] = mModRMImm8
	for op := 0x6c; op <= 0x6f; op++ {
		m[op] = mNone
	}
	for op := 0x70; op <= 0x7f; op++ {
		m[op] = mImm8
	}
	m[0x80] = mModRMImm8
	m[0x81] = mModRMImmZ
	m[0x83] = mModRMImm8
	for op := 0x84; op <= 0x8e; op++ {
		m[op] = mModRM
	}
	for op := 0x90; op <= 0x9f; op++ {
		m[op] = mNone
	}
	m[0x9a] = mInvalid
	for op := 0xa4; op <= 0xa7; op++ {
		m[op] = mNone
	}
	m[0xa8] = mImm8
	m[0xa9] = mImmZ
	for op := 0xaa; op <= 0xaf; op++ {
		m[op] = mNone
	}
	for op := 0xb0; op <= 0xb7; op++ {
		m[op] = mImm8
	}
	m[0xc0] = mModRMImm8
	m[0xc1] = mModRMImm8
	m[0xc2] = mImm16
	m[0xc3] = mNone
	m[0xc6] = mModRMImm8
	m[0xc7] = mModRMImmZ
	m[0xc9] = mNone
	m[0xca] = mImm16
	m[0xcb] = mNone
	m[0xcc] = mNone
	m[0xcd] = mImm8
	m[0xcf] = mNone
	for op := 0xd0; op <= 0xd3; op++ {
		m[op] = mModRM
	}
	m[0xd7] = mNone
	for op := 0xd8; op <= 0xdf; op++ {
		m[op] = mModRM
	}
	for op := 0xe0; op <= 0xe7; op++ {
		m[op] = mImm8
	}
	m[0xe8] = mRel32
	m[0xe9] = mRel32
	m[0xeb] = mImm8
	for op := 0xec; op <= 0xef; op++ {
		m[op] = mNone
	}
	m[0xf1] = mNone
	m[0xf4] = mNone
	m[0xf5] = mNone
	for op := 0xf8; op <= 0xfd; op++ {
		m[op] = mNone
	}
	m[0xfe] = mModRM
	m[0xff] = mModRM
	return m
}()

// map0F is the two-byte opcode map (0F xx); 0F 38, 0F 3A and 0F 0F are
// decoded by cases of their own.
var map0F = func() (m [256]byte) {
	for op := range m {
		m[op] = mModRM
	}
	for _, op := range []byte{0x04, 0x0a, 0x0c, 0x24, 0x25, 0x26, 0x27, 0x36, 0x39, 0x3b, 0x3c, 0x3d, 0x3e, 0x3f, 0x7a, 0x7b, 0xa6, 0xa7} {
		m[op] = mInvalid
	}
	for _, op := range []byte{0x05, 0x06, 0x07, 0x08, 0x09, 0x0b, 0x0e, 0x30, 0x31, 0x32, 0x33, 0x34, 0x35, 0x37, 0x77, 0xa0, 0xa1, 0xa2, 0xa8, 0xa9, 0xaa} {
		m[op] = mNone
	}
	for op := 0xc8; op <= 0xcf; op++ {
		m[op] = mNone // BSWAP
	}
	for op := 0x80; op <= 0x8f; op++ {
		m[op] = mRel32 // Jcc rel32
	}
	for _, op := range []byte{0x70, 0x71, 0x72, 0x73, 0xa4, 0xac, 0xba, 0xc2, 0xc4, 0xc5, 0xc6} {
		m[op] = mModRMImm8
	}
	return m
}()
