package mcpserver

// ServeStdioForTest is serveStdio (stdio_test.go), for the external tests.
var ServeStdioForTest = serveStdio
