// Package channel holds the one rule for a channel's name, which the
// access policy (channels: rules, source labels "BASE@CHANNEL") and the
// registry (promote) share: a name one accepts, the other must too.
package channel

import "errors"

// Max bounds the length of a channel's name.
const Max = 64

// Check reports whether name is a channel's name: 1 to Max lowercase
// ASCII letters, digits and hyphens.
func Check(name string) error {
	if name == "" {
		return errors.New("empty channel name")
	}
	if len(name) > Max {
		return errors.New("a channel name of more than 64 characters")
	}
	for i := 0; i < len(name); i++ {
		if c := name[i]; !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-') {
			return errors.New("a channel name holds only lowercase letters, digits and hyphens")
		}
	}
	return nil
}
