package snapshot

import "context"

// TaggedObjects is implemented by Objects that tell, with an object's
// read, the tag ObjectTag gives the same unchanged object. A reader
// records its pointer's tag from the read Open makes anyway, so its first
// Refresh costs one request (ObjectTag) while nothing changes, not that
// and a second read of the pointer. Open makes no extra request for it.
// Refresh records the tag of its own check (ObjectTag), not its read's:
// a read's tag in another form than the check's costs one more read at
// the first Refresh, never one at each; a pointer published between a
// Refresh's check and its read is read once more at the next.
type TaggedObjects interface {
	Objects
	// ReadObjectTag reads the object at key as ReadObject does and returns
	// with it the tag ObjectTag gives it while it is unchanged, or "" when
	// the read does not show it (the reader then learns the tag at its
	// first Refresh, as from Objects without this method). A tag must
	// never be one ObjectTag gives to other content: when the object
	// changes while it is read, the tag is that of the content returned
	// or of an older version, never of a newer one.
	ReadObjectTag(ctx context.Context, key string, max int64) (data []byte, tag string, err error)
}

var _ TaggedObjects = fsObjects{}

// readTagged reads the object at key, with its tag when objs can tell it
// ("" otherwise).
func readTagged(ctx context.Context, objs Objects, key string, max int64) ([]byte, string, error) {
	if t, ok := objs.(TaggedObjects); ok {
		return t.ReadObjectTag(ctx, key, max)
	}
	data, err := objs.ReadObject(ctx, key, max)
	return data, "", err
}

// ReadObjectTag reads the file, tagged by the SHA-256 of what was read, as
// ObjectTag tags it; a file over the pointer's limit gets no tag here
// (ObjectTag tags such a file, unread, by its size and time).
func (o fsObjects) ReadObjectTag(ctx context.Context, key string, limit int64) ([]byte, string, error) {
	data, err := o.ReadObject(ctx, key, limit)
	if err != nil {
		return nil, "", err
	}
	if int64(len(data)) > maxPointerBytes {
		return data, "", nil
	}
	return data, Sum(data), nil
}
