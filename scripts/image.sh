#!/usr/bin/env bash
# `npm run image`: builds the container image chainvisor:<version of package.json> for this machine's
# architecture from release/chainvisor-linux-<x64|arm64> (made by `npm run release` when missing) on
# the base from scripts/image-base.sh. Prints the image's name and size. See docs/container.md.
set -euo pipefail
cd "$(dirname "$0")/.."

version=$(node -p "require('./package.json').version")
case "$(uname -m)" in
  x86_64) arch=amd64 binary=release/chainvisor-linux-x64 ;;
  aarch64 | arm64) arch=arm64 binary=release/chainvisor-linux-arm64 ;;
  *) echo "image: error: no release binary for $(uname -m)" >&2; exit 64 ;;
esac

if ! docker info >/dev/null 2>&1; then
  echo "image: error: no Docker engine answers (docker info failed)" >&2
  echo "image: hint: start one (dockerd, or 'systemctl start docker'), or set DOCKER_HOST" >&2
  exit 69
fi
if [ ! -f "$binary" ]; then
  echo "image: $binary is missing: running npm run release" >&2
  npm run release
fi
if [ ! -x "$binary" ]; then
  echo "image: error: $binary was not made (or is not executable)" >&2
  echo "image: hint: run 'npm run release' and look at its output" >&2
  exit 66
fi

base=$(bash scripts/image-base.sh --arch "$arch" | tail -n 1)
image="chainvisor:$version"
docker build --quiet --build-arg "BASE=$base" --build-arg "VERSION=$version" --build-arg "BINARY=$binary" \
  -t "$image" . >/dev/null
size=$(docker image inspect --format '{{.Size}}' "$image")
echo "image: built $image on $base: $((size / 1000000)) MB" >&2
echo "$image"
