// Package storehook lets tests outside package store step into a store's
// reads. Package store fills in SetRead when it is loaded; nothing but
// tests calls it. It lets a test that needs the layers above the store
// (tools, mcpserver, the backends) live with them, not in store.
package storehook

// SetRead makes hook run as each read of one of s's skill files starts,
// after the skill was resolved: between a listing and the reads an
// answer builds on it. s is a *store.Store; hook gets the skill's name
// and the file's path. Call it before s is used. It is nil unless
// package store is linked in.
var SetRead func(s any, hook func(skill, path string))
