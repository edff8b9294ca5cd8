# Builds the sidecar binary into a small runtime image.
#   docker build -t sidecar .
#   docker run --rm -v $PWD/sidecar.yaml:/etc/sidecar/sidecar.yaml:ro sidecar run
FROM golang:1.26-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG VERSION=dev
RUN CGO_ENABLED=0 go build -trimpath -ldflags "-s -w -X main.version=${VERSION}" -o /out/sidecar ./cmd/sidecar

FROM debian:bookworm-slim
RUN apt-get update && apt-get install -y --no-install-recommends ca-certificates \
    && rm -rf /var/lib/apt/lists/* \
    && useradd --system --home /var/lib/sidecar --create-home sidecar
COPY --from=build /out/sidecar /usr/local/bin/sidecar
USER sidecar
VOLUME /var/lib/sidecar
EXPOSE 7432
ENV SIDECAR_CONFIG=/etc/sidecar/sidecar.yaml
ENTRYPOINT ["/usr/local/bin/sidecar"]
CMD ["run"]
