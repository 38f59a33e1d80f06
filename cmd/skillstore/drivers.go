package main

// The command serves every kind of source, so it links every driver.
import (
	_ "github.com/skillstore/skillstore/backends/azureblob" // azblob://
	_ "github.com/skillstore/skillstore/backends/blobfs"    // mem://
	_ "github.com/skillstore/skillstore/backends/gcsblob"   // gs://
	_ "github.com/skillstore/skillstore/backends/gitfs"     // git+https://
	_ "github.com/skillstore/skillstore/backends/ocifs"     // oci://
	_ "github.com/skillstore/skillstore/backends/s3blob"    // s3://
	_ "github.com/skillstore/skillstore/backends/wellknown" // https://host/.well-known/agent-skills/
)
