# skillstore: one static binary on a distroless base, run as a non-root
# user given by number (uid 65532), so Kubernetes' runAsNonRoot can check it.
#   docker build --build-arg VERSION=v1.2.3 -t skillstore .
#   docker buildx build --platform linux/amd64,linux/arm64 --build-arg VERSION=v1.2.3 -t REGISTRY/skillstore:v1.2.3 --push .
#   docker run --rm -p 127.0.0.1:8080:8080 -e SKILLSTORE_AUTH_TOKEN=change-me skillstore
# The build stage runs on the builder's platform and cross-compiles, with
# the flags internal/release builds the release archives with.
FROM --platform=$BUILDPLATFORM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG VERSION=dev
ARG TARGETOS=linux
ARG TARGETARCH=amd64
RUN CGO_ENABLED=0 GOOS=$TARGETOS GOARCH=$TARGETARCH go build -trimpath -buildvcs=false \
    -ldflags "-s -w -buildid= -X main.version=${VERSION}" -o /out/skillstore ./cmd/skillstore

FROM gcr.io/distroless/static-debian12:nonroot
ARG VERSION=dev
LABEL org.opencontainers.image.title="skillstore" org.opencontainers.image.version="${VERSION}"
COPY --from=build /out/skillstore /skillstore
EXPOSE 8080
USER 65532:65532
ENTRYPOINT ["/skillstore"]
# Serves the built-in examples until given --source; binding 0.0.0.0 needs a token.
CMD ["serve", "--http", "0.0.0.0:8080", "--stateless", "--source", "builtin://"]
