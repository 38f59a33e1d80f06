package ui

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/skillstore/skillstore/internal/hidden"

	"github.com/skillstore/skillstore/internal/logtext"
	"github.com/skillstore/skillstore/skilldiff"
	"github.com/skillstore/skillstore/store"
)

// PendingVersion is a version waiting for review, as the reviews page
// shows it.
type PendingVersion struct {
	SkillID   string // the Skills API's ID of its skill
	Name      string // the skill's name
	ID        string // the version's ID
	Created   time.Time
	CreatedBy string
	Digest    string
	// Files is its digest set, path (in the skill's folder) to hex
	// SHA-256: what an approval from the page names.
	Files map[string]string
	// Diff is what changed from the version before it (every file added
	// for a first version); nil with DiffErr saying why.
	Diff    *skilldiff.Diff
	DiffErr string
}

// ReviewSource is what the reviews page reads: the versions waiting for
// review that the request's caller may see and review (or write), oldest
// first. A skill the caller may not see is never among them.
type ReviewSource interface {
	Pending(ctx context.Context, r *http.Request, limit int) (list []PendingVersion, more bool, err error)
}

// maxPending is how many pending versions the reviews page shows.
const maxPending = 20

// pendingRow is a pending version as the page shows it.
type pendingRow struct {
	PendingVersion
	FilesJSON string // Files as the decision's JSON sends them
	Findings  int    // hidden-text findings in the files it adds or changes
}

type reviewsData struct {
	Versions []pendingRow
	More     bool
	Err      string
}

// reviews serves /reviews: the pending versions, each with its diff, its
// hidden-text findings flagged, and buttons to approve or reject it.
// The page only reads: its script sends a decision to the Skills API
// (POST /v1/skills/{id}/versions/{version}/review) with the tab's token
// in the Authorization header, never as a form or by a cookie, so
// another site cannot make a browser decide; the API checks and audits
// it as any other client's.
func (u *UI) reviews(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := u.bounded(r)
	defer cancel()
	list, more, err := u.opts.Reviews.Pending(ctx, r, maxPending)
	d := reviewsData{More: more}
	if err != nil {
		d.Err = describe(err)
		if !errors.As(err, new(*store.Error)) {
			u.opts.Logger.Warn("the pending versions cannot be listed", "err", logtext.Of(err))
		}
	}
	for _, v := range list {
		u.audit(r, v.Name, "")            // its files' content is on the page
		files, _ := json.Marshal(v.Files) // strings only: it cannot fail
		row := pendingRow{PendingVersion: v, FilesJSON: string(files)}
		if v.Diff != nil {
			for _, c := range v.Diff.Changes {
				row.Findings += len(c.Findings)
			}
		}
		d.Versions = append(d.Versions, row)
	}
	u.render(w, r, http.StatusOK, "reviews", "Reviews", "reviews", d)
}

// visibleLines is text of many lines (a unified diff) with every
// character that could make it display as other text written as its
// code point (hidden.Visible), line ends and tabs kept.
func visibleLines(s string) string {
	lines := strings.Split(s, "\n")
	for i, line := range lines {
		parts := strings.Split(line, "\t")
		for j, p := range parts {
			parts[j] = hidden.Visible(p)
		}
		lines[i] = strings.Join(parts, "\t")
	}
	return strings.Join(lines, "\n")
}
