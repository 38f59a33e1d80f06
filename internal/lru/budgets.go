package lru

// The fixed budgets of the server's caches, in bytes. Each cache made
// with a budget that is not an option takes it from here, and Budgets
// lists every one, so that their sum (Fixed) is computed, not written by
// hand; `skillstore serve --help` shows it next to --memory-limit.
// budgets_test fails when an lru.New outside this table is given a
// constant. The content cache (--cache-bytes) is not here: it is an
// option.
const (
	StoreViews       = 32 << 20
	StoreDigests     = 8 << 20
	ViewLists        = 32 << 20
	ViewIndexes      = 16 << 20
	Frontmatters     = 16 << 20
	LeftOutLog       = 1 << 20
	Provenances      = 1 << 20
	RemoteProvenance = 1 << 20
	Escapes          = 32 << 20
	PageRenders      = 16 << 20
	ArtifactMeta     = 16 << 20
	ArtifactBodies   = 64 << 20
)

// Budget is one cache's fixed budget: Name is its constant in this
// package.
type Budget struct {
	Name, Cache string
	Bytes       int64
}

var budgets = [...]Budget{
	{"StoreViews", "store: the restricted views' listings and search subsets", StoreViews},
	{"StoreDigests", "store: the files' SHA-256 digests", StoreDigests},
	{"ViewLists", "mcpserver: the filtered skill lists", ViewLists},
	{"ViewIndexes", "discovery: the filtered .well-known indexes", ViewIndexes},
	{"Frontmatters", "mcpserver: the skills' frontmatter as JSON", Frontmatters},
	{"LeftOutLog", "mcpserver: the left-out skills already logged", LeftOutLog},
	{"Provenances", "mcpserver: the provenance records as JSON", Provenances},
	{"RemoteProvenance", "mcpserver: the provenance shown to remote callers", RemoteProvenance},
	{"Escapes", "mcpserver: the JSON escapes of file texts", Escapes},
	{"PageRenders", "ui: the pages' rendered Markdown", PageRenders},
	{"ArtifactMeta", "artifact: the archives' kinds, digests and sizes", ArtifactMeta},
	{"ArtifactBodies", "artifact: the archives' bodies held in memory", ArtifactBodies},
}

// Budgets lists the fixed budgets.
func Budgets() []Budget { return append([]Budget(nil), budgets[:]...) }

// Fixed is the sum of the fixed budgets: what the server's caches other
// than the content cache may hold at most.
func Fixed() int64 {
	var sum int64
	for _, b := range budgets {
		sum += b.Bytes
	}
	return sum
}
