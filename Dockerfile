# Builds the sidecar binary into a small runtime image: a Go build stage,
# then Debian slim with the binary, its CA certificates, the tz database
# (SET TimeZone, the followed server's zone) and bash (the
# compose healthcheck's /healthz probe); no compiler, no Go toolchain.
#   docker build --build-arg VERSION=$(git describe --tags --always) \
#                --build-arg COMMIT=$(git rev-parse HEAD) -t sidecar .
#   docker run --rm -v $PWD/sidecar.yaml:/etc/sidecar/sidecar.yaml:ro sidecar run
FROM golang:1.26-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG VERSION=dev
# The build context has no .git (.dockerignore): the commit comes from here.
ARG COMMIT=unknown
# cgo: sqlfront/ links PostgreSQL's parser (pg_query_go); the image's gcc
# builds it, bookworm-slim's glibc runs it.
RUN CGO_ENABLED=1 go build -trimpath -buildvcs=false -ldflags "-s -w -X main.version=${VERSION} -X main.commit=${COMMIT}" -o /out/sidecar ./cmd/sidecar

FROM debian:bookworm-slim
RUN apt-get update && apt-get install -y --no-install-recommends ca-certificates tzdata \
    && rm -rf /var/lib/apt/lists/* \
    && useradd --system --home /var/lib/sidecar --create-home sidecar \
    && chmod 700 /var/lib/sidecar
COPY --from=build /out/sidecar /usr/local/bin/sidecar
USER sidecar
VOLUME /var/lib/sidecar
EXPOSE 7432
# SQL (sql.listen; in a container set it to 0.0.0.0:7433 with sql.users_file)
EXPOSE 7433
ENV SIDECAR_CONFIG=/etc/sidecar/sidecar.yaml
ENTRYPOINT ["/usr/local/bin/sidecar"]
CMD ["run"]
