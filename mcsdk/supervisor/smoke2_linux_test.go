//go:build linux

package supervisor

import "testing"

func TestSmokeHashStable(t *testing.T) {
	specs := []NodeSpec{
		{Path: "/tmp/repl", Args: []string{"0", "2", "7000"}},
		{Path: "/tmp/repl", Args: []string{"1", "2", "7000"}},
	}
	var hs [][32]byte
	for i := 0; i < 3; i++ {
		w, err := Start(Config{Nodes: specs, BasePort: 7000, Client: []ClientRequest{{Node: 0, Data: []byte("WRITE 5\n")}}})
		if err != nil {
			t.Fatal(err)
		}
		w.Apply(w.Enabled()[0])
		h, err := w.Hash(HashMemory, nil)
		if err != nil {
			t.Fatal(err)
		}
		hs = append(hs, h)
		w.Close()
	}
	t.Logf("%x\n%x\n%x", hs[0][:8], hs[1][:8], hs[2][:8])
}
