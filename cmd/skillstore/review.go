package main

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/skillstore/skillstore/backends"
	"github.com/skillstore/skillstore/internal/sshsig"
	"github.com/skillstore/skillstore/lockfile"
	"github.com/skillstore/skillstore/skillsapi"
	"github.com/skillstore/skillstore/store"
)

// reviewFlags are review's own flags.
type reviewFlags struct {
	api             apiFlags
	approve, reject bool
	reason          string
	sign            string
	as              string
}

func reviewCmd(g *globals) *cobra.Command {
	var f reviewFlags
	cmd := &cobra.Command{
		Use:   "review NAME VERSION URL (--approve | --reject --reason R)",
		Short: "Approve or reject a version of a skill on a Skills API server, by the digest of every file",
		Long: `review decides on version VERSION (its ID, or "latest") of the skill named NAME on the Skills
API server at URL (its root URL). It downloads the version's files, hashes each one, checks that
they make the version's digest, and sends the decision with that digest set: the server records it
only if the set is the version's exactly, so an approval names the bytes downloaded, not an ID.
With --sign KEY (an SSH private key, or its .pub held by ssh-agent) the decision is also signed
(SSHSIG, namespace ` + skillsapi.ReviewNamespace + `) over a statement naming the decision, skill,
version, digest, reviewer and time; --as gives the reviewer's subject (the principal the token
authenticates as, as the server's --reviewer-signers file lists the key). The server refuses a
reviewer who uploaded the version, one the access policy's reviews: rules do not name, and a
signed decision older than 15 minutes. It sends the bearer token in ` + tokenEnv + ` (or --token-file).`,
		Args: usageArgs(cobra.ExactArgs(3)),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runReview(cmd.Context(), g, args[0], args[1], args[2], f)
		},
	}
	f.api.add(cmd)
	fl := cmd.Flags()
	fl.BoolVar(&f.approve, "approve", false, "approve the version: agents get it")
	fl.BoolVar(&f.reject, "reject", false, "reject the version (with --reason): agents never get it")
	fl.StringVar(&f.reason, "reason", "", "why (required with --reject; at most 1000 bytes)")
	fl.StringVar(&f.sign, "sign", "", "sign the decision with the SSH private key `KEY` (namespace "+skillsapi.ReviewNamespace+"; with --as)")
	fl.StringVar(&f.as, "as", "", "with --sign: your `SUBJECT`, the principal your token authenticates as")
	return cmd
}

func promoteCmd(g *globals) *cobra.Command {
	var f apiFlags
	cmd := &cobra.Command{
		Use:   "promote NAME VERSION CHANNEL URL",
		Short: "Point a channel of a skill at one of its versions (a rollback is a promote to an earlier one)",
		Long: `promote points the channel CHANNEL (stable, canary, any name) of the skill named NAME on the
Skills API server at URL at version VERSION (its ID, or "latest", read once and sent as an ID).
Callers the access policy's channels: rules give that channel get that version from every replica
within one refresh; a rollback is a promote to an earlier version. The server refuses a version
that is pending or rejected. It prints where the channel was before. It sends the bearer token in
` + tokenEnv + ` (or --token-file).`,
		Args: usageArgs(cobra.ExactArgs(4)),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runPromote(cmd.Context(), g, args[0], args[1], args[2], args[3], f)
		},
	}
	f.add(cmd)
	return cmd
}

func pendingCmd(g *globals) *cobra.Command {
	var f apiFlags
	cmd := &cobra.Command{
		Use:   "pending URL",
		Short: "List the versions waiting for review on a Skills API server, oldest first",
		Long: `pending lists the versions waiting for review on the Skills API server at URL (its root URL)
that the token may review or write: each one's skill, version ID, creation time, uploader and
digest. It sends the bearer token in ` + tokenEnv + ` (or --token-file).`,
		Args: usageArgs(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runPending(cmd.Context(), g, args[0], f)
		},
	}
	f.add(cmd)
	return cmd
}

// apiReviewVersion is a version with its review fields, as the client
// reads it.
type apiReviewVersion struct {
	apiVersion
	Status string `json:"status"`
	Review *struct {
		Decision string `json:"decision"`
		By       string `json:"by"`
		Signer   string `json:"signer"`
	} `json:"review"`
}

// apiChannel is a Channel as the client reads it. A channel object has
// no "type": one without a name is no channel.
type apiChannel struct {
	Name    string `json:"name"`
	Version string `json:"version_id"`
	History []struct {
		Version string `json:"version_id"`
	} `json:"history"`
}

func (c *apiChannel) objectType() (string, string) {
	if c.Name == "" {
		return "", "channel"
	}
	return "channel", "channel"
}

// maxReviewBytes bounds a version's content as review downloads it.
const maxReviewBytes = maxPushBytes

