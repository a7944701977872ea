#!/usr/bin/env bash
# Builds the base of the chainvisor container image from Debian's own packages, without pulling any
# image from a registry: apt downloads the few packages the release binary and PID 1 need (from the
# sources apt is already configured with), dpkg-deb unpacks them into an empty root, and the root is
# imported as the image `chainvisor-base:<hash>`, where <hash> is taken from the root's contents so an
# unchanged base is not imported twice. Prints that image's name as its last line.
#
# What the root holds, and why:
#   libc6, libgcc-s1, libstdc++6, libatomic1  the release binary (a Node.js single executable) links them
#   tini                                      PID 1: forwards signals to chainvisor, reaps orphaned zombies
#   ca-certificates                           one bundle, /etc/ssl/certs/ca-certificates.crt, for the node
#   base-files                                only /etc/os-release, so image scanners know the distribution
# plus /etc/passwd and /etc/group with root and the user `chainvisor` (10001:10001), its home
# /home/chainvisor, /tmp, and /var/lib/dpkg/status listing the packages (scanners read it). No shell, no
# package manager, no locales, no documentation but the packages' copyright files.
#
# Usage: bash scripts/image-base.sh [--arch amd64] [--keep-root DIR]
# Needs: apt-get (with `apt-get update` run once), dpkg-deb, ldconfig, tar, docker.
set -euo pipefail

arch=amd64
keep_root=''
while [ $# -gt 0 ]; do
  case "$1" in
    --arch) arch="$2"; shift 2 ;;
    --keep-root) keep_root="$2"; shift 2 ;;
    *) echo "image-base: unknown argument $1" >&2; exit 64 ;;
  esac
done
host_arch=$(dpkg --print-architecture)
if [ "$arch" != "$host_arch" ]; then
  echo "image-base: error: only the machine's own architecture ($host_arch) can be built here, not $arch" >&2
  echo "image-base: hint: run this script on a $arch machine (apt downloads packages of its own architecture)" >&2
  exit 64
fi
case "$arch" in
  amd64) multiarch=x86_64-linux-gnu ;;
  arm64) multiarch=aarch64-linux-gnu ;;
  *) echo "image-base: error: unsupported architecture $arch (amd64 or arm64)" >&2; exit 64 ;;
esac

packages=(libc6 libgcc-s1 libstdc++6 libatomic1 tini ca-certificates base-files)
user_id=10001

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
debs="$work/debs"
root="$work/root"
mkdir -p "$debs" "$root"
chmod 0777 "$debs" # apt's download sandbox user must be able to write there

# 1. The packages, through apt (its configured sources, its signature checks).
if ! (cd "$debs" && apt-get download -q "${packages[@]}" >"$work/apt.log" 2>&1); then
  cat "$work/apt.log" >&2
  echo "image-base: error: apt-get could not download ${packages[*]}" >&2
  echo "image-base: hint: run 'apt-get update' once (as root), then run this again" >&2
  exit 69
fi

