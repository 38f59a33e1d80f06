package store

import (
	"context"
	"errors"
	"io/fs"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
)

// Child spans of a request's span: a cache miss (the wait for a shared
// load included) and a backend read. The store imports only the
// OpenTelemetry trace API, never an SDK or exporter: a span starts under
// the tracer provider of the span in ctx, and only when that span is
// recording, so a read without tracing, or in an unsampled trace, costs
// one context lookup and nothing else.
//
// Attributes are the source's label (the operator's word, never a
// location), the bytes read, and on failure error.type, one of a few
// fixed words (spanErrorType): never a path, a skill's content or an
// error's text, which may name a host path.

const tracerName = "github.com/skillstore/skillstore/store"

// startSpan starts a child span of ctx's span when that one records.
func startSpan(ctx context.Context, name string, sk *Skill) (context.Context, trace.Span) {
	parent := trace.SpanFromContext(ctx)
	if !parent.IsRecording() {
		return ctx, nil
	}
	return parent.TracerProvider().Tracer(tracerName).Start(ctx, name,
		trace.WithAttributes(attribute.String("skillstore.source", sk.Source.Label)))
}

// endSpan ends span (nil: none) with what the read gave.
func endSpan(span trace.Span, e *entry, err error) {
	if span == nil {
		return
	}
	if err != nil {
		span.SetAttributes(attribute.String("error.type", spanErrorType(err)))
		span.SetStatus(codes.Error, "")
	} else if e != nil {
		span.SetAttributes(attribute.Int64("skillstore.read.bytes", e.size))
	}
	span.End()
}

// spanErrorType is a read error's class, in a fixed word.
func spanErrorType(err error) string {
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return "timeout"
	case errors.Is(err, context.Canceled):
		return "canceled"
	case errors.Is(err, ErrSkillNotFound), errors.Is(err, ErrNoSkillDoc), errors.Is(err, ErrFileNotFound), errors.Is(err, fs.ErrNotExist):
		return "not_found"
	case errors.Is(err, ErrPermission), errors.Is(err, fs.ErrPermission):
		return "permission"
	case errors.Is(err, ErrPathEscapes):
		return "path_escapes"
	case errors.Is(err, ErrTooLarge):
		return "too_large"
	case errors.Is(err, ErrIsDir):
		return "is_dir"
	case errors.Is(err, ErrUnavailable):
		return "unavailable"
	}
	return "_OTHER"
}
