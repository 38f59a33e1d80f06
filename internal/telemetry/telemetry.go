// Package telemetry sets up OpenTelemetry traces and metrics from the
// standard OTEL_* environment variables, for skillstore serve.
//
// Traces are off unless OTEL_EXPORTER_OTLP_ENDPOINT,
// OTEL_EXPORTER_OTLP_TRACES_ENDPOINT or OTEL_TRACES_EXPORTER=otlp is set;
// metrics likewise with OTEL_EXPORTER_OTLP_METRICS_ENDPOINT and
// OTEL_METRICS_EXPORTER=otlp. OTEL_SDK_DISABLED=true turns both off, and
// OTEL_TRACES_EXPORTER=none or OTEL_METRICS_EXPORTER=none turns one off.
// The OTLP exporters read the rest (endpoint, headers, timeout,
// compression, TLS) themselves; the SDK reads OTEL_TRACES_SAMPLER and
// OTEL_TRACES_SAMPLER_ARG (default: parentbased_always_on).
//
// Spans go to the exporter through a bounded queue (queue.go): a collector
// that is down or slow never blocks a request; what does not fit is
// dropped and counted (Stats).
//
// The resource is service.name (OTEL_SERVICE_NAME, else "skillstore"),
// service.version, the SDK's own attributes and OTEL_RESOURCE_ATTRIBUTES.
// No detector runs that would record a host path (the process detector
// records the executable's path).
package telemetry

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetrichttp"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/metric"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

// Telemetry is what Setup made: a tracer provider and a meter provider,
// each nil when off. Its methods are safe on a nil *Telemetry.
type Telemetry struct {
	tp    *sdktrace.TracerProvider
	mp    *sdkmetric.MeterProvider
	queue *queue
}

// Options are what Setup cannot read from the environment.
type Options struct {
	ServiceVersion string
	// QueueSize bounds the spans waiting for export (default 2048, or
	// OTEL_BSP_MAX_QUEUE_SIZE).
	QueueSize int
}

// Setup reads the OTEL_* environment and starts what it asks for. It
// returns a nil *Telemetry when neither traces nor metrics are on, and an
// error when a variable names something unsupported (a protocol other
// than http/protobuf, an exporter other than otlp or none).
func Setup(ctx context.Context, opts Options) (*Telemetry, error) {
	if strings.EqualFold(strings.TrimSpace(os.Getenv("OTEL_SDK_DISABLED")), "true") {
		return nil, nil
	}
	traces, err := enabled("OTEL_TRACES_EXPORTER", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
	if err != nil {
		return nil, err
	}
	metrics, err := enabled("OTEL_METRICS_EXPORTER", "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT")
	if err != nil {
		return nil, err
	}
	if !traces && !metrics {
		return nil, nil
	}
	for _, v := range []string{"OTEL_EXPORTER_OTLP_PROTOCOL", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "OTEL_EXPORTER_OTLP_METRICS_PROTOCOL"} {
		if p := strings.TrimSpace(os.Getenv(v)); p != "" && p != "http/protobuf" {
			return nil, fmt.Errorf("%s=%q: skillstore exports OTLP over HTTP only; set it to http/protobuf (the OTLP/HTTP port is usually 4318)", v, p)
		}
	}
	res, err := resource.Merge(resource.Default(), resource.NewSchemaless(attribute.String("service.version", opts.ServiceVersion)))
	if err != nil {
		return nil, err
	}
	if os.Getenv("OTEL_SERVICE_NAME") == "" && !strings.Contains(os.Getenv("OTEL_RESOURCE_ATTRIBUTES"), "service.name=") {
		if res, err = resource.Merge(res, resource.NewSchemaless(attribute.String("service.name", "skillstore"))); err != nil {
			return nil, err
		}
	}
	t := &Telemetry{}
	if traces {
		exp, err := otlptracehttp.New(ctx)
		if err != nil {
			return nil, fmt.Errorf("OTLP trace exporter: %w", err)
		}
		size := opts.QueueSize
		if size <= 0 {
			size = envInt("OTEL_BSP_MAX_QUEUE_SIZE", 2048)
		}
		t.queue = newQueue(exp, size, envInt("OTEL_BSP_MAX_EXPORT_BATCH_SIZE", 512), time.Duration(envInt("OTEL_BSP_SCHEDULE_DELAY", 5000))*time.Millisecond)
		t.tp = sdktrace.NewTracerProvider(sdktrace.WithResource(res), sdktrace.WithSpanProcessor(t.queue))
	}
	if metrics {
		exp, err := otlpmetrichttp.New(ctx)
		if err != nil {
			return nil, errors.Join(fmt.Errorf("OTLP metric exporter: %w", err), t.Shutdown(ctx))
		}
		t.mp = sdkmetric.NewMeterProvider(sdkmetric.WithResource(res), sdkmetric.WithReader(sdkmetric.NewPeriodicReader(exp)))
	}
	return t, nil
}

// enabled reports whether a signal is on: its exporter variable says otlp,
// or it is unset and an OTLP endpoint is.
func enabled(exporterVar, endpointVar string) (bool, error) {
	switch e := strings.TrimSpace(os.Getenv(exporterVar)); e {
	case "otlp":
		return true, nil
	case "none":
		return false, nil
	case "":
		return os.Getenv("OTEL_EXPORTER_OTLP_ENDPOINT") != "" || os.Getenv(endpointVar) != "", nil
	default:
		return false, fmt.Errorf("%s=%q: skillstore exports with otlp only (or none)", exporterVar, e)
	}
}

func envInt(name string, def int) int {
	var n int
	if _, err := fmt.Sscan(os.Getenv(name), &n); err != nil || n <= 0 {
		return def
	}
	return n
}

// TracerProvider returns the tracer provider, or nil when traces are off.
func (t *Telemetry) TracerProvider() trace.TracerProvider {
	if t == nil || t.tp == nil {
		return nil
	}
	return t.tp
}

// MeterProvider returns the meter provider, or nil when metrics are off.
func (t *Telemetry) MeterProvider() metric.MeterProvider {
	if t == nil || t.mp == nil {
		return nil
	}
	return t.mp
}

// Stats counts the spans given to the exporter's queue.
type Stats struct {
	Exported uint64 // sent to the collector
	Dropped  uint64 // the queue was full
	Failed   uint64 // the collector refused them or could not be reached
}

// Stats returns the span counts so far; zero when traces are off.
func (t *Telemetry) Stats() Stats {
	if t == nil || t.queue == nil {
		return Stats{}
	}
	return t.queue.stats()
}

// Shutdown exports what is queued, within ctx, and stops.
func (t *Telemetry) Shutdown(ctx context.Context) error {
	if t == nil {
		return nil
	}
	var errs []error
	if t.tp != nil {
		errs = append(errs, t.tp.Shutdown(ctx))
	}
	if t.mp != nil {
		errs = append(errs, t.mp.Shutdown(ctx))
	}
	return errors.Join(errs...)
}
