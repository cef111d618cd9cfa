package netsim

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"math/rand/v2"
	"reflect"
	"sort"
	"testing"
)

// canonical renders every field of n by reflection, independently of
// Hash: pointers to sockets and channels as their ids, maps in key order,
// functions left out. Two networks no operation can tell apart render the
// same.
func canonical(n *Network) string {
	var b bytes.Buffer
	dump(&b, reflect.ValueOf(n).Elem(), true)
	return b.String()
}

var (
	socketType  = reflect.TypeOf(Socket{})
	channelType = reflect.TypeOf(Channel{})
)

// notState reports whether field i of t is an identity for observers
// (Message.ID, Network.lastID), which is not state: Hash leaves it out.
func notState(t reflect.Type, i int) bool {
	name := t.Field(i).Name
	return (t == reflect.TypeOf(Message{}) && name == "ID") || (t == reflect.TypeOf(Network{}) && name == "lastID")
}

func dump(b *bytes.Buffer, v reflect.Value, top bool) {
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			b.WriteString("nil")
			return
		}
		if !top && (v.Elem().Type() == socketType || v.Elem().Type() == channelType) {
			fmt.Fprintf(b, "#%d", v.Elem().FieldByName("ID").Int())
			return
		}
		dump(b, v.Elem(), false)
	case reflect.Struct:
		b.WriteString("{")
		for i := 0; i < v.NumField(); i++ {
			if v.Field(i).Kind() == reflect.Func || notState(v.Type(), i) {
				continue
			}
			fmt.Fprintf(b, "%s:", v.Type().Field(i).Name)
			dump(b, v.Field(i), false)
			b.WriteString(" ")
		}
		b.WriteString("}")
	case reflect.Slice, reflect.Array:
		fmt.Fprintf(b, "[%d:", v.Len())
		for i := 0; i < v.Len(); i++ {
			// Elements of the top-level lists are written in full.
			dump(b, v.Index(i), v.Type().Elem().Kind() == reflect.Pointer && v.Len() > 0 && isTopList(v))
			b.WriteString(",")
		}
		b.WriteString("]")
	case reflect.Map:
		keys := v.MapKeys()
		sort.Slice(keys, func(i, j int) bool { return keys[i].Uint() < keys[j].Uint() })
		b.WriteString("map[")
		for _, k := range keys {
			fmt.Fprintf(b, "%d=", k.Uint())
			dump(b, v.MapIndex(k), false)
			b.WriteString(",")
		}
		b.WriteString("]")
	case reflect.Bool:
		fmt.Fprint(b, v.Bool())
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		fmt.Fprint(b, v.Int())
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		fmt.Fprint(b, v.Uint())
	default:
		panic("canonical: unhandled kind " + v.Kind().String())
	}
}

// isTopList reports whether v is Network.Sockets or Network.Channels,
// whose elements are the objects themselves rather than references.
func isTopList(v reflect.Value) bool {
	return v.Type() == reflect.TypeOf([]*Socket{}) || v.Type() == reflect.TypeOf([]*Channel{})
}

