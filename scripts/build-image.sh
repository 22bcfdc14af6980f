#!/usr/bin/env bash
# Builds the container image from the Containerfile with buildah — every step of it, no Docker engine — and runs it as
# Kubernetes runs it (docs/FLEET.md, "The container image"): the image's own entry point and command, the fleet file
# mounted at /etc/hlstui, a read-only root with /tmp a tmpfs, no capabilities; then checks that hlstui runs as uid 10001
# and PID 1, serves /metrics on 0.0.0.0:9464 with every stream's `hlstui_session_up` 1, and exits 0 on SIGTERM well
# within the pod's 30 s of grace.
#
# The FROM images: pulled from their registry when it answers. Where it does not (a machine whose only network is
# Debian's mirror), the script makes STAND-INS under exactly the names the FROM lines use, and says so — they exist only
# because the registry is unreachable, and a pull that succeeds on a later run replaces them:
#   debian:bookworm-slim   debootstrap --variant=minbase bookworm, trimmed and set up as the Docker Official Image is
#                          (no documentation, man pages or locales; apt's docker-clean), Debian's security updates applied;
#   swift:X.Y-bookworm     the same bookworm root, not trimmed, with the packages the official Swift image installs and
#                          this machine's Swift toolchain (found with `swiftc -print-target-info`, or SWIFT_TOOLCHAIN=DIR
#                          naming its usr directory) copied into /usr as that image has it; refused unless its version is
#                          the tag's.
# Each stand-in carries the label org.hlstui.stand-in, and so does the image built on it.
#
# The Swift packages: where git reads them from a local mirror (`url.DIR.insteadOf` in git's configuration), the build's
# RUN steps get the same rules and the mirror, read-only, at the same path (buildah's --volume, for RUN steps only), so
# `swift package resolve` in the build stage resolves Package.resolved's pins offline. Elsewhere it fetches as usual.
#
# Usage: bash scripts/build-image.sh [TAG]   (as root; TAG defaults to hlstui:local)
# Environment: HLSTUI_IMAGE_WORK (default .build/image: the debootstrap tarball, the check's files);
#   HLSTUI_STAND_INS=auto|always|never (default auto: only when a pull fails); HLSTUI_IMAGE_CHECK=0 to build only;
#   DEBIAN_MIRROR (default http://deb.debian.org/debian); CONTAINERS_STORAGE_CONF (buildah's and podman's own: another
#   storage, e.g. the vfs driver where overlay cannot mount).
# Not part of the test suite: it takes a root machine, some 15 GB of disk and, on 2 cores, most of an hour the first time.
set -euo pipefail
shopt -s inherit_errexit
cd "$(dirname "$0")/.."
[ "$(id -u)" -eq 0 ] || { echo "build-image: run as root (buildah, debootstrap, podman, network namespaces)" >&2; exit 1; }
tag="${1:-hlstui:local}"
work="${HLSTUI_IMAGE_WORK:-.build/image}"
mkdir -p "$work"
work=$(cd "$work" && pwd)
mirror="${DEBIAN_MIRROR:-http://deb.debian.org/debian}"
stand_ins="${HLSTUI_STAND_INS:-auto}"
say() { echo "build-image: $*" >&2; }
now() { date +%s.%N; }
since() { python3 -c "print(f'{$(now) - $1:.1f}')"; }
begin=$(now)

need=()
for tool in buildah:buildah podman:podman debootstrap:debootstrap crun:crun conmon:conmon ip:iproute2 curl:curl; do
  command -v "${tool%%:*}" >/dev/null || need+=("${tool#*:}")
