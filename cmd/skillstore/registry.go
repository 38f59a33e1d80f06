package main

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"

	"github.com/spf13/pflag"

	"github.com/skillstore/skillstore/backends"
	"github.com/skillstore/skillstore/backends/blobfs"
	"github.com/skillstore/skillstore/backends/registry"
	"github.com/skillstore/skillstore/internal/skillcheck"
	"github.com/skillstore/skillstore/internal/sshsig"
)

// registryFlags are serve's registry mode: the Skills API over a bucket.
type registryFlags struct {
	url             string
	label           string
	sign            string
	allowHiddenText bool
	overExtension   bool
	// pins is serve --lock's: the version of each skill to serve
	// (registry.Options.Pins); nil without a lock.
	pins func(name string) (versionID string, ok bool)
	// reviewerSigners is --reviewer-signers: the allowed signers of
	// reviewers' keys (registry.Options.Reviewers), reloaded as the
	// trusted signers are.
	reviewerSigners string
	// needsReview is the access policy's review: required: as it is now
	// (registry.Options.NeedsReview); nil without a policy.
	needsReview func(name string) bool
	// channels are the channels the access policy's channels: rules
	// name when serve starts: a source each, labelled LABEL@CHANNEL,
	// before the registry's own.
	channels []string
}

func (rf *registryFlags) add(f *pflag.FlagSet) {
	f.StringVar(&rf.url, "registry", "", "with --http: keep a registry of skills and their versions in the bucket `URL` (file://, s3://, gs://, azblob://, as publish takes), written through the Skills API at /v1/skills and served as a source; every replica given the same URL accepts writes")
	f.StringVar(&rf.label, "registry-label", "registry", "the registry source's `LABEL`")
	f.StringVar(&rf.sign, "sign", "", "with --registry: sign each version this replica accepts with the SSH private key `KEY` (SSHSIG, namespace "+registry.EntryNamespace+"), so replicas with --trusted-signers serve only versions a registry accepted")
	f.BoolVar(&rf.allowHiddenText, "allow-hidden-text-uploads", false, "with --registry: accept uploads carrying text a person does not see (tag characters, bidi controls, HTML comments…); they are refused by default")
	f.StringVar(&rf.reviewerSigners, "reviewer-signers", "", "with --registry: count an approval only when the reviewer signed it (skillstore review --sign) with a key the allowed-signers `FILE` lists for them (reloaded when it changes); without it, an approval counts when the entry is signed by a --trusted-signers key, or, with neither, as recorded")
	f.BoolVar(&rf.overExtension, "allow-large-uploads", false, "with --registry: accept uploads over the MCP skills extension's limits (which that extension then leaves out)")
}

// check is what upload checking the flags ask for.
func (rf *registryFlags) check() skillcheck.Options {
	return skillcheck.Options{AllowHiddenText: rf.allowHiddenText, OverExtension: rf.overExtension}
}

// openRegistry opens the registry the flags name, signing with --sign,
// serving only signed versions under trust (nil: none) and counting
// approvals under reviewers (nil: none; registry.Options.Reviewers).
func openRegistry(ctx context.Context, rf *registryFlags, trust, reviewers func() *sshsig.AllowedSigners) (*registry.Registry, func(), error) {
	b, shown, err := blobfs.OpenBucket(ctx, rf.url)
	if err != nil {
		return nil, nil, fmt.Errorf("--registry %s: %w", backends.Redact(rf.url), stripHost(err))
	}
	opts := registry.Options{Location: shown, Logger: slog.Default(), Trust: trust, Pins: rf.pins, NeedsReview: rf.needsReview, Reviewers: reviewers}
	done := func() { b.Close() }
	if rf.sign != "" {
		signer, closeSigner, err := signingKey(backends.ExpandHome(rf.sign))
		if err != nil {
			done()
			return nil, nil, err
		}
		if err := sshsig.CheckKey(signer.PublicKey()); err != nil {
			closeSigner()
			done()
			return nil, nil, fmt.Errorf("--sign %s: %w", filepath.Base(rf.sign), err)
		}
		opts.Signer = signer
		done = func() { closeSigner(); b.Close() }
	}
	r, err := registry.Open(ctx, blobfs.PublishBucketFor(b, rf.url), opts)
	if err != nil {
		done()
		return nil, nil, fmt.Errorf("--registry %s: %w", shown, stripHost(err))
	}
	return r, done, nil
}
