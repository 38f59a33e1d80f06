package jsonl

import (
	"bufio"
	"io"
	"strings"
	"testing"
)

func TestRead(t *testing.T) {
	long := strings.Repeat("x", 100)
	r := bufio.NewReaderSize(strings.NewReader("a\n"+long+"\nlast"), 16) // lines longer than the buffer
	var buf []byte
	for _, want := range []struct {
		line string
		err  error
	}{{"a\n", nil}, {long + "\n", nil}, {"last\n", io.EOF}} {
		var err error
		buf, err = Read(r, buf)
		if string(buf) != want.line || err != want.err {
			t.Fatalf("got %q %v; want %q %v", buf, err, want.line, want.err)
		}
	}
	if line, err := Read(r, buf); len(line) != 0 || err != io.EOF {
		t.Errorf("after the end: %q %v", line, err)
	}
}

func TestReadLimit(t *testing.T) {
	big := strings.Repeat("x", 10000)
	r := bufio.NewReaderSize(strings.NewReader("short\n"+big+"\nnext\n"), 16)
	for _, want := range []struct {
		msg     string
		tooLong bool
	}{{"short\n", false}, {"x", true}, {"next\n", false}} {
		msg, tooLong, err := ReadLimit(r, nil, 100)
		if err != nil || !strings.HasPrefix(string(msg), want.msg) || tooLong != want.tooLong || len(msg) > 256+16 {
			t.Errorf("got %.40q %v %v; want %.40q %v", msg, tooLong, err, want.msg, want.tooLong)
		}
	}
}
