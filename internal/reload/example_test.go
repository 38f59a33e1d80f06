package reload_test

import (
	"fmt"
	"log/slog"
	"path/filepath"

	"github.com/skillstore/skillstore/internal/reload"
	"github.com/skillstore/skillstore/internal/sshsig"
)

// Watch an allowed-signers file. sshsig's errors name the line but not
// the file ("line 3: …"), so the parse func adds the base name; the
// previous list stays when an edit breaks the file.
func ExampleWatch() {
	file := "/etc/skillstore/allowed_signers"
	name := filepath.Base(file)
	signers, err := reload.Watch(file, func(data []byte) (*sshsig.AllowedSigners, error) {
		a, err := sshsig.ParseAllowedSigners(data)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		return a, nil
	}, reload.Options{What: "trusted signers", MaxBytes: sshsig.MaxAllowedSignersBytes, Logger: slog.Default()})
	if err != nil {
		fmt.Println("--trusted-signers:", err) // "allowed_signers: line 3: …"
		return
	}
	defer signers.Close()
	fmt.Println(signers.Current().Len(), "trusted keys")
}