// replay builds a network from a script of bytes: each pair (op, arg)
// is one operation on it, chosen from everything the supervisor does to
// a network, on two nodes and two ports so that different scripts often
// reach equal states.
func replay(script []byte) *Network {
	n := New()
	pick := func(a byte) *Socket {
		if len(n.Sockets) == 0 {
			return nil
		}
		return n.Sockets[int(a)%len(n.Sockets)]
	}
	for i := 0; i+1 < len(script); i += 2 {
		op, a := script[i]%17, script[i+1]
		port := 7000 + uint16(a%2)
		switch op {
		case 0:
			n.NewSocket(int(a%2), Kind(a/2%2))
		case 1:
			if s := pick(a); s != nil {
				n.Bind(s, port)
			}
		case 2:
			if s := pick(a); s != nil {
				n.Listen(s)
			}
		case 3:
			if s := pick(a); s != nil {
				n.Connect(s, Addr{IP: Loopback, Port: port})
			}
		case 4:
			if s := pick(a); s != nil {
				n.Accept(s)
			}
		case 5:
			if s := pick(a); s != nil {
				dst := &Addr{IP: Loopback, Port: port}
				if s.Kind == Stream {
					dst = nil
				}
				n.Send(s, []byte{'x', 'y', 'z'}[:1+a%3], dst)
			}
		case 6:
			if ds := n.Deliverable(a%2 == 0); len(ds) > 0 {
				n.Deliver(ds[int(a)%len(ds)])
			}
		case 7:
			if s := pick(a); s != nil {
				n.Recv(s, 1+int(a%3), a%5 == 0)
			}
		case 8:
			if s := pick(a); s != nil && !s.closed {
				n.Close(s, a%2 == 0)
			}
		case 9:
			if s := pick(a); s != nil {
				n.Shutdown(s, a%3 != 1, a%3 != 0)
			}
		case 10:
			if ds := n.Deliverable(false); len(ds) > 0 {
				d := ds[int(a)%len(ds)]
				if a%2 == 0 {
					n.Drop(d)
				} else if n.Channels[d.Chan].Datagram() {
					n.Duplicate(d)
				}
			}
		case 11:
			n.CloseNode(int(a%2), a%4 < 2)
		case 12:
			if env, e := n.ConnectEnv(port); e == OK {
				n.InjectEnv(env, []byte{'e'})
				if a%3 == 0 {
					n.CloseEnv(env)
				}
			}
		case 13: // IPv6 sockets, bound to ::, ::1 or a mapped address
			s := n.NewSocketIn(int(a%2), Kind(a/2%2), true)
			s.V6Only = a%3 == 0
			n.BindAddr(s, []Addr{{Six: Any6, Port: port}, {Six: Loop6, Port: port}, {Six: Mapped, IP: Loopback, Port: port}}[a/4%3])
		case 14: // connect or send over IPv6 (a mapped or a native address)
			if s := pick(a); s != nil {
				dst := Addr{Six: Loop6, Port: port}
				if a%4 < 2 {
					dst = Addr{Six: Mapped, IP: Loopback, Port: port}
				}
				if s.Kind == Stream {
					n.Connect(s, dst)
				} else {
					n.Send(s, []byte{'6'}, &dst)
				}
			}
		case 15: // buffer sizes, small enough to fill
			if s := pick(a); s != nil {
				s.SetBuf(a%2 == 0, int(a%5))
			}
		case 16:
			if s := pick(a); s != nil {
				if a%3 == 0 {
					s.ConnectResult()
				} else {
					s.TakeError()
				}
				n.Send(s, bytes.Repeat([]byte{'b'}, 2000+int(a)*400), nil)
			}
		}
	}
	return n
}

func netHash(n *Network) [32]byte {
	h := sha256.New()
	n.Hash(h)
	var s [32]byte
	copy(s[:], h.Sum(nil))
	return s
}

// checkCanonical fails if two networks' hashes agree and their canonical
// renderings do not (a field Hash leaves out), or the other way round (a
// field Hash writes non-canonically).
func checkCanonical(t *testing.T, x, y []byte) {
	a, b := replay(x), replay(y)
	sameHash := netHash(a) == netHash(b)
	ca, cb := canonical(a), canonical(b)
	if sameHash != (ca == cb) {
		t.Fatalf("hash equal = %v but state equal = %v\nscript %v\n  %s\nscript %v\n  %s", sameHash, ca == cb, x, ca, y, cb)
	}
}

// TestHashIsCanonical is the property that makes state merging sound and
// complete for the network: equal canonical state ⇔ equal hash, over many
// pairs of random scripts, short enough that equal states are common.
func TestHashIsCanonical(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	script := func() []byte {
		s := make([]byte, 2*(1+r.IntN(7)))
		for i := range s {
			s[i] = byte(r.IntN(26))
		}
		return s
	}
	// Half the pairs are independent scripts; the other half differ in one
	// byte, or by two adjacent operations swapped, so that states which
	// differ in a single field are common.
	mutate := func(x []byte) []byte {
		y := append([]byte(nil), x...)
		if k := r.IntN(len(y)/2) * 2; r.IntN(2) == 0 || k+3 >= len(y) {
			y[r.IntN(len(y))] = byte(r.IntN(26))
		} else {
			y[k], y[k+1], y[k+2], y[k+3] = y[k+2], y[k+3], y[k], y[k+1]
		}
		return y
	}
	equal := 0
	for i := range 40000 {
		x, y := script(), script()
		if i%2 == 1 {
			y = mutate(x)
		}
		checkCanonical(t, x, y)
		if canonical(replay(x)) == canonical(replay(y)) {
			equal++
		}
	}
	// The property says nothing unless equal states were reached by
	// different scripts, and different states were met too.
	if equal < 200 {
		t.Fatalf("only %d of 40000 pairs reached equal states: the test exercises nothing", equal)
	}
}

// FuzzHashCanonical checks the same property on scripts the fuzzer finds.
func FuzzHashCanonical(f *testing.F) {
	f.Add([]byte{0, 1, 1, 0, 2, 0, 0, 0, 3, 0, 4, 0, 5, 0}, []byte{0, 1, 1, 0, 2, 0})
	f.Add([]byte{0, 2, 1, 0, 0, 2, 5, 1, 6, 0}, []byte{0, 2, 1, 0, 0, 2, 5, 0, 6, 0})
	f.Fuzz(func(t *testing.T, x, y []byte) {
		if len(x) > 64 || len(y) > 64 {
			return
		}
		checkCanonical(t, x, y)
	})
}
