# Sandbank's headless bank, sandbankd, in an image from scratch: the same
# image make image builds without a container engine (scripts/image; a
# test keeps the two in step). For those who build images their own way:
#
#   docker build --build-arg VERSION=$(git describe --tags --always --dirty) -t sandbank/sandbankd .
#   docker run --rm -p 7380:7380 -p 7443:7443 sandbank/sandbankd
#
# The bank's data file is /data/sandbank.db; mount a volume on /data to
# keep it. Health: GET /healthz on port 7380, or `sandbankd health` inside.

FROM golang:1.26-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG VERSION=devel
RUN CGO_ENABLED=0 GOOS=linux GOARCH=amd64 go build -trimpath -ldflags "-s -w -X sandbank/app.version=${VERSION}" \
      -o /rootfs/usr/local/bin/sandbankd ./cmd/sandbankd
RUN mkdir -p /rootfs/etc/ssl/certs /rootfs/data /rootfs/tmp \
 && cp /etc/ssl/certs/ca-certificates.crt /rootfs/etc/ssl/certs/ca-certificates.crt \
 && printf 'root:x:0:0:root:/root:/sbin/nologin\nsandbank:x:65532:65532:Sandbank:/data:/sbin/nologin\n' >/rootfs/etc/passwd \
 && printf 'root:x:0:\nsandbank:x:65532:\n' >/rootfs/etc/group \
 && chmod 0700 /rootfs/data && chmod 1777 /rootfs/tmp

FROM scratch
ARG VERSION=devel
COPY --from=build /rootfs/ /
COPY --from=build --chown=65532:65532 /rootfs/data /data
USER 65532:65532
WORKDIR /data
ENV PATH=/usr/local/bin HOME=/data
EXPOSE 7380/tcp 7443/tcp
HEALTHCHECK --interval=10s --timeout=5s --start-period=5s --retries=3 CMD ["/usr/local/bin/sandbankd", "health"]
LABEL org.opencontainers.image.title="Sandbank" \
      org.opencontainers.image.version="${VERSION}"
ENTRYPOINT ["/usr/local/bin/sandbankd", "--data", "/data/sandbank.db", "--addr", "0.0.0.0:7380", "--tls-addr", "0.0.0.0:7443"]