done
if [ ${#need[@]} -gt 0 ]; then
  say "installing ${need[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}" containernetworking-plugins >/dev/null
fi
run=(buildah run --isolation chroot)

# The FROM images, as the Containerfile names them: the build stage's by its ARG's default, the runtime stage's as written.
build_from=$(sed -n 's/^ARG SWIFT_IMAGE=\(.*\)$/\1/p' Containerfile)
runtime_from=$(sed -n 's/^FROM \(debian:[^ ]*\)$/\1/p' Containerfile)
[ -n "$build_from" ] && [ -n "$runtime_from" ] || { say "cannot read the FROM images of Containerfile"; exit 1; }
# A short name as Docker reads it: debian:bookworm-slim is docker.io/library/debian:bookworm-slim.
qualify() {
  local first=${1%%/*}
  if [[ $1 == */* ]] && { [[ $first == *.* ]] || [[ $first == *:* ]] || [ "$first" = localhost ]; }; then echo "$1"
  elif [[ $1 == */* ]]; then echo "docker.io/$1"
  else echo "docker.io/library/$1"; fi
}
label() { buildah inspect --type image --format "{{index .OCIv1.Config.Labels \"$2\"}}" "$1" 2>/dev/null || true; }

# --- The stand-ins -------------------------------------------------------------------------------------------------------

# The official Swift image's packages (its Dockerfile for Debian 12), with the C++ library's headers and zlib's.
swift_image_packages="binutils-gold libicu-dev libcurl4-openssl-dev libedit-dev libsqlite3-dev libncurses-dev libpython3-dev
  libxml2-dev pkg-config uuid-dev tzdata git gcc libc6-dev libstdc++-12-dev zlib1g-dev ca-certificates curl gpg"

minbase_tarball() {
  local tarball="$work/bookworm-minbase.tar"
  if [ ! -s "$tarball" ]; then
    say "debootstrap --variant=minbase bookworm from $mirror (a few minutes)"
    rm -rf "$work/rootfs"
    nice -n 10 debootstrap --variant=minbase bookworm "$work/rootfs" "$mirror" >"$work/debootstrap.log" 2>&1 ||
      { tail -20 "$work/debootstrap.log" >&2; exit 1; }
    tar --numeric-owner -C "$work/rootfs" -cf "$tarball.tmp" . && mv "$tarball.tmp" "$tarball"
    rm -rf "$work/rootfs"
  fi
  echo "$tarball"
}

# A working container holding bookworm as the Docker Official Image sets it up (debuerreotype): apt's sources for bookworm,
# its updates and security, apt's caches cleaned after each install, no translations; `slim` also leaves out
# documentation, man pages and locales, for what is installed later too. Prints the container's name.
debian_base() {
  local flavour=$1 ctr mnt tarball
  tarball=$(minbase_tarball)
  ctr=$(buildah from scratch)
  mnt=$(buildah mount "$ctr")
  tar --numeric-owner -xpf "$tarball" -C "$mnt"
  rm -f "$mnt/etc/apt/sources.list"
  cat >"$mnt/etc/apt/sources.list.d/debian.sources" <<EOF
Types: deb
URIs: $mirror
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
URIs: ${mirror%/debian}/debian-security
Suites: bookworm-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
  cat >"$mnt/etc/apt/apt.conf.d/docker-clean" <<'EOF'
DPkg::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true"; };
APT::Update::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true"; };
Dir::Cache::pkgcache "";
Dir::Cache::srcpkgcache "";
EOF
  echo 'Acquire::Languages "none";' >"$mnt/etc/apt/apt.conf.d/docker-no-languages"
  echo 'Acquire::GzipIndexes "true";' >"$mnt/etc/apt/apt.conf.d/docker-gzip-indexes"
  echo 'force-unsafe-io' >"$mnt/etc/dpkg/dpkg.cfg.d/docker-apt-speedup"
  if [ "$flavour" = slim ]; then
    cat >"$mnt/etc/dpkg/dpkg.cfg.d/docker" <<'EOF'
path-exclude /usr/share/doc/*
path-include /usr/share/doc/*/copyright
path-exclude /usr/share/groff/*
path-exclude /usr/share/info/*
path-exclude /usr/share/linda/*
path-exclude /usr/share/lintian/overrides/*
path-exclude /usr/share/locale/*
path-exclude /usr/share/man/*
EOF
    find "$mnt/usr/share/doc" -mindepth 1 -not -name copyright -not -type d -delete
    find "$mnt/usr/share/doc" -mindepth 1 -type d -empty -delete
    rm -rf "$mnt"/usr/share/{groff,info,linda,lintian/overrides,locale,man}/*
  fi
  : >"$mnt/etc/hostname"
  : >"$mnt/etc/resolv.conf"
  rm -rf "$mnt"/var/lib/apt/lists/* "$mnt"/var/cache/apt/*.bin "$mnt"/var/log/{bootstrap,dpkg,alternatives}.log "$mnt"/var/log/apt/*
  buildah umount "$ctr" >/dev/null
  nice -n 10 "${run[@]}" "$ctr" -- /bin/sh -c 'apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get upgrade -y -qq >/dev/null
    rm -rf /var/lib/apt/lists/*' >&2
  buildah config --env PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin --cmd /bin/bash "$ctr"
  echo "$ctr"
}

stand_in_note() { echo "a stand-in for $1, made by scripts/build-image.sh from $2 because the registry was unreachable"; }

make_runtime_base() {
  local ref=$1 ctr
  say "making a stand-in for $runtime_from: bookworm minbase, slim"
  ctr=$(debian_base slim)
  buildah config --label "org.hlstui.stand-in=$(stand_in_note "$runtime_from" "Debian bookworm (debootstrap minbase)")" \
    --label "org.hlstui.stand-in.recipe=$2" "$ctr"
  buildah commit -q --rm "$ctr" "$ref" >/dev/null
}

swift_toolchain() {
  if [ -n "${SWIFT_TOOLCHAIN:-}" ]; then echo "$SWIFT_TOOLCHAIN"; return; fi
  local resources
  resources=$(swiftc -print-target-info | python3 -c 'import json,sys; print(json.load(sys.stdin)["paths"]["runtimeResourcePath"])')
  dirname "$(dirname "$resources")"
}

make_build_base() {
  local ref=$1 ctr mnt toolchain version want missing
  toolchain=$(swift_toolchain)
  [ -x "$toolchain/bin/swift" ] && [ "$(cd "$toolchain" && pwd)" != /usr ] ||
    { say "the Swift toolchain must be a directory of its own (found $toolchain); set SWIFT_TOOLCHAIN=DIR/usr"; exit 1; }
  version=$("$toolchain/bin/swift" --version 2>/dev/null | sed -n 's/.*Swift version \([0-9.]*\).*/\1/p' | head -1)
  want=$(sed -n 's/^[^:]*:\([0-9][0-9.]*\).*/\1/p' <<<"$build_from")
  if [ -n "$want" ] && [[ "$version." != "$want."* ]]; then
    say "$build_from wants Swift $want; this machine's toolchain is $version: not standing it in"; exit 1
  fi
  say "making a stand-in for $build_from: bookworm minbase, the Swift image's packages, Swift $version from this machine"
  ctr=$(debian_base full)
  nice -n 10 "${run[@]}" "$ctr" -- /bin/sh -c "apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
    ${swift_image_packages//$'\n'/ } >/dev/null && rm -rf /var/lib/apt/lists/*" >&2
  mnt=$(buildah mount "$ctr")
  nice -n 10 cp -a "$toolchain/." "$mnt/usr/"
  buildah umount "$ctr" >/dev/null
  "${run[@]}" "$ctr" -- swift --version >&2
  missing=$("${run[@]}" "$ctr" -- /bin/sh -c 'for f in /usr/bin/swift-frontend /usr/bin/swift-build /usr/bin/swift-package \
    /usr/bin/clang /usr/bin/ld.lld /usr/lib/swift/linux/libFoundationEssentials.so; do ldd "$f"; done | grep "not found" | sort -u' || true)
  [ -z "$missing" ] || { say "the toolchain misses libraries in the stand-in: $missing"; exit 1; }
  buildah config --label "org.hlstui.stand-in=$(stand_in_note "$build_from" "Debian bookworm and this machine's Swift $version")" \
    --label "org.hlstui.stand-in.recipe=$2" "$ctr"
  buildah commit -q --rm "$ctr" "$ref" >/dev/null
}

# A stand-in is made again when its recipe changes.
recipe=$( (declare -f debian_base make_runtime_base make_build_base; echo "$swift_image_packages $mirror") | sha256sum | cut -c1-16)

# The FROM image: pulled; else one pulled before; else the stand-in made before with this recipe; else a new stand-in.
base() {
  local from=$1 make=$2 ref
  ref=$(qualify "$from")
  if [ "$stand_ins" != always ] && timeout 600 buildah pull --policy always -q "$ref" >/dev/null 2>"$work/pull.err"; then
    say "$from: pulled ($ref)"; return
  fi
  [ "$stand_ins" = always ] || say "$from: cannot pull ($(tail -1 "$work/pull.err"))"
  [ "$stand_ins" != never ] || { say "HLSTUI_STAND_INS=never: no stand-in for $from"; exit 1; }
  if buildah inspect --type image "$ref" >/dev/null 2>&1; then
    local had
    had=$(label "$ref" org.hlstui.stand-in.recipe)
    if [ -z "$had" ] && [ "$stand_ins" != always ]; then say "$from: the registry's image pulled before"; return; fi
    if [ "$had" = "$recipe" ]; then say "$from: the stand-in made before (STAND-IN: the registry is unreachable)"; return; fi
  fi
  local start
  start=$(now)
  "$make" "$ref" "$recipe"
  say "$from: STAND-IN made in $(since "$start") s — only because the registry is unreachable; $(label "$ref" org.hlstui.stand-in)"
}

base "$runtime_from" make_runtime_base
base "$build_from" make_build_base

# --- The build -----------------------------------------------------------------------------------------------------------

bases=$(since "$begin")

# git's url.DIR.insteadOf rules whose DIR is on this machine: the same rules for the RUN steps, the mirror at its own path.
volumes=()
gitconfig="$work/gitconfig"
: >"$gitconfig"
while read -r key value; do
  dir=${key#url.}
  dir=${dir%.insteadof}
  [ -d "$dir" ] || continue
  git config -f "$gitconfig" --add "url.$dir.insteadOf" "$value"
  [[ " ${volumes[*]} " == *" $dir:$dir:ro "* ]] || volumes+=(--volume "$dir:$dir:ro")
done < <(git config --get-regexp '^url\..*\.insteadof$' || true)
if [ ${#volumes[@]} -gt 0 ]; then
  volumes+=(--volume "$gitconfig:/etc/gitconfig:ro")
  say "the Swift packages from this machine's mirror: $(grep -c insteadOf "$gitconfig") git url rewrites, ${volumes[*]}"
fi

say "buildah bud -t $tag -f Containerfile . (the build stage's release build takes a while)"
start=$(now)
nice -n 10 buildah bud --pull-never --isolation chroot --layers "${volumes[@]}" -t "$tag" -f Containerfile . >"$work/build.log" 2>&1 ||
  { tail -40 "$work/build.log" >&2; say "the build failed; its log: $work/build.log"; exit 1; }
built=$(since "$start")
size=$(podman image inspect --format '{{.Size}}' "$tag")
say "built $tag in $built s: $(((size + 500000) / 1000000)) MB$( [ -n "$(label "$tag" org.hlstui.stand-in)" ] && echo " (on a STAND-IN base: $(label "$tag" org.hlstui.stand-in))")"
[ "${HLSTUI_IMAGE_CHECK:-1}" != 0 ] || exit 0

# --- The check -----------------------------------------------------------------------------------------------------------

# The origin in a network namespace of its own, and the container in the same one: its command as the image gives it,
# with port 9464 not shared with the host; the origin is the image's own binary run on the host (it encodes its media
# with the host's FFmpeg).
bash scripts/setup.sh
ns="hlstui-image-$$"
name="hlstui-image-check-$$"
origin=""
cleanup() {
  podman rm -f -t 0 "$name" >/dev/null 2>&1 || true
  [ -n "$origin" ] && kill "$origin" 2>/dev/null || true
  ip netns del "$ns" 2>/dev/null || true
}
trap cleanup EXIT
ctr=$(buildah from "$tag")
install -m 755 "$(buildah mount "$ctr")/usr/local/bin/hlstui" "$work/hlstui"
buildah rm "$ctr" >/dev/null
ip netns add "$ns"
ip -n "$ns" link set lo up
oport=8080
ip netns exec "$ns" "$work/hlstui" origin --port "$oport" --quiet >"$work/origin.log" 2>&1 &
origin=$!
mkdir -p "$work/etc-hlstui"
chmod 755 "$work/etc-hlstui"
printf 'streams:\n  - name: vod\n    url: http://127.0.0.1:%s/vod-ts/master.m3u8\n  - name: live\n    url: http://127.0.0.1:%s/live-ts/master.m3u8\n' \
  "$oport" "$oport" >"$work/etc-hlstui/fleet.yaml"
chmod 644 "$work/etc-hlstui/fleet.yaml"
origin_up=""
for _ in $(seq 1 240); do
  ip netns exec "$ns" curl -fsS -o /dev/null "http://127.0.0.1:$oport/live-ts/master.m3u8" 2>/dev/null && { origin_up=1; break; }
  sleep 0.5
done
[ -n "$origin_up" ] || { say "the origin did not answer; its output:"; cat "$work/origin.log" >&2; exit 1; }
metrics() { ip netns exec "$ns" curl -fsS --max-time 5 http://127.0.0.1:9464/metrics 2>/dev/null || true; }

# podman's defaults where they work; else what this machine allows: crun takes no cgroup v1 or hybrid hierarchy (runc
# does), and a root without CAP_SYS_RESOURCE cannot raise the container's limits to podman's (open files 1048576), so
# the container gets this shell's open files and 8192 processes (lowering is always allowed; a session uses a few dozen).
engine=()
probe() { podman run --rm "${engine[@]}" --network none "$tag" --help >/dev/null 2>"$work/podman.err"; }
for _ in 1 2; do
  probe && break
  if grep -q 'hybrid mode' "$work/podman.err" && [[ " ${engine[*]} " != *" runc "* ]]; then
    command -v runc >/dev/null || DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends runc >/dev/null
    engine+=(--runtime runc)
    say "podman: crun takes no cgroup v1 or hybrid hierarchy; runc runs the container"
  elif grep -qi 'rlimit' "$work/podman.err" && [[ " ${engine[*]} " != *" --ulimit "* ]]; then
    engine+=(--ulimit "nofile=$(ulimit -Hn):$(ulimit -Hn)" --ulimit nproc=8192:8192)
    say "podman: root may not raise limits here; the container gets $(ulimit -Hn) open files and 8192 processes"
  else break; fi
done
probe || { say "podman cannot run $tag here:"; cat "$work/podman.err" >&2; exit 1; }

start=$(now)
podman run -d --name "$name" "${engine[@]}" --network "ns:/run/netns/$ns" --read-only --tmpfs /tmp:rw,mode=1777 --cap-drop ALL \
  --security-opt no-new-privileges -v "$work/etc-hlstui:/etc/hlstui:ro" "$tag" >/dev/null
up=""
for _ in $(seq 1 120); do
  m=$(metrics)
  if grep -qE '^hlstui_session_up\{stream="vod"[^}]*\} 1(\.0)?$' <<<"$m" && grep -qE '^hlstui_session_up\{stream="live"[^}]*\} 1(\.0)?$' <<<"$m" &&
    grep -qE '^hlstui_playing\{stream="live"[^}]*\} 1(\.0)?$' <<<"$m"; then
    up=$(since "$start"); break
  fi
  sleep 0.5
done
[ -n "$up" ] || { say "the streams did not come up in the container; its output:"; podman logs "$name" >&2; exit 1; }
grep -E '^hlstui_(session_up|playing)\{' <<<"$m" >&2
pid=$(podman inspect --format '{{.State.Pid}}' "$name")
uid=$(awk '/^Uid:/{print $2}' "/proc/$pid/status")
nspid=$(awk '/^NSpid:/{print $NF}' "/proc/$pid/status")
cmd=$(podman inspect --format '{{.Config.Entrypoint}} {{.Config.Cmd}}' "$name")
[ "$uid" = 10001 ] || { say "hlstui runs as uid $uid, not 10001"; exit 1; }
[ "$nspid" = 1 ] || { say "hlstui is PID $nspid in the container, not 1"; exit 1; }

checked=$(since "$start")
# Stopped as the kubelet stops a pod: the image's STOPSIGNAL, then SIGKILL after the 30 s of grace (exit status 137).
signal=$(podman inspect --format '{{.Config.StopSignal}}' "$name")
[[ $signal != [0-9]* ]] || signal="SIG$(kill -l "$signal")"
term=$(now)
podman stop --time 30 "$name" >/dev/null
took=$(since "$term")
status=$(podman inspect --format '{{.State.ExitCode}}' "$name")
[ "$status" = 0 ] || { say "exit status $status after $signal; its output:"; podman logs "$name" >&2; exit 1; }
say "passed — $tag ($(((size + 500000) / 1000000)) MB, built in $built s): \`$cmd\` as uid $uid, PID $nspid in its namespace," \
  "read-only root, /etc/hlstui mounted; /metrics on 0.0.0.0:9464 with both streams' hlstui_session_up 1 and live playing" \
  "$up s after the start; stopped ($signal) → exit 0 in $took s (the pod's grace: 30 s). Times: the FROM images $bases s," \
  "the build $built s, the container's start to its end $(python3 -c "print(f'{$checked + $took:.1f}')") s"
