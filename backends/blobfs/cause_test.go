package blobfs_test

import (
	"context"
	"errors"
	"fmt"
	"go/build"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"
	"gocloud.dev/blob"
	"gocloud.dev/blob/driver"
	"gocloud.dev/gcerrors"

	"github.com/skillstore/skillstore/backends/azureblob"
	"github.com/skillstore/skillstore/backends/blobfs"
	"github.com/skillstore/skillstore/internal/testutil"
)

// secret stands for a credential a driver's error could repeat: a
// request's signature.
const secret = "c2lnbmF0dXJlLXNlY3JldA"

// awsResponseError is shaped like the AWS SDK's errors: an HTTP response
// error naming the status, the request and host IDs, wrapping the store's
// error code and message (smithy.APIError's methods).
type awsResponseError struct {
	status int
	api    awsAPIError
}

func (e *awsResponseError) Error() string {
	return fmt.Sprintf("operation error S3: GetObject, https response error StatusCode: %d, RequestID: H8CX4INDC0ULX0YN, HostID: dnN2PihZWU/zRp=, api error %v", e.status, e.api)
}
func (e *awsResponseError) Unwrap() error       { return e.api }
func (e *awsResponseError) HTTPStatusCode() int { return e.status }

type awsAPIError struct{ code, msg string }

func (e awsAPIError) Error() string        { return e.code + ": " + e.msg }
func (e awsAPIError) ErrorCode() string    { return e.code }
func (e awsAPIError) ErrorMessage() string { return e.msg }

func awsError(status int, code, msg string) error {
	return &awsResponseError{status: status, api: awsAPIError{code, msg}}
}

// azureError is the Azure SDK's own error for a response: it writes the
// request (here with a signature in its query), the status, the error code
// and the whole body on lines of their own.
func azureError(t *testing.T, status int, statusText, code string) error {
	req, err := http.NewRequest("GET", "https://acct.blob.core.windows.net/skills/calc/notes.md?sig="+secret, nil)
	if err != nil {
		t.Fatal(err)
	}
	body := "<?xml version=\"1.0\" encoding=\"utf-8\"?><Error><Code>" + code + "</Code><Message>" + statusText +
		"\nRequestId:e0fdf066-50bc-47e5-bbf7-3759f478f808\nTime:2026-11-24T19:35:06.691Z</Message></Error>"
	resp := &http.Response{StatusCode: status, Status: fmt.Sprint(status, " ", statusText), Request: req,
		Header: http.Header{"X-Ms-Error-Code": {code}}, Body: io.NopCloser(strings.NewReader(body))}
	return runtime.NewResponseError(resp)
}

// unreachable is a request that got no answer, as net/http reports it:
// with the request's URL, signature included.
var unreachable = &url.Error{Op: "Get", URL: "https://skills.s3.amazonaws.com/calc/notes.md?X-Amz-Signature=" + secret,
	Err: &net.OpError{Op: "dial", Net: "tcp", Addr: &net.TCPAddr{IP: net.IPv4(10, 0, 0, 7), Port: 443},
		Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}}

// failingStore is a gocloud bucket driver holding calc/notes.md, whose
// reads fail with getErr (when opened) or readErr (part way), as gocloud
// reports them: wrapped in its own error, which keeps its caller's stack
// frame. The rest of driver.Bucket is not used here.
type failingStore struct {
	driver.Bucket
	getErr, readErr error
}

const notes = "calc/notes.md"

func (d *failingStore) ErrorCode(error) gcerrors.ErrorCode { return gcerrors.Unknown }
func (d *failingStore) As(any) bool                        { return false }
func (d *failingStore) ErrorAs(error, any) bool            { return false }
func (d *failingStore) Close() error                       { return nil }

func (d *failingStore) ListPaged(context.Context, *driver.ListOptions) (*driver.ListPage, error) {
	return &driver.ListPage{Objects: []*driver.ListObject{{Key: notes, Size: 6, ModTime: time.Unix(0, 0)}}}, nil
}

func (d *failingStore) NewRangeReader(context.Context, string, int64, int64, *driver.ReaderOptions) (driver.Reader, error) {
	if d.getErr != nil {
		return nil, d.getErr
	}
	return &failingReader{err: d.readErr}, nil
}

type failingReader struct{ err error }

func (r *failingReader) Read([]byte) (int, error) { return 0, r.err }
func (r *failingReader) Close() error             { return nil }
func (r *failingReader) As(any) bool              { return false }
func (r *failingReader) Attributes() *driver.ReaderAttributes {
	return &driver.ReaderAttributes{Size: 6, ModTime: time.Unix(0, 0)}
}

// driverFailure is one failure of a store's, and what is said of it.
type driverFailure struct {
	name            string
	getErr, readErr error
	authError       func(error) bool // the driver's hook (Azure's)
	want, log       string           // the read's error; BucketFS's log line ("" for none)
	reason          string
	publish         string // PublishBucket.ReadObject's error
}

