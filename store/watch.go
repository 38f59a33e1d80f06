package store

import (
	"context"

	"github.com/skillstore/skillstore/internal/logtext"
)

// Watcher is implemented by backends that report changes as they happen
// (local disk). Each value on the channel is a burst of changes; the
// channel closes when ctx ends.
type Watcher interface {
	Watch(ctx context.Context) (<-chan struct{}, error)
}

// Watches reports whether a source reports its changes as they happen
// (a Watcher: a local folder), so that a change made before Changed
// began to watch it is not reported. Another source's change is found by
// the next Refresh, whenever it was made.
func (s *Store) Watches() bool {
	for _, src := range s.sources {
		if _, ok := src.FS.(Watcher); ok {
			return true
		}
	}
	return false
}

// Changed merges the change signals of the sources that can report them,
// and delivers when a source that a catalog was built without (it was
// slower than Options.SourceTimeout) has answered with something new, so
// that a Refresh serves it. It returns nil (a channel that never
// delivers) when there can be no signal (no source reports changes and
// SourceTimeout is negative); callers then rely on periodic Refresh
// alone. Call it once per Store: the late-source signal goes to one
// channel.
func (s *Store) Changed(ctx context.Context) <-chan struct{} {
	var chans []<-chan struct{}
	for _, src := range s.sources {
		if w, ok := src.FS.(Watcher); ok {
			ch, err := w.Watch(ctx)
			if err != nil {
				if s.closed.Load() || ctx.Err() != nil {
					continue // closed as the program stops: nothing to watch, and nothing to say
				}
				s.opts.Logger.Info("not watching a source; it is rescanned periodically", "source", src.Label, "location", src.Location, "reason", logtext.Of(err))
				continue
			}
			chans = append(chans, ch)
		}
	}
	if len(chans) == 0 && s.opts.SourceTimeout < 0 {
		return nil
	}
	out := make(chan struct{}, 1)
	go func() {
		for {
			select {
			case <-ctx.Done():
				return
			case <-s.late:
				select {
				case out <- struct{}{}:
				default:
				}
			}
		}
	}()
	for _, ch := range chans {
		go func() {
			for range ch {
				select {
				case out <- struct{}{}:
				default:
				}
			}
		}()
	}
	return out
}
