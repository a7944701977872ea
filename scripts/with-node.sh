#!/usr/bin/env bash
# Usage: scripts/with-node.sh <major> <command> [args…]
# Runs the command with Node.js <major> first on PATH. The Node binary comes from the npm registry's
# node-linux-<arch> package (the official build, published there), unpacked once into
# .tmp/node-<major>/ and reused. CI uses it to run the tests on the newest LTS as well as on the
# machine's own Node.
set -euo pipefail
major="${1:?usage: scripts/with-node.sh <major> <command> [args…]}"
shift
case "$(uname -m)" in
  x86_64) arch=x64 ;;
  aarch64 | arm64) arch=arm64 ;;
  *) echo "with-node: no node-linux build for $(uname -m)" >&2; exit 1 ;;
esac
root="$(cd "$(dirname "$0")/.." && pwd)"
dir="$root/.tmp/node-$major"
if [ ! -x "$dir/bin/node" ]; then
  work="$(mktemp -d)"
  trap 'rm -rf "$work"' EXIT
  echo "with-node: fetching node-linux-$arch@$major from the npm registry" >&2
  (cd "$work" && npm pack --silent "node-linux-$arch@$major" >/dev/null)
  mkdir -p "$work/unpacked"
  tar -xzf "$work"/node-linux-"$arch"-*.tgz -C "$work/unpacked"
  rm -rf "$dir" && mkdir -p "$(dirname "$dir")"
  mv "$work/unpacked/package" "$dir"
fi
echo "with-node: $("$dir/bin/node" --version) from $dir" >&2
PATH="$dir/bin:$PATH" exec "$@"
