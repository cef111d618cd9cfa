package model

import "testing"

func TestParseType(t *testing.T) {
	tests := []struct {
		in   string
		want Type
		size int
		err  string
	}{
		{in: "int8", want: Type{Kind: Int8}, size: 1},
		{in: "uint16", want: Type{Kind: Uint16}, size: 2},
		{in: "int32", want: Type{Kind: Int32}, size: 4},
		{in: "uint64", want: Type{Kind: Uint64}, size: 8},
		{in: "int32[4]", want: Type{Kind: Int32, Len: 4}, size: 16},
		{in: "uint8[1]", want: Type{Kind: Uint8, Len: 1}, size: 1},
		{in: "int33", err: `unknown type "int33" (want int8, int16, int32, int64, uint8, uint16, uint32, uint64, optionally with [N])`},
		{in: "", err: `unknown type "" (want int8, int16, int32, int64, uint8, uint16, uint32, uint64, optionally with [N])`},
		{in: "int32[0]", err: `bad array length in type "int32[0]" (want int32[N] with 1 <= N <= 1048576)`},
		{in: "int32[+4]", err: `bad array length in type "int32[+4]" (want int32[N] with 1 <= N <= 1048576)`},
		{in: "int32[4", err: `bad array length in type "int32[4" (want int32[N] with 1 <= N <= 1048576)`},
		{in: "int32[]", err: `bad array length in type "int32[]" (want int32[N] with 1 <= N <= 1048576)`},
	}
	for _, tt := range tests {
		got, err := ParseType(tt.in)
		if tt.err != "" {
			if errString(err) != tt.err {
				t.Errorf("ParseType(%q) error %v, want %s", tt.in, err, tt.err)
			}
			continue
		}
		if err != nil || got != tt.want || got.Size() != tt.size || got.String() != tt.in {
			t.Errorf("ParseType(%q) = %v (size %d), %v; want %v (size %d)", tt.in, got, got.Size(), err, tt.want, tt.size)
		}
	}
}

// TestTypeDecode: little-endian memory of x86-64 globals to Values.
func TestTypeDecode(t *testing.T) {
	tests := []struct {
		typ  string
		mem  []byte
		want string
	}{
		{"int8", []byte{0xff}, "-1"},
		{"uint8", []byte{0xff}, "255"},
		{"int16", []byte{0x00, 0x80}, "-32768"},
		{"uint16", []byte{0x34, 0x12}, "4660"},
		{"int32", []byte{5, 0, 0, 0}, "5"},
		{"int32", []byte{0xfe, 0xff, 0xff, 0xff}, "-2"},
		{"uint32", []byte{0xff, 0xff, 0xff, 0xff}, "4294967295"},
		{"int64", []byte{1, 0, 0, 0, 0, 0, 0, 0x80}, "-9223372036854775807"},
		{"uint64", []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}, "-1"}, // wraps
		{"int16[3]", []byte{1, 0, 0xff, 0xff, 3, 0}, "[1, -1, 3]"},
	}
	for _, tt := range tests {
		typ, err := ParseType(tt.typ)
		if err != nil {
			t.Fatal(err)
		}
		if got := typ.Decode(tt.mem).String(); got != tt.want {
			t.Errorf("%s.Decode(% x) = %s, want %s", tt.typ, tt.mem, got, tt.want)
		}
	}
}

func TestValue(t *testing.T) {
	r := Record([]Field{{"src", Int(0)}, {"val", Int(5)}})
	tests := []struct {
		v    Value
		str  string
		kind ValueKind
	}{
		{Int(-3), "-3", IntValue},
		{Str("a\"b"), `"a\"b"`, StrValue},
		{Bool(true), "true", BoolValue},
		{List(), "[]", ListValue},
		{List(Int(1), Str("x"), List(Int(2))), `[1, "x", [2]]`, ListValue},
		{r, "{src: 0, val: 5}", RecordValue},
		{Value{}, "<invalid>", InvalidValue},
	}
	for _, tt := range tests {
		if tt.v.String() != tt.str || tt.v.Kind() != tt.kind || !tt.v.Equal(tt.v) {
			t.Errorf("%v: String %q Kind %v, want %q %v", tt.v, tt.v.String(), tt.v.Kind(), tt.str, tt.kind)
		}
	}
	unequal := [][2]Value{
		{Int(1), Int(2)},
		{Int(1), Str("1")},
		{Int(1), Bool(true)},
		{List(Int(1)), List(Int(1), Int(2))},
		{r, Record([]Field{{"val", Int(5)}, {"src", Int(0)}})}, // field order matters
		{r, Record([]Field{{"src", Int(0)}, {"val", Int(6)}})},
	}
	for _, p := range unequal {
		if p[0].Equal(p[1]) || p[1].Equal(p[0]) {
			t.Errorf("%v equals %v", p[0], p[1])
		}
	}
	if v, ok := r.Field("val"); !ok || !v.Equal(Int(5)) {
		t.Errorf("Field(val) = %v, %v", v, ok)
	}
	if _, ok := r.Field("nope"); ok {
		t.Error("Field(nope) found")
	}
}
