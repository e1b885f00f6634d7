#!/usr/bin/env bash
# Adds Pairbench to your desktop's application menu (for you only; no root needed):
# the icon in ~/.local/share/icons/hicolor and pairbench.desktop in ~/.local/share/applications,
# starting this bundle's `pairbench`. Run it again after moving the bundle; `--remove` undoes it.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
RES="$HERE/_internal/pairbench/resources"
DATA="${XDG_DATA_HOME:-$HOME/.local/share}"
APPS="$DATA/applications"
ICONS="$DATA/icons/hicolor"

if [ "${1:-}" = "--remove" ]; then
  rm -f "$APPS/pairbench.desktop"
  find "$ICONS" -path '*/apps/pairbench.*' -delete 2>/dev/null || true
  echo "Removed the Pairbench menu entry."
  exit 0
fi

[ -x "$HERE/pairbench" ] && [ -d "$RES/icons/hicolor" ] || {
  echo "install-desktop-entry: run me from an unpacked Pairbench bundle" >&2
  exit 1
}
mkdir -p "$APPS" "$ICONS"
cp -r "$RES/icons/hicolor/." "$ICONS/"
# Exec: this bundle's program, quoted for the desktop-entry spec.
exec_path=${HERE//\\/\\\\\\\\}
exec_path=${exec_path//\"/\\\\\"}
sed "s|^Exec=.*|Exec=\"$exec_path/pairbench\"|" "$RES/pairbench.desktop" >"$APPS/pairbench.desktop"
command -v update-desktop-database >/dev/null && update-desktop-database -q "$APPS" || true
command -v gtk-update-icon-cache >/dev/null && gtk-update-icon-cache -q -t "$ICONS" || true
echo "Pairbench is in your application menu ($APPS/pairbench.desktop)."
