#!/usr/bin/env bash
# Builds hlstui (release) and installs it with its themes, shell completions and man pages: PREFIX/bin/hlstui,
# PREFIX/share/hlstui/themes/*.theme, bash, zsh and fish completions, PREFIX/share/man/man1/hlstui*.1 (both made from the
# command definitions by swift-argument-parser).
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
share="$prefix/share"
install -d "$share/bash-completion/completions" "$share/zsh/site-functions" "$share/fish/vendor_completions.d" "$share/man/man1"
"$bin" --generate-completion-script bash > "$share/bash-completion/completions/hlstui"
"$bin" --generate-completion-script zsh > "$share/zsh/site-functions/_hlstui"
"$bin" --generate-completion-script fish > "$share/fish/vendor_completions.d/hlstui.fish"
man=$(mktemp -d)
swift package --allow-writing-to-directory "$man" generate-manual --multi-page --output-directory "$man" >/dev/null
install -m 644 "$man"/hlstui/*.1 "$share/man/man1/" 2>/dev/null || install -m 644 "$man"/*.1 "$share/man/man1/"
rm -rf "$man"
echo "installed $prefix/bin/hlstui, $(ls themes/*.theme | wc -l) themes in $share/hlstui/themes, completions (bash, zsh, fish) and $(ls "$share"/man/man1/hlstui*.1 | wc -l) man pages in $share/man/man1"