func runReview(ctx context.Context, g *globals, name, version, rawURL string, f reviewFlags) error {
	switch {
	case f.approve == f.reject:
		return errors.New("give --approve or --reject")
	case f.reject && strings.TrimSpace(f.reason) == "":
		return errors.New("--reject needs --reason: say what must change")
	case f.sign != "" && f.as == "":
		return errors.New("--sign needs --as SUBJECT: the statement signed names the reviewer, as the token authenticates it")
	case f.sign == "" && f.as != "":
		return errors.New("--as is for --sign: the server knows who the token is")
	}
	c, err := newSkillsClient(rawURL, f.api, g.stderr)
	if err != nil {
		return err
	}
	sk, err := c.skillNamed(ctx, name)
	if err != nil {
		return err
	}
	v, err := c.version(ctx, sk.ID, version)
	if err != nil {
		return err
	}
	files, err := c.digestSet(ctx, sk.ID, v)
	if err != nil {
		return err
	}
	q := skillsapi.ReviewRequest{Decision: "reject", Reason: f.reason, Files: files}
	if f.approve {
		q.Decision = "approve"
	}
	if f.sign != "" {
		signer, closeSigner, err := signingKey(backends.ExpandHome(f.sign))
		if err != nil {
			return err
		}
		defer closeSigner()
		if err := sshsig.CheckKey(signer.PublicKey()); err != nil {
			return fmt.Errorf("--sign %s: %w", filepath.Base(f.sign), err)
		}
		now := time.Now().UTC().Truncate(time.Second) // the statement's time has whole seconds
		sig, err := sshsig.Sign(signer, skillsapi.Statement(f.approve, v.Name, v.ID, v.Digest, f.as, now), skillsapi.ReviewNamespace)
		if err != nil {
			return fmt.Errorf("--sign %s: %w", filepath.Base(f.sign), err)
		}
		q.Time, q.Signature = &now, string(sig)
	}
	body, err := json.Marshal(q)
	if err != nil {
		return err
	}
	var out apiReviewVersion
	path := "/v1/skills/" + url.PathEscape(sk.ID) + "/versions/" + url.PathEscape(v.ID) + "/review"
	if err := c.do(ctx, http.MethodPost, path, bytes.NewReader(body), "application/json", &out); err != nil {
		return err
	}
	verb := "rejected"
	if f.approve {
		verb = "approved"
	}
	fmt.Fprintf(g.stdout, "%s version %s of %s (%s, %d files): status %s", verb, out.ID, name, out.Digest, len(files), store.Echo(out.Status))
	if out.Review != nil && out.Review.Signer != "" {
		fmt.Fprintf(g.stdout, ", signed by %s", store.Echo(out.Review.Signer))
	}
	fmt.Fprintln(g.stdout)
	return nil
}

// digestSet downloads version v of skill id and returns its files' SHA-256
// by path in the skill's folder, once it checked that they make v's
// digest: the set a decision names is the bytes downloaded.
func (c *skillsClient) digestSet(ctx context.Context, id string, v apiVersion) (map[string]string, error) {
	path := "/v1/skills/" + url.PathEscape(id) + "/versions/" + url.PathEscape(v.ID) + "/content"
	data, err := c.send(ctx, http.MethodGet, path, nil, "", "application/zip", maxReviewBytes)
	if err != nil {
		return nil, err
	}
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return nil, fmt.Errorf("GET %s: the answer is not a zip archive: %w", path, err)
	}
	files, err := skillsapi.DigestSet(zr, v.Name)
	if err != nil {
		return nil, fmt.Errorf("GET %s: %w", path, err)
	}
	if got := setDigest(files); got != v.Digest {
		return nil, fmt.Errorf("the files the server sent for %s make the digest %s, not the version's %s: nothing was decided", v.ID, got, store.Echo(v.Digest))
	}
	return files, nil
}

func runPromote(ctx context.Context, g *globals, name, version, channel, rawURL string, f apiFlags) error {
	c, err := newSkillsClient(rawURL, f, g.stderr)
	if err != nil {
		return err
	}
	sk, err := c.skillNamed(ctx, name)
	if err != nil {
		return err
	}
	v, err := c.version(ctx, sk.ID, version)
	if err != nil {
		return err
	}
	body, _ := json.Marshal(skillsapi.PromoteRequest{Version: v.ID}) // a string: it cannot fail
	var out apiChannel
	path := "/v1/skills/" + url.PathEscape(sk.ID) + "/channels/" + url.PathEscape(channel)
	if err := c.do(ctx, http.MethodPost, path, bytes.NewReader(body), "application/json", &out); err != nil {
		return err
	}
	was := "nowhere (new channel)"
	if len(out.History) > 0 {
		was = store.Echo(out.History[0].Version)
	}
	fmt.Fprintf(g.stdout, "channel %s of %s: %s (was %s)\n", store.Echo(out.Name), name, store.Echo(out.Version), was)
	return nil
}

func runPending(ctx context.Context, g *globals, rawURL string, f apiFlags) error {
	c, err := newSkillsClient(rawURL, f, g.stderr)
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(g.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "SKILL\tVERSION\tCREATED\tCREATED BY\tDIGEST")
	err = listPages(ctx, c, "/v1/reviews/pending", func(v apiVersion) (bool, error) {
		by := v.CreatedBy
		if by == "" {
			by = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", store.Echo(v.Name), store.Echo(v.ID), store.Echo(v.CreatedAt), store.Echo(by), store.Echo(v.Digest))
		return true, nil
	})
	if err != nil {
		return err
	}
	return tw.Flush()
}

// setDigest is the digest of a digest set (path to hex SHA-256), as a
// registry's version digest is computed (lockfile.FilesDigest).
func setDigest(files map[string]string) string {
	list := make([]lockfile.FileDigest, 0, len(files))
	for p, sum := range files {
		list = append(list, lockfile.FileDigest{Path: p, SHA256: sum})
	}
	return lockfile.FilesDigest(list)
}
