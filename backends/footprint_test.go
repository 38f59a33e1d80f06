package backends_test

import (
	"context"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/skillstore/skillstore/backends"
)

// TestFootprint: a program built from the local, embedded, zip and afero
// backends, the store and the tools links no cloud SDK; those come only
// with the driver packages (backends/s3blob, gcsblob, azureblob).
func TestFootprint(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	goTool := filepath.Join(runtime.GOROOT(), "bin", "go")
	out, err := exec.Command(goTool, "list", "-deps",
		"github.com/skillstore/skillstore/backends",
		"github.com/skillstore/skillstore/store",
		"github.com/skillstore/skillstore/tools").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for _, pkg := range strings.Fields(string(out)) {
		for _, cloud := range []string{"aws", "cloud.google.com", "azure", "google.golang.org/api"} {
			if strings.Contains(pkg, cloud) {
				t.Errorf("backends, store and tools link %s", pkg)
			}
		}
	}
	for driver, sdk := range map[string]string{"s3blob": "github.com/aws/aws-sdk-go-v2/service/s3", "gcsblob": "cloud.google.com/go/storage", "azureblob": "github.com/Azure/azure-sdk-for-go/sdk/storage/azblob"} {
		out, err := exec.Command(goTool, "list", "-deps", "github.com/skillstore/skillstore/backends/"+driver).CombinedOutput()
		if err != nil || !strings.Contains(string(out), sdk+"\n") {
			t.Errorf("backends/%s does not link %s: %v", driver, sdk, err)
		}
	}
}

// TestMissingDriver: a scheme whose driver is not linked in is refused
// with the import that adds it.
func TestMissingDriver(t *testing.T) {
	for scheme, pkg := range map[string]string{"s3": "backends/s3blob", "gs": "backends/gcsblob", "azblob": "backends/azureblob"} {
		_, err := backends.Open(context.Background(), scheme+"://bucket?prefix=skills/")
		if err == nil || !strings.Contains(err.Error(), `import "github.com/skillstore/skillstore/`+pkg+`"`) {
			t.Errorf("%s:// without its driver: %v", scheme, err)
		}
	}
}