# 2. Unpack (no maintainer scripts run: what they would do is done below by hand).
unpacked="$work/unpacked"
mkdir -p "$unpacked"
: >"$work/status"
for deb in "$debs"/*.deb; do
  name=$(dpkg-deb -f "$deb" Package)
  dpkg-deb -x "$deb" "$unpacked/$name"
  # A dpkg status stanza, for image scanners.
  dpkg-deb -f "$deb" Package Version Architecture Source Maintainer |
    sed "1a Status: install ok installed" >>"$work/status"
  echo >>"$work/status"
  echo "$name $(dpkg-deb -f "$deb" Version)" >>"$work/versions"
done

u="$unpacked"
install -d -m 0755 "$root/lib" "$root/lib64" "$root/usr/lib" "$root/usr/bin" "$root/usr/local/bin" \
  "$root/etc/ssl/certs" "$root/etc/ld.so.conf.d" "$root/var/lib/dpkg" "$root/usr/share/doc" "$root/home"
# libc6: the loader and the shared libraries; not gconv (iconv modules), docs, lintian files.
# (The loader's well-known path is /lib64/ld-linux-x86-64.so.2 on amd64, /lib/ld-linux-aarch64.so.1 on arm64.)
cp -a "$u/libc6/lib/." "$root/lib/"
if [ -d "$u/libc6/lib64" ]; then cp -a "$u/libc6/lib64/." "$root/lib64/"; else rmdir "$root/lib64"; fi
cp -a "$u/libc6/etc/ld.so.conf.d/." "$root/etc/ld.so.conf.d/"
rm -f "$root/lib/$multiarch"/{libmemusage.so,libpcprofile.so,libc_malloc_debug.so.0,libthread_db.so.1,libBrokenLocale.so.1}
# The C++ runtime.
cp -a "$u/libgcc-s1/lib/$multiarch/." "$root/lib/$multiarch/"
install -d "$root/usr/lib/$multiarch"
cp -a "$u/libstdc++6/usr/lib/$multiarch/." "$root/usr/lib/$multiarch/"
cp -a "$u/libatomic1/usr/lib/$multiarch/." "$root/usr/lib/$multiarch/"
# tini, the dynamic one (the root has a C library anyway).
install -m 0755 "$u/tini/usr/bin/tini" "$root/usr/bin/tini"
# ca-certificates: its maintainer script would run update-ca-certificates; the bundle is all it makes
# that programs read (OpenSSL, Go and Node's --use-system-ca read this file).
find "$u/ca-certificates/usr/share/ca-certificates" -name '*.crt' | LC_ALL=C sort | xargs cat >"$root/etc/ssl/certs/ca-certificates.crt"
chmod 0644 "$root/etc/ssl/certs/ca-certificates.crt"
# base-files: os-release only.
install -d "$root/usr/lib"
cp "$u/base-files/usr/lib/os-release" "$root/usr/lib/os-release"
ln -s ../usr/lib/os-release "$root/etc/os-release"
# The licences of what is shipped.
# (libgcc-s1, libstdc++6 and libatomic1 point their doc folder at gcc-N-base's: that package is taken for
# its copyright file only.)
for p in "${packages[@]}"; do
  doc="$u/$p/usr/share/doc/$p"
  if [ -L "$doc" ]; then
    owner=$(basename "$(readlink "$doc")")
    if [ ! -d "$u/$owner" ]; then
      (cd "$debs" && apt-get download -q "$owner" >>"$work/apt.log" 2>&1) || { cat "$work/apt.log" >&2; exit 69; }
      dpkg-deb -x "$debs/${owner}_"*.deb "$u/$owner"
    fi
    doc="$u/$owner/usr/share/doc/$owner"
  fi
  install -d "$root/usr/share/doc/$p"
  install -m 0644 "$doc/copyright" "$root/usr/share/doc/$p/copyright"
done
cp "$work/status" "$root/var/lib/dpkg/status"

# 3. What a system image usually has: users, name service order, a loader cache, /tmp.
cat >"$root/etc/passwd" <<EOF
root:x:0:0:root:/root:/usr/sbin/nologin
chainvisor:x:$user_id:$user_id:chainvisor:/home/chainvisor:/usr/sbin/nologin
nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin
EOF
cat >"$root/etc/group" <<EOF
root:x:0:
chainvisor:x:$user_id:
nogroup:x:65534:
EOF
printf 'passwd: files\ngroup: files\nhosts: files dns\n' >"$root/etc/nsswitch.conf"
chmod 0644 "$root/etc/passwd" "$root/etc/group" "$root/etc/nsswitch.conf"
install -d -m 0700 "$root/root"
install -d -m 1777 "$root/tmp"
install -d -m 0750 "$root/home/chainvisor"
ldconfig -r "$root"
rm -rf "$root/var/cache/ldconfig"

# 4. One tar, the same bytes for the same packages: sorted, fixed times, numeric owners.
tarball="$work/root.tar"
tar --sort=name --mtime='@0' --numeric-owner --owner=0 --group=0 \
  --transform='s,^\./,,' -C "$root" -cf "$tarball" --exclude='./home/chainvisor' .
# The home belongs to the user, so that a named volume mounted there starts out owned by it.
tar --sort=name --mtime='@0' --numeric-owner --owner="$user_id" --group="$user_id" \
  -C "$root" -rf "$tarball" ./home/chainvisor
hash=$(sha256sum "$tarball" | cut -c1-12)
image="chainvisor-base:$arch-$hash"

if [ -n "$keep_root" ]; then
  rm -rf "$keep_root" && mkdir -p "$keep_root" && cp -a "$root/." "$keep_root/"
fi
echo "image-base: packages:" >&2
sed 's/^/image-base:   /' "$work/versions" >&2
if docker image inspect "$image" >/dev/null 2>&1; then
  echo "image-base: $image is already there" >&2
else
  docker import --platform "linux/$arch" \
    --message "chainvisor base from Debian packages: $(tr '\n' ' ' <"$work/versions")" \
    "$tarball" "$image" >/dev/null
  echo "image-base: imported $image ($(du -h "$tarball" | cut -f1))" >&2
fi
echo "$image"