// failureLocation is the bucket the failures are of.
const failureLocation = "s3://skills?prefix=mcp/"

// driverFailures are failures of S3 and Azure, as their SDKs report them,
// and of the network.
func driverFailures(t *testing.T) []driverFailure {
	const loc = failureLocation
	return []driverFailure{
		{name: "AWS refuses the signature",
			getErr: awsError(403, "SignatureDoesNotMatch", "The request signature we calculated does not match the signature you provided. Check your key and signing method."),
			want:   "open calc/notes.md: permission denied: " + loc,
			log:    `level=WARN msg="object storage refused the credentials" location="` + loc + `" err="SignatureDoesNotMatch: The request signature we calculated does not match the signature you provided. Check your key and signing method."`,
			reason: "the store refused the credentials",
			publish: "reading calc/notes.md: SignatureDoesNotMatch: The request signature we calculated does not match the signature you provided. " +
				"Check your key and signing method."},
		{name: "AWS fails",
			getErr:  awsError(500, "InternalError", "We encountered an internal error. Please try again."),
			want:    "open calc/notes.md: object storage request to " + loc + " failed (Unknown): InternalError: We encountered an internal error. Please try again.",
			reason:  "the store answered InternalError",
			publish: "reading calc/notes.md: InternalError: We encountered an internal error. Please try again."},
		{name: "Azure refuses the key",
			getErr:    azureError(t, 403, "Server failed to authenticate the request. Make sure the value of the Authorization header is formed correctly including the signature.", "AuthenticationFailed"),
			authError: azureblob.AuthError,
			want:      "open calc/notes.md: permission denied: " + loc,
			log: `level=WARN msg="object storage refused the credentials" location="` + loc + `"` +
				` err="AuthenticationFailed: 403 Server failed to authenticate the request. Make sure the value of the Authorization header is formed correctly including the signature."`,
			reason: "the store refused the credentials",
			publish: "reading calc/notes.md: AuthenticationFailed: 403 Server failed to authenticate the request. " +
				"Make sure the value of the Authorization header is formed correctly including the signature."},
		{name: "Azure is busy",
			getErr:    azureError(t, 503, "The server is busy.", "ServerBusy"),
			authError: azureblob.AuthError,
			want:      "open calc/notes.md: object storage request to " + loc + " failed (Unknown): ServerBusy: 503 The server is busy.",
			reason:    "the store answered ServerBusy",
			publish:   "reading calc/notes.md: ServerBusy: 503 The server is busy."},
		{name: "the store cannot be reached",
			getErr:  unreachable,
			want:    "open calc/notes.md: object storage request to " + loc + " failed (Unknown): dial tcp 10.0.0.7:443: connect: connection refused",
			reason:  "no connection could be made (check the store's address and the network)",
			publish: "reading calc/notes.md: dial tcp 10.0.0.7:443: connect: connection refused"},
		{name: "a read fails part way",
			readErr: &net.OpError{Op: "read", Net: "tcp", Addr: &net.TCPAddr{IP: net.IPv4(10, 0, 0, 7), Port: 443}, Err: os.NewSyscallError("read", syscall.ECONNRESET)},
			want:    "read tcp 10.0.0.7:443: read: connection reset by peer",
			reason:  "the connection to the store failed",
			publish: "reading calc/notes.md: read tcp 10.0.0.7:443: read: connection reset by peer"},
	}
}

// TestDriverErrorsShown: what is said of a driver's failure — the error
// a read returns, in every formatting (%+v included), BucketFS's log line,
// Reason's phrase and PublishBucket's error — is its actionable part on
// one line: the bucket, what failed and the store's own code and message,
// or the network's failure. Never gocloud's stack frames (which name
// files under the build machine's GOPATH), request IDs, a response body,
// or a credential from the request.
func TestDriverErrorsShown(t *testing.T) {
	const loc = failureLocation
	for _, tc := range driverFailures(t) {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			d := &failingStore{getErr: tc.getErr, readErr: tc.readErr}
			raw := gocloudError(t, blob.NewBucket(d))
			log, logs := testutil.TextLog()
			bfs := blobfs.NewBucketFS(blob.NewBucket(d), blobfs.BucketOptions{Location: loc, Logger: log, AuthError: tc.authError})
			defer bfs.Close()
			_, err := bfs.ReadFile(notes)
			if err == nil {
				t.Fatal("the read succeeded")
			}
			if got := err.Error(); got != tc.want {
				t.Errorf("error\n got %q\nwant %q", got, tc.want)
			}
			if got := strings.TrimSuffix(logs.String(), "\n"); got != tc.log {
				t.Errorf("log\n got %q\nwant %q", got, tc.log)
			}
			if got := blobfs.Reason(raw); got != tc.reason {
				t.Errorf("Reason = %q; want %q", got, tc.reason)
			}
			_, perr := blobfs.NewPublishBucket(blob.NewBucket(d)).ReadObject(ctx, notes, 100)
			if perr == nil {
				t.Fatal("PublishBucket.ReadObject succeeded")
			}
			if perr.Error() != tc.publish {
				t.Errorf("PublishBucket.ReadObject: %v; want %q", perr, tc.publish)
			}
			for what, text := range map[string]string{
				"the error": err.Error(), "the error with %+v": fmt.Sprintf("%+v", err), "the log": logs.String(),
				"the publish error": perr.Error(), "the publish error with %+v": fmt.Sprintf("%+v", perr),
			} {
				checkShown(t, what, text)
			}
		})
	}
}

