#!/usr/bin/env bash
# Installs the Debian packages hlstui needs when they are missing (run as root or with sudo available).
set -euo pipefail
packages=(libmpv-dev libncursesw5-dev libsqlite3-dev sqlite3 pkg-config ffmpeg mpv tmux ncurses-term python3 python3-venv ca-certificates curl)
# `setup.sh test`: also what only the test suite uses (a real Prometheus and promtool for the fleet metrics tests).
if [ "${1:-}" = "test" ]; then packages+=(prometheus); fi
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "hlstui setup: installing ${missing[*]}" >&2
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
command -v swift >/dev/null || { echo "hlstui setup: Swift is not on PATH; install Swift 6 first" >&2; exit 1; }
# `setup.sh test`: the Kubernetes manifests' validator (Kubernetes' own schemas, offline), from PyPI, in .build/tools.
tools="$(dirname "$0")/../.build/tools"
if [ "${1:-}" = "test" ] && [ ! -x "$tools/bin/kubernetes-validate" ]; then
  python3 -m venv "$tools"
  "$tools/bin/pip" install -q --disable-pip-version-check kubernetes-validate==1.37.0
fi
