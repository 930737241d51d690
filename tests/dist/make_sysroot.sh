#!/usr/bin/env bash
# Makes the sysroot of the portable build (src/dist/bullseye.cmake) in DIR: Debian 11
# "bullseye" (glibc 2.31) from debootstrap, with its libc6-dev and gcc 10's libgcc_eh, plus the
# development files of this Debian 12 machine's yaml-cpp and libyaml (static libraries), nlohmann-json,
# CLI11, toml++ and libcurl (headers; libcurl is loaded at run time). The same DIR is a chroot in which
# tests/dist runs the binary and installs the wheel. Run as root; about 3 minutes and 400 MB.
#   tests/dist/make_sysroot.sh DIR [MIRROR]
set -euo pipefail
dir=${1:?usage: make_sysroot.sh DIR [MIRROR]}
mirror=${2:-http://deb.debian.org/debian}
if [[ -e "$dir/envcheck-sysroot-v3.stamp" ]]; then
    # A sysroot made before envcheck read TOML: add toml++'s headers to it in place.
    if [[ ! -e "$dir/usr/include/toml++/toml.h" ]]; then
        debs=$(mktemp -d)
        chmod 755 "$debs"
        (cd "$debs" && apt-get download -qq libtomlplusplus-dev)
        dpkg-deb -x "$debs"/libtomlplusplus-dev_*.deb "$dir"
        rm -rf "$debs"
    fi
    exit 0
fi
command -v debootstrap >/dev/null || { echo "make_sysroot.sh: needs debootstrap (apt-get install debootstrap)" >&2; exit 2; }
mkdir -p "$dir"
debootstrap --variant=minbase \
    --include=libc6-dev,linux-libc-dev,libgcc-10-dev,python3,python3-venv,python3-pip,ca-certificates \
    bullseye "$dir" "$mirror" >"$dir.debootstrap.log" 2>&1 \
    || { tail -20 "$dir.debootstrap.log" >&2; exit 1; }

# This machine's (Debian 12) header-only libraries, yaml-cpp's static archive and libcurl's
# headers, unpacked into the sysroot: the same versions as the normal build.
debs=$(mktemp -d)
chmod 755 "$debs"  # apt-get download runs as _apt
(cd "$debs" && apt-get download -qq libyaml-cpp-dev libyaml-cpp0.7 libyaml-dev libyaml-0-2 nlohmann-json3-dev libcli11-dev libcurl4-openssl-dev libtomlplusplus-dev)
for deb in "$debs"/*.deb; do
    dpkg-deb -x "$deb" "$dir"
done
rm -rf "$debs"

# Absolute symbolic links (libpthread.so -> /lib/...) would lead the linker out of the
# sysroot into this machine's newer glibc: make them relative.
# bullseye merges /usr: lib and lib64 are themselves links, so walk the real directories.
for tree in "$dir/usr/lib" "$dir/usr/lib64"; do
    [[ -d "$tree" ]] || continue
    find "$tree" -type l -lname '/*' -print0 |
        while IFS= read -r -d '' link; do
            ln -sfnr "$dir$(readlink "$link")" "$link"
        done
done
mkdir -p "$dir/libgcc-envcheck"
ln -sfnr "$dir/usr/lib/gcc/x86_64-linux-gnu/10/libgcc_eh.a" "$dir/libgcc-envcheck/libgcc_eh.a"
echo "bullseye $(date -u +%Y-%m-%dT%H:%M:%SZ)" >"$dir/envcheck-sysroot-v3.stamp"
