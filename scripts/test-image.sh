#!/usr/bin/env bash
# `npm run test:image`: builds the container image (`npm run image`) and runs its tests
# (dist/test/image/container.test.js) against a real Docker engine. When no engine answers, starts
# dockerd in the background for the run and stops it afterwards; where none can run at all (no dockerd,
# or it does not come up), prints a LOUD skip line and exits 0. Prints the build and test times.
# Needs: docker.io (Debian) or any Docker engine, apt-get (the tests take busybox-static from Debian to
# run a fake node inside the image, in the home volume: the image itself has no shell).
set -euo pipefail
cd "$(dirname "$0")/.."

skip() {
  echo
  echo "!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!"
  echo "!!! CONTAINER IMAGE TESTS SKIPPED: $1"
  echo "!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!"
  echo
  exit 0
}

work=.tmp/image-test
mkdir -p "$work"
dockerd_pid=''
stop_dockerd() {
  if [ -n "$dockerd_pid" ] && kill -0 "$dockerd_pid" 2>/dev/null; then
    echo "test-image: stopping the dockerd started for the tests (pid $dockerd_pid)"
    kill -TERM "$dockerd_pid"
    for _ in $(seq 1 100); do kill -0 "$dockerd_pid" 2>/dev/null || break; sleep 0.2; done
  fi
}
trap stop_dockerd EXIT

if ! command -v docker >/dev/null 2>&1; then
  skip "no docker command (install Debian's docker.io: apt-get install -y docker.io)"
fi
if ! docker info >/dev/null 2>&1; then
  command -v dockerd >/dev/null 2>&1 || skip "no Docker engine answers and there is no dockerd to start (apt-get install -y docker.io)"
  if [ "$(id -u)" != 0 ]; then skip "no Docker engine answers, and starting dockerd needs root"; fi
  echo "test-image: no Docker engine answers: starting dockerd (log: $work/dockerd.log)"
  dockerd >"$work/dockerd.log" 2>&1 &
  dockerd_pid=$!
  for _ in $(seq 1 150); do
    docker info >/dev/null 2>&1 && break
    kill -0 "$dockerd_pid" 2>/dev/null || break
    sleep 0.2
  done
  if ! docker info >/dev/null 2>&1; then
    tail -n 20 "$work/dockerd.log" || true
    skip "dockerd did not come up on this machine (its last lines are above)"
  fi
fi

# busybox-static, for the fake node: from Debian, through apt, into the work folder.
busybox="$work/busybox"
if [ ! -x "$busybox" ]; then
  rm -rf "$work/debs" && mkdir -p "$work/debs" && chmod 0777 "$work/debs"
  if ! (cd "$work/debs" && apt-get download -q busybox-static >/dev/null 2>&1) &&
    ! { [ "$(id -u)" = 0 ] && apt-get update -q >/dev/null && (cd "$work/debs" && apt-get download -q busybox-static >/dev/null 2>&1); }; then
    echo "test-image: error: apt-get could not download busybox-static (the tests' fake node runs on it)" >&2
    echo "test-image: hint: run 'apt-get update' once, then run this again" >&2
    exit 69
  fi
  dpkg-deb -x "$work"/debs/busybox-static_*.deb "$work/debs/x"
  install -m 0755 "$work/debs/x/bin/busybox" "$busybox"
fi

start=$(date +%s.%N)
image=$(npm run --silent image | tail -n 1)
built=$(date +%s.%N)
status=0
CHAINVISOR_IMAGE="$image" CHAINVISOR_TEST_BUSYBOX="$PWD/$busybox" \
  node scripts/run-tests.mjs --test-concurrency=1 -- dist/test/image/container.test.js || status=$?
done_at=$(date +%s.%N)
size=$(docker image inspect --format '{{.Size}}' "$image")
awk -v i="$image" -v mb="$((size / 1000000))" -v a="$start" -v b="$built" -v c="$done_at" \
  'BEGIN { printf "test-image: image %s %d MB; build %.1f s, tests %.1f s\n", i, mb, b - a, c - b }'
exit "$status"
