# skillstore: one static binary on a distroless base.
#   docker build -t skillstore .
#   docker run --rm -p 127.0.0.1:8080:8080 -e SKILLSTORE_AUTH_TOKEN=change-me skillstore
FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG VERSION=dev
RUN CGO_ENABLED=0 go build -trimpath -ldflags "-s -w -X main.version=${VERSION}" -o /out/skillstore ./cmd/skillstore

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/skillstore /skillstore
EXPOSE 8080
USER nonroot
ENTRYPOINT ["/skillstore"]
# Serves the built-in examples until given --source; binding 0.0.0.0 needs a token.
CMD ["serve", "--http", "0.0.0.0:8080", "--stateless", "--source", "builtin://"]
