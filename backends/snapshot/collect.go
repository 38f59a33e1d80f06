package snapshot

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"
)

// listed is what a listing says of an object.
type listed struct {
	size    int64
	modTime time.Time
}

// listKeys lists the keys under prefix.
func listKeys(ctx context.Context, b Bucket, prefix string) (map[string]listed, error) {
	keys := map[string]listed{}
	err := b.WalkObjects(ctx, prefix, func(o ObjectInfo) error {
		keys[o.Key] = listed{o.Size, o.ModTime}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("listing the bucket: %w", err)
	}
	return keys, nil
}

// collect removes the snapshots beyond opts.Keep, newest first, and the
// content no kept snapshot uses; with opts.DeleteOutside, also every
// object outside Dir. It never removes the snapshot the pointer names now
// (another publish may have moved it), one newer than current, or
// anything younger than opts.Grace, and it removes no content at all
// while a snapshot it keeps has a manifest it cannot read (of a newer
// format, or broken): it cannot tell what that one uses.
//
// held reports whether this publish still holds the folder's lock; it is
// asked just before anything is removed, and collect removes nothing if
// it does not. That, not collect, is what protects a publish under way:
// it may skip uploading content the bucket holds, older than Grace and
// used by no manifest yet, which only its own manifest, not yet written,
// will name. Without the lock (a store whose create-if-absent is not one
// step, or a lock broken under a running publish) that content can still
// be removed between that publish's listing and its manifest.
func collect(ctx context.Context, b Bucket, current *Manifest, opts PublishOptions, r *Report, obs Observer, held func(context.Context) error) error {
	gone, used, listed, err := plan(ctx, b, current, opts, r)
	if err != nil {
		return err
	}
	if err := held(ctx); err != nil {
		return fmt.Errorf("snapshot %s is published, but nothing was removed: %w", current.ID, err)
	}
	for _, id := range gone {
		obs.RemovingSnapshot(id)
		key := listedManifest(listed, id)
		if err := b.DeleteObject(ctx, key); err != nil {
			return fmt.Errorf("removing snapshot %s: %w", id, err)
		}
		if _, signed := listed[signatureKey(key)]; signed {
			if err := b.DeleteObject(ctx, signatureKey(key)); err != nil {
				return fmt.Errorf("removing the signature of snapshot %s: %w", id, err)
			}
		}
		r.Removed++
	}
	blobs, err := listKeys(ctx, b, Dir+"/blobs/")
	if err != nil {
		return err
	}
	for key, o := range blobs {
		if used != nil && !used[key] && time.Since(o.modTime) >= opts.Grace {
			if err := b.DeleteObject(ctx, key); err != nil {
				return fmt.Errorf("removing %s: %w", key, err)
			}
		}
	}
	if opts.DeleteOutside {
		return deleteOutside(ctx, b, r, obs)
	}
	return nil
}

// plan reads the bucket's snapshots and returns those to remove, newest
// first, the blob keys the kept ones use (nil when a kept one cannot be
// read: no blob may be removed), and the keys listed under snapshots/
// (manifests and signatures); it sets r.Kept.
func plan(ctx context.Context, b Bucket, current *Manifest, opts PublishOptions, r *Report) (gone []string, used map[string]bool, manifests map[string]listed, err error) {
	manifests, err = listKeys(ctx, b, Dir+"/snapshots/")
	if err != nil {
		return nil, nil, nil, err
	}
	live := current.ID
	if data, err := b.ReadObject(ctx, PointerKey, maxPointerBytes); err == nil {
		var ptr Pointer
		if json.Unmarshal(data, &ptr) == nil && ptr.Snapshot != "" {
			live = ptr.Snapshot
		}
	}
	var ids []string
	for key := range manifests {
		if id, _, ok := manifestID(key); ok {
			ids = append(ids, id)
		}
	}
	sort.Sort(sort.Reverse(sort.StringSlice(ids))) // IDs start with their time: newest first
	used = map[string]bool{}
	current.useBlobs(used)
	unsure := false // a kept snapshot's blobs are unknown
	kept := 1       // the current snapshot
	for _, id := range ids {
		if id == current.ID {
			continue
		}
		key := listedManifest(manifests, id)
		young := time.Since(manifests[key].modTime) < opts.Grace
		if kept >= opts.Keep && id != live && id < current.ID && !young {
			gone = append(gone, id)
			continue
		}
		data, err := b.ReadObject(ctx, key, maxManifestBytes)
		if err != nil {
			return nil, nil, nil, fmt.Errorf("reading snapshot %s: %w", id, err)
		}
		m, err := DecodeManifest(data)
		if err != nil {
			if !errors.Is(err, errOtherVersion) && id != live && !young {
				gone = append(gone, id) // unreadable: of no use to a reader
			} else {
				unsure = true // a newer publish's, or one a newer reader reads
			}
			continue
		}
		kept++
		m.useBlobs(used)
	}
	r.Kept = kept
	if unsure {
		used = nil
	}
	return gone, used, manifests, nil
}

// listedManifest returns the key of snapshot id's manifest among the
// keys listed under snapshots/: of the format version it was written in.
func listedManifest(listed map[string]listed, id string) string {
	if _, ok := listed[manifestKey(id, 1)]; ok {
		return manifestKey(id, 1)
	}
	return ManifestKey(id)
}

// useBlobs marks the blob keys of m's files in used.
func (m *Manifest) useBlobs(used map[string]bool) {
	for _, sk := range m.Skills {
		for _, f := range sk.Files {
			used[BlobKey(f.SHA256)] = true
		}
	}
}

// deleteOutside deletes every object outside Dir.
func deleteOutside(ctx context.Context, b Bucket, r *Report, obs Observer) error {
	all, err := listKeys(ctx, b, "")
	if err != nil {
		return err
	}
	for key := range all {
		if !strings.HasPrefix(key, Dir+"/") {
			obs.DeletingObject(key)
			if err := b.DeleteObject(ctx, key); err != nil {
				return fmt.Errorf("deleting %s: %w", key, err)
			}
			r.Deleted++
		}
	}
	return nil
}
