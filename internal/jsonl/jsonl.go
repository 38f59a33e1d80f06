// Package jsonl reads newline-delimited messages, as MCP's stdio transport
// frames them.
package jsonl

import (
	"bufio"
	"io"
)

// Read reads one message of any length into buf[:0], growing it as needed,
// and returns it with its newline. A last message without a newline gets
// one, and is returned with io.EOF.
func Read(r *bufio.Reader, buf []byte) ([]byte, error) {
	buf = buf[:0]
	for {
		chunk, err := r.ReadSlice('\n')
		buf = append(buf, chunk...)
		if err == bufio.ErrBufferFull {
			continue
		}
		if err == io.EOF && len(buf) > 0 {
			buf = append(buf, '\n')
		}
		return buf, err
	}
}

// ReadLimit is Read for messages of at most limit bytes: a longer message
// is read to its end and discarded, without being kept, and reported with
// tooLong (a few of its first bytes are returned, for a caller's message).
func ReadLimit(r *bufio.Reader, buf []byte, limit int) (msg []byte, tooLong bool, err error) {
	buf = buf[:0]
	for {
		chunk, err := r.ReadSlice('\n')
		if !tooLong {
			if len(buf)+len(chunk) > limit {
				tooLong = true
				buf = append(buf, chunk[:min(len(chunk), max(0, 256-len(buf)))]...)
			} else {
				buf = append(buf, chunk...)
			}
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if err == io.EOF && len(buf) > 0 && !tooLong {
			buf = append(buf, '\n')
		}
		return buf, tooLong, err
	}
}
