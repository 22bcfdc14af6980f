#!/usr/bin/env bash
# Builds hlstui (release) and installs it with its themes: PREFIX/bin/hlstui, PREFIX/share/hlstui/themes/*.theme.
# Usage: bash scripts/install.sh [PREFIX]   (default: ~/.local)
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
prefix="${1:-$HOME/.local}"
swift build -c release --product hlstui
bin="$(swift build -c release --show-bin-path)/hlstui"
install -d "$prefix/bin" "$prefix/share/hlstui/themes"
install -m 755 "$bin" "$prefix/bin/hlstui"
install -m 644 themes/*.theme "$prefix/share/hlstui/themes/"
echo "installed $prefix/bin/hlstui and $(ls themes/*.theme | wc -l) themes in $prefix/share/hlstui/themes"
