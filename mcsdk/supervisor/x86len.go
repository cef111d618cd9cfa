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
	opsize16, addr32, rexW, repne := false, false, false, false
	for ; ; i++ {
		if i >= len(b) || i >= 14 {
			return 0
		}
		c := b[i]
		switch {
		case c == 0x66:
			opsize16 = true
		case c == 0x67:
			addr32 = true
		case c == 0xf2:
			repne = true
		case isLegacyPrefix(c):
		case c >= 0x40 && c <= 0x4f:
			rexW = c&8 != 0
			continue
		default:
			goto opcode
		}
		rexW = false // REX counts only right before the opcode: a legacy prefix after it voids it
	}
opcode:
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
			return modrmEnd(b, i, false, 0)
		case 0x3a:
			if i >= len(b) {
				return 0
			}
			i++
			return modrmEnd(b, i, false, 1)
		case 0x0f: // 3DNow!: ModRM, then the opcode as an imm8 suffix
			return modrmEnd(b, i, false, 1)
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
			return modrmEnd(b, i, op2 >= 0x20 && op2 <= 0x23, imm)
		case mModRMImm8:
			return modrmEnd(b, i, false, 1)
		}
		return 0
	case 0xc5: // two-byte VEX: map 0F
		if i+1 >= len(b) {
			return 0
		}
		return vexEnd(b, i+1, 1)
	case 0xc4: // three-byte VEX
		if i+2 >= len(b) {
			return 0
		}
		mm := int(b[i] & 0x1f)
		if mm < 1 || mm > 3 {
			return 0
		}
		return vexEnd(b, i+2, mm)
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
			return modrmEnd(b, i+4, false, vexMap1Imm(op))
		case 2, 5, 6:
			return modrmEnd(b, i+4, false, 0)
		case 3:
			return modrmEnd(b, i+4, false, 1)
		}
		return 0
	case 0x8f:
		if i >= len(b) {
			return 0
		}
		if b[i]&0x38 == 0 { // POP r/m64
			return modrmEnd(b, i, false, 0)
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
		return modrmEnd(b, i+3, false, imm)
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
		return modrmEnd(b, i, false, 0)
	case mModRMImm8:
		return modrmEnd(b, i, false, 1)
	case mModRMImmZ:
		return modrmEnd(b, i, false, immz)
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
		return modrmEnd(b, i, false, imm)
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
func vexEnd(b []byte, i, mm int) int {
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
		return modrmEnd(b, i, false, vexMap1Imm(op))
	case 2:
		return modrmEnd(b, i, false, 0)
	case 3:
		return modrmEnd(b, i, false, 1)
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
// (32-bit addressing, with 67, has the same ModRM and SIB forms in 64-bit
// mode.)
func modrmEnd(b []byte, i int, regOnly bool, imm int) int {
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

// An opRow gives an operand form to opcodes and opcode ranges ([lo, hi]).
type opRow struct {
	form  byte
	spans [][2]int
}

// opTable builds an opcode map: every opcode def, then each row's in
// turn (a later row overrides an earlier one).
func opTable(def byte, rows ...opRow) (m [256]byte) {
	for op := range m {
		m[op] = def
	}
	for _, r := range rows {
		for _, sp := range r.spans {
			for op := sp[0]; op <= sp[1]; op++ {
				m[op] = r.form
			}
		}
	}
	return m
}

// one is the span of a single opcode.
func one(ops ...int) [][2]int {
	out := make([][2]int, len(ops))
	for i, op := range ops {
		out[i] = [2]int{op, op}
	}
	return out
}

// map1 is the one-byte opcode map. Prefixes, REX, the escapes and the
// opcodes decoded by a case of their own (moffs, MOV imm64, ENTER, group 3)
// are mInvalid here, as are 06, 07, 0E, 16, 17, 1E, 1F, 27, 2F, 37, 3F, 60,
// 61, 82, 9A, CE, D4, D5, D6 and EA, invalid in 64-bit mode.
var map1 = opTable(mInvalid,
	// the ALU rows 00-3F: r/m forms, then AL, imm8 and eAX, imm
	opRow{mModRM, [][2]int{{0x00, 0x03}, {0x08, 0x0b}, {0x10, 0x13}, {0x18, 0x1b}, {0x20, 0x23}, {0x28, 0x2b}, {0x30, 0x33}, {0x38, 0x3b},
		{0x63, 0x63}, {0x84, 0x8e}, {0xd0, 0xd3}, {0xd8, 0xdf}, {0xfe, 0xff}}},
	opRow{mImm8, append(one(0x04, 0x0c, 0x14, 0x1c, 0x24, 0x2c, 0x34, 0x3c, 0x6a, 0xa8, 0xcd, 0xeb),
		[2]int{0x70, 0x7f}, [2]int{0xb0, 0xb7}, [2]int{0xe0, 0xe7})},
	opRow{mImmZ, one(0x05, 0x0d, 0x15, 0x1d, 0x25, 0x2d, 0x35, 0x3d, 0x68, 0xa9)},
	opRow{mNone, append(one(0xc3, 0xc9, 0xcb, 0xcc, 0xcf, 0xd7, 0xf1, 0xf4, 0xf5),
		[2]int{0x50, 0x5f}, [2]int{0x6c, 0x6f}, [2]int{0x90, 0x99}, [2]int{0x9b, 0x9f}, [2]int{0xa4, 0xa7}, [2]int{0xaa, 0xaf},
		[2]int{0xec, 0xef}, [2]int{0xf8, 0xfd})},
	opRow{mImm16, one(0xc2, 0xca)},
	opRow{mRel32, one(0xe8, 0xe9)},
	opRow{mModRMImm8, one(0x6b, 0x80, 0x83, 0xc0, 0xc1, 0xc6)},
	opRow{mModRMImmZ, one(0x69, 0x81, 0xc7)},
)

// map0F is the two-byte opcode map (0F xx); 0F 38, 0F 3A and 0F 0F are
// decoded by cases of their own.
var map0F = opTable(mModRM,
	opRow{mInvalid, one(0x04, 0x0a, 0x0c, 0x24, 0x25, 0x26, 0x27, 0x36, 0x39, 0x3b, 0x3c, 0x3d, 0x3e, 0x3f, 0x7a, 0x7b, 0xa6, 0xa7)},
	opRow{mNone, append(one(0x05, 0x06, 0x07, 0x08, 0x09, 0x0b, 0x0e, 0x30, 0x31, 0x32, 0x33, 0x34, 0x35, 0x37, 0x77, 0xa0, 0xa1, 0xa2, 0xa8, 0xa9, 0xaa),
		[2]int{0xc8, 0xcf})}, // … BSWAP
	opRow{mRel32, [][2]int{{0x80, 0x8f}}}, // Jcc rel32
	opRow{mModRMImm8, one(0x70, 0x71, 0x72, 0x73, 0xa4, 0xac, 0xba, 0xc2, 0xc4, 0xc5, 0xc6)},
)