// gocloudError is the raw error gocloud gives for reading notes from b,
// checked to carry what must not be shown (its stack frame, under %+v), so
// that the case checks something.
func gocloudError(t *testing.T, b *blob.Bucket) error {
	t.Helper()
	defer b.Close()
	_, err := b.ReadAll(context.Background(), notes)
	if err == nil {
		t.Fatal("gocloud read the object")
	}
	if plus := fmt.Sprintf("%+v", err); !strings.Contains(plus, "gocloud.dev@") || !strings.Contains(plus, ".go:") {
		t.Fatalf("gocloud's error carries no stack frame, so the case checks nothing: %q", plus)
	}
	return err
}

// checkShown fails if text carries a stack frame, a host path under the
// build machine's GOPATH or home, a request ID, a response body or the
// credential, or runs over more than one line (the log: one line).
func checkShown(t *testing.T, what, text string) {
	t.Helper()
	banned := []string{"/go/pkg/mod", "gocloud.dev@", ".go:", "/root", build.Default.GOPATH, secret, "RequestID", "RequestId", "<Error>", "HostID"}
	if home, err := os.UserHomeDir(); err == nil && home != "/" {
		banned = append(banned, home)
	}
	for _, s := range banned {
		if s != "" && strings.Contains(text, s) {
			t.Errorf("%s carries %q: %q", what, s, text)
		}
	}
	if strings.Contains(strings.TrimSuffix(text, "\n"), "\n") {
		t.Errorf("%s runs over several lines: %q", what, text)
	}
}

// TestReadErrorsUnwrap: an error a BucketFS or a PublishBucket shows by its
// cause still unwraps to the driver's, so callers' errors.Is and
// gocloud's codes see through it.
func TestReadErrorsUnwrap(t *testing.T) {
	d := &failingStore{readErr: context.Canceled}
	bfs := blobfs.NewBucketFS(blob.NewBucket(d), blobfs.BucketOptions{Logger: slog.New(slog.DiscardHandler)})
	defer bfs.Close()
	if _, err := bfs.ReadFile(notes); !errors.Is(err, context.Canceled) {
		t.Errorf("a read ended by its context: %v; want context.Canceled", err)
	}
	d = &failingStore{getErr: awsError(500, "InternalError", "We encountered an internal error.")}
	_, err := blobfs.NewPublishBucket(blob.NewBucket(d)).ReadObject(context.Background(), notes, 100)
	if gcerrors.Code(err) != gcerrors.Unknown || errors.Is(err, fs.ErrNotExist) {
		t.Errorf("PublishBucket.ReadObject: %v, code %v; want gocloud's code Unknown, not fs.ErrNotExist", err, gcerrors.Code(err))
	}
	var api interface{ ErrorCode() string }
	if !errors.As(err, &api) || api.ErrorCode() != "InternalError" {
		t.Errorf("PublishBucket.ReadObject: %v; want the driver's error within", err)
	}
}

// TestKeysTooLong: a key too long for the store names no object: one
// over the 1,024 bytes S3, GCS and Azure hold is not found without a
// request, and a store's refusal of a shorter one (S3's KeyTooLongError,
// which versitygw gives for a name over its disk's 255 bytes) reads as
// not found too, without a log line.
func TestKeysTooLong(t *testing.T) {
	d := &failingStore{getErr: awsError(400, "KeyTooLongError", "Your key is too long.")}
	log, logs := testutil.TextLog()
	bfs := blobfs.NewBucketFS(blob.NewBucket(d), blobfs.BucketOptions{Location: "s3://skills", Logger: log})
	defer bfs.Close()
	for _, tc := range []struct {
		name string
		gets uint64
	}{{"calc/" + strings.Repeat("n", 300), 1}, {"calc/" + strings.Repeat("n", 1020), 0}} {
		before := bfs.Requests().Get
		if _, err := bfs.ReadFile(tc.name); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("ReadFile of a %d-byte name: %v; want fs.ErrNotExist", len(tc.name), err)
		}
		if gets := bfs.Requests().Get - before; gets != tc.gets {
			t.Errorf("ReadFile of a %d-byte name cost %d GETs; want %d", len(tc.name), gets, tc.gets)
		}
	}
	if logs.Len() != 0 {
		t.Errorf("logged:\n%s", logs)
	}
}
