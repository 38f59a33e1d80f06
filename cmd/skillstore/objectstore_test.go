package main

import (
	"fmt"
	"go/build"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestObjectStoreFailures: what the command prints when an S3 store
// refuses the credentials or fails (a stand-in that answers every request
// with one of S3's errors, read by the real AWS SDK through gocloud):
// the log line names the bucket, what failed and the store's own code and
// message, and the command's last lines what to check. Nothing it prints
// carries gocloud's stack frames (which name files under the build
// machine's GOPATH), a request ID or the secret key.
func TestObjectStoreFailures(t *testing.T) {
	const secretKey = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
	for _, tc := range []struct {
		name    string
		status  int
		code    string
		message string
		want    string // stderr without times; URL stands for the source's URL
	}{
		{name: "the credentials are refused", status: 403, code: "SignatureDoesNotMatch",
			message: "The request signature we calculated does not match the signature you provided. Check your key and signing method.",
			want: `level=WARN msg="object storage refused the credentials" location="URL" err="SignatureDoesNotMatch: The request signature we calculated does not match the signature you provided. Check your key and signing method."` + "\n" +
				`level=WARN msg="listing the skill source failed; serving nothing from it until it answers" source=org location="URL" err="reading the snapshot pointer: read .skillstore/current.json: permission denied: URL"` + "\n" +
				"skillstore: Permission denied reading skills folder\n" +
				"skillstore: check the credentials for URL (AWS_*, GOOGLE_APPLICATION_CREDENTIALS or AZURE_STORAGE_* for object storage; file permissions for a folder)\n"},
		{name: "the store fails", status: 400, code: "InvalidRequest",
			message: "Missing required header for this request: x-amz-content-sha256",
			want: `level=WARN msg="listing the skill source failed; serving nothing from it until it answers" source=org location="URL" err="reading the snapshot pointer: read .skillstore/current.json: object storage request to URL failed (Unknown): InvalidRequest: Missing required header for this request: x-amz-content-sha256"` + "\n" +
				"skillstore: Cannot read skills folder: the skill source is temporarily unavailable; try again, and if it persists ask the operator to check the server log\n" +
				"skillstore: check that URL is reachable; the log line above has the driver's error\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/xml")
				w.Header().Set("x-amz-request-id", "4442587FB7D0A2F9")
				w.WriteHeader(tc.status)
				fmt.Fprintf(w, `<?xml version="1.0" encoding="UTF-8"?><Error><Code>%s</Code><Message>%s</Message><RequestId>4442587FB7D0A2F9</RequestId><HostId>h0St1d</HostId></Error>`, tc.code, tc.message)
			}))
			defer srv.Close()
			url := "s3://skills?endpoint=" + srv.URL + "&region=us-east-1&use_path_style=true"
			env := []string{"AWS_ACCESS_KEY_ID=AKIAIOSFODNN7EXAMPLE", "AWS_SECRET_ACCESS_KEY=" + secretKey, "AWS_EC2_METADATA_DISABLED=true"}
			stdout, stderr, code := run(t, env, "list", "-s", url)
			if stdout != "" || code != 1 {
				t.Errorf("stdout %q, exit code %d; want nothing, 1", stdout, code)
			}
			got := strings.ReplaceAll(regexp.MustCompile(`(?m)^time=\S+ `).ReplaceAllString(stderr, ""), url, "URL")
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("stderr (-want +got):\n%s", diff)
			}
			for _, s := range []string{"/go/pkg/mod", "gocloud.dev@", ".go:", build.Default.GOPATH, secretKey, "4442587FB7D0A2F9", "h0St1d"} {
				if strings.Contains(stderr, s) {
					t.Errorf("stderr carries %q:\n%s", s, stderr)
				}
			}
		})
	}
}
