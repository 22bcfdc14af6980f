#!/usr/bin/env bash
# Checks the Containerfile's runtime stage without a container engine (docs/FLEET.md, "The container image"): a fresh
# Debian bookworm root file system (debootstrap), the runtime stage's own RUN line run in it (its packages, its user),
# the release binary built as the build stage builds it (--static-swift-stdlib), then `hlstui fleet` run there as that
# user — / not writable to it, a writable /tmp as the pod's — on a stream of the embedded origin: every library found,
# /metrics answering on 0.0.0.0, the stream playing, SIGTERM ending it with exit status 0 within the pod's grace period.
# Usage: bash scripts/check-container.sh   (as root: debootstrap and chroot; the root file system is kept in
# $HLSTUI_CACHE/container-root, made again when the Containerfile's runtime stage changes)
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
[ "$(id -u)" -eq 0 ] || { echo "check-container: run as root (debootstrap, chroot)" >&2; exit 1; }
command -v debootstrap >/dev/null || DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends debootstrap >/dev/null

# The runtime stage as the Containerfile writes it: its RUNTIME_PACKAGES and its first RUN (continuation lines joined).
stage=$(sed -n '/^FROM debian:bookworm-slim/,$p' Containerfile)
packages=$(sed -n 's/^ARG RUNTIME_PACKAGES="\(.*\)"$/\1/p' <<<"$stage")
run=$(awk '/^RUN /{on=1} on{line=$0; more=sub(/[[:space:]]*\\[[:space:]]*$/, "", line); printf "%s ", line; if (!more) exit}' <<<"$stage")
run=${run#RUN }
[ -n "$packages" ] && [ -n "$run" ] || { echo "check-container: cannot read the runtime stage of Containerfile" >&2; exit 1; }
uid=$(sed -n 's/^USER \([0-9]*\):.*/\1/p' <<<"$stage")

cache="${HLSTUI_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/hlstui}"
root="$cache/container-root"
stamp=$(printf '%s\n%s\n' "$packages" "$run" | sha256sum | cut -c1-16)
mounted=()
cleanup() {
  [ -n "${fleet:-}" ] && kill "$fleet" 2>/dev/null || true
  [ -n "${origin:-}" ] && kill "$origin" 2>/dev/null || true
  for m in "${mounted[@]}"; do umount -l "$m" 2>/dev/null || true; done
}
trap cleanup EXIT
if [ "$(cat "$root/.hlstui-stage" 2>/dev/null)" != "$stamp" ]; then
  echo "check-container: a fresh bookworm root file system in $root (debootstrap; a few minutes)" >&2
  rm -rf "$root"
  mkdir -p "$cache"
  debootstrap --variant=minbase bookworm "$root" http://deb.debian.org/debian >"$cache/debootstrap.log" 2>&1 ||
    { tail -20 "$cache/debootstrap.log" >&2; exit 1; }
  cp /etc/resolv.conf "$root/etc/resolv.conf"
  mount -t proc proc "$root/proc" && mounted+=("$root/proc")
  echo "check-container: the runtime stage's RUN: $run" >&2
  chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin RUNTIME_PACKAGES="$packages" /bin/sh -c "$run"
  umount -l "$root/proc"; mounted=()
  echo "$stamp" >"$root/.hlstui-stage"
fi

# The build stage's binary, and the stage's COPY lines.
swift build -c release --product hlstui --static-swift-stdlib >/dev/null
bin="$(swift build -c release --show-bin-path)/hlstui"
install -D -m 755 "$bin" "$root/usr/local/bin/hlstui"
rm -rf "$root/usr/local/share/hlstui/themes" && mkdir -p "$root/usr/local/share/hlstui" && cp -r themes "$root/usr/local/share/hlstui/themes"
missing=$(chroot "$root" ldd /usr/local/bin/hlstui | grep "not found" || true)
[ -z "$missing" ] || { echo "check-container: libraries missing in the image: $missing" >&2; exit 1; }
libs=$(chroot "$root" ldd /usr/local/bin/hlstui | wc -l)
swiftlibs=$(chroot "$root" ldd /usr/local/bin/hlstui | grep -c -E 'libswift|libFoundation' || true)

# The origin on the host's loopback (the chroot shares the network), a fleet file where the ConfigMap puts it.
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
oport=$(free_port)
mport=$(free_port)
"$bin" origin --port "$oport" --quiet >/dev/null 2>&1 &
origin=$!
mkdir -p "$root/etc/hlstui"
printf 'streams:\n  - name: demo\n    url: http://127.0.0.1:%s/live-ts/master.m3u8\n' "$oport" >"$root/etc/hlstui/fleet.yaml"
chmod 1777 "$root/tmp"
mount -t proc proc "$root/proc" && mounted+=("$root/proc")
start=$(date +%s.%N)
chroot --userspec="$uid:$uid" "$root" /usr/bin/env -i HOME=/tmp PATH=/usr/local/bin:/usr/bin:/bin \
  hlstui fleet /etc/hlstui/fleet.yaml --metrics "0.0.0.0:$mport" 2>"$cache/container-fleet.err" &
fleet=$!
playing=""
for _ in $(seq 1 120); do
  if curl -fsS "http://127.0.0.1:$mport/metrics" 2>/dev/null | grep -q 'hlstui_playing{stream="demo",pane="1"} 1.0'; then
    playing=$(python3 -c "import time; print(f'{time.time() - $start:.1f}')"); break
  fi
  sleep 0.5
done
[ -n "$playing" ] || { echo "check-container: the stream did not play in the image; its stderr:" >&2; cat "$cache/container-fleet.err" >&2; exit 1; }
owner=$(ps -o uid= -p "$(pgrep -P "$fleet" -x hlstui || echo "$fleet")" | tr -d ' ')
wrote=$(find "$root" -xdev -newer "$root/etc/hlstui/fleet.yaml" -not -path "$root/tmp/*" -not -path "$root/proc/*" -not -path "$root/tmp" -type f | head -5)
term=$(date +%s.%N)
kill -TERM "$(pgrep -P "$fleet" -x hlstui || echo "$fleet")"
status=0
wait "$fleet" || status=$?
fleet=""
took=$(python3 -c "print(f'{$(date +%s.%N) - $term:.2f}')")
[ "$status" -eq 0 ] || { echo "check-container: exit status $status after SIGTERM; stderr:" >&2; cat "$cache/container-fleet.err" >&2; exit 1; }
[ -z "$wrote" ] || { echo "check-container: the fleet wrote outside /tmp: $wrote" >&2; exit 1; }
echo "check-container: passed — bookworm with ${packages}: ${libs} libraries found (${swiftlibs} of Swift's: the runtime is in the binary);" \
  "hlstui fleet as uid ${owner} (the image's USER ${uid}), nothing written outside /tmp; /metrics on 0.0.0.0:${mport};" \
  "the stream playing ${playing} s after the start; SIGTERM → exit 0 in ${took} s (the pod's grace: 30 s)"
