#!/usr/bin/env bash
# Builds the image with BuildKit, giving npm inside the build what the host's npm trusts and uses:
# - its CA bundle (npm's `cafile`, else NODE_EXTRA_CA_CERTS) as the build secret `npm_ca`: a TLS
#   proxy in front of the registry is then trusted during `npm ci`, and the file never reaches a
#   layer of any stage;
# - its proxy (HTTPS_PROXY/HTTP_PROXY/NO_PROXY, or npm's `https-proxy`/`proxy`) as build
#   arguments, which Docker predefines and keeps out of the image's history.
# Extra arguments go to `docker build` (e.g. --progress=plain, --no-cache).
#
# Usage: scripts/docker/build.sh [TAG] [docker build options…]   (TAG default news-analytics-subgraph)
# Environment: DOCKER (the client; default: one that can run BuildKit, see below).
set -euo pipefail
cd "$(dirname "$0")/../.."

tag=${1:-news-analytics-subgraph}
shift || true

# The BuildKit client: buildx when the client has it; else Debian's docker.io client (20.10), whose
# built-in BuildKit needs no plugin. A newer client without buildx only has the legacy builder,
# which cannot read `RUN --mount`.
pick_client() {
  if [ -n "${DOCKER:-}" ]; then echo "$DOCKER"; return; fi
  if docker buildx version >/dev/null 2>&1; then echo docker; return; fi
  if [ -x /usr/bin/docker ] && /usr/bin/docker version --format '{{.Client.Version}}' 2>/dev/null | grep -q '^20\.'; then
    echo /usr/bin/docker
    return
  fi
  echo docker
}
docker_client=$(pick_client)

npm_setting() {
  local value
  value=$(npm config get "$1" 2>/dev/null || true)
  case "$value" in '' | null | undefined) ;; *) echo "$value" ;; esac
}

args=()
ca_file=$(npm_setting cafile)
[ -n "$ca_file" ] || ca_file=${NODE_EXTRA_CA_CERTS:-}
if [ -n "$ca_file" ] && [ -s "$ca_file" ]; then
  echo "build: npm CA bundle from $ca_file (build secret npm_ca)"
  args+=(--secret "id=npm_ca,src=$ca_file")
fi

https_proxy_value=${HTTPS_PROXY:-${https_proxy:-$(npm_setting https-proxy)}}
http_proxy_value=${HTTP_PROXY:-${http_proxy:-$(npm_setting proxy)}}
no_proxy_value=${NO_PROXY:-${no_proxy:-$(npm_setting noproxy)}}
[ -z "$https_proxy_value" ] || args+=(--build-arg "HTTPS_PROXY=$https_proxy_value")
[ -z "$http_proxy_value" ] || args+=(--build-arg "HTTP_PROXY=$http_proxy_value")
[ -z "$no_proxy_value" ] || args+=(--build-arg "NO_PROXY=$no_proxy_value")

DOCKER_BUILDKIT=1 exec "$docker_client" build "${args[@]}" -t "$tag" "$@" .
