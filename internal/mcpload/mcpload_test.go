package mcpload

import (
	"bufio"
	"strings"
	"testing"
)

// TestMessageScan checks id and error detection across buffer seams.
func TestMessageScan(t *testing.T) {
	body := strings.Repeat("x", 5000)
	tests := []struct {
		line    string
		id      int64
		isError bool
	}{
		{`{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"` + body + `"}]}}`, 7, false},
		{`{"result":{"content":[{"type":"text","text":"` + body + `"}],"isError":true},"jsonrpc":"2.0","id":12}`, 12, true},
		{`{"jsonrpc":"2.0","id":3,"error":{"code":-32602,"message":"bad"}}`, 3, true},
		{`{"jsonrpc":"2.0","id":4,"result":{"content":[{"type":"text","text":"mentions \"isError\":true inside"}]}}`, 4, false},
	}
	for _, tt := range tests {
		for _, size := range []int{16, 23, 64, 4096} { // seams everywhere
			var m message
			if err := m.read(bufio.NewReaderSize(strings.NewReader(tt.line+"\n"), size)); err != nil {
				t.Fatal(err)
			}
			id, ok := findID(m.head)
			if !ok {
				id, ok = findID(m.tail)
			}
			if !ok || id != tt.id || m.isError != tt.isError || m.size != len(tt.line)+1 {
				t.Errorf("buffer %d, %.60s…: id %d ok %v isError %v size %d", size, tt.line, id, ok, m.isError, m.size)
			}
		}
	}
}
