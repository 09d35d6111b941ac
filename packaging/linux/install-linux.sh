#!/bin/sh
# Install the built Errands bundle for the current user, or remove it again.
#
#   python3 dev.py bundle                      # build build/bundle/errands first
#   packaging/linux/install-linux.sh           # install it
#   packaging/linux/install-linux.sh --uninstall
#
# Installs, with no root rights:
#   ~/.local/opt/errands/                   the bundle (the program and its _internal folder)
#   ~/.local/bin/errands                    a link to the program, for the terminal
#   ~/.local/share/applications/errands.desktop            the menu entry (Exec: full path)
#   ~/.local/share/icons/hicolor/*/apps/errands.{png,svg}  the icon at every size
#   ~/.local/share/metainfo/io.github.errands.Errands.metainfo.xml   for software centres
# (~/.local/share is $XDG_DATA_HOME when that is set.) Uninstalling removes exactly these
# and leaves your data (~/.local/share/errands) alone.
#
# Options: --bundle DIR installs another build (default: build/bundle/errands of this
# checkout); --uninstall removes the installation.
set -eu

HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
BUNDLE="$ROOT/build/bundle/errands"
DATA="${XDG_DATA_HOME:-$HOME/.local/share}"
OPT="$HOME/.local/opt/errands"
BIN="$HOME/.local/bin"
METAINFO=io.github.errands.Errands.metainfo.xml
SIZES="16 22 24 32 48 64 128 256 512"
ACTION=install

while [ $# -gt 0 ]; do
    case "$1" in
        --uninstall) ACTION=uninstall ;;
        --bundle) shift; BUNDLE=$(cd "${1:?--bundle needs a folder}" && pwd) ;;
        -h|--help) sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "error: unknown option $1 (try --help)" >&2; exit 2 ;;
    esac
    shift
done

refresh() {
    if command -v update-desktop-database >/dev/null 2>&1; then
        update-desktop-database -q "$DATA/applications" 2>/dev/null || true
    fi
    if command -v gtk-update-icon-cache >/dev/null 2>&1; then
        gtk-update-icon-cache -q -f -t "$DATA/icons/hicolor" 2>/dev/null || true
    fi
}

uninstall() {
    if [ -L "$BIN/errands" ] && [ "$(readlink "$BIN/errands")" = "$OPT/errands" ]; then
        rm -f "$BIN/errands"
    fi
    if [ -d "$OPT" ]; then
        # Only a folder that looks like a bundle: never an unrelated one of the same name.
        if [ -d "$OPT/_internal" ]; then rm -rf "$OPT"
        else echo "warning: $OPT does not look like an Errands bundle; left alone" >&2; fi
    fi
    rm -f "$DATA/applications/errands.desktop" "$DATA/metainfo/$METAINFO" \
          "$DATA/icons/hicolor/scalable/apps/errands.svg"
    for size in $SIZES; do
        rm -f "$DATA/icons/hicolor/${size}x${size}/apps/errands.png"
    done
    refresh
}

if [ "$ACTION" = uninstall ]; then
    uninstall
    echo "Errands is uninstalled. Your automations and runs stay in $DATA/errands."
    exit 0
fi

if [ ! -x "$BUNDLE/errands" ] || [ ! -d "$BUNDLE/_internal" ]; then
    echo "error: no bundle at $BUNDLE; build it first: python3 dev.py bundle" >&2
    exit 1
fi

# The bundle: copied beside the old one, then swapped in, so a failed copy breaks nothing.
mkdir -p "$(dirname "$OPT")" "$BIN" "$DATA/applications" "$DATA/metainfo"
rm -rf "$OPT.new"
cp -R "$BUNDLE" "$OPT.new"
if [ -d "$OPT" ]; then
    if [ ! -d "$OPT/_internal" ]; then
        rm -rf "$OPT.new"
        echo "error: $OPT exists and is not an Errands bundle; move it away first" >&2
        exit 1
    fi
    rm -rf "$OPT"
fi
mv "$OPT.new" "$OPT"
ln -sfn "$OPT/errands" "$BIN/errands"

# The menu entry runs the program by its full path: ~/.local/bin is not on every
# desktop session's PATH.
sed -e "s|^Exec=errands\$|Exec=$OPT/errands|" -e "s|^TryExec=errands\$|TryExec=$OPT/errands|" \
    "$HERE/errands.desktop" > "$DATA/applications/errands.desktop"
cp "$HERE/$METAINFO" "$DATA/metainfo/$METAINFO"
for size in $SIZES; do
    mkdir -p "$DATA/icons/hicolor/${size}x${size}/apps"
    cp "$HERE/icons/hicolor/${size}x${size}/apps/errands.png" \
       "$DATA/icons/hicolor/${size}x${size}/apps/errands.png"
done
mkdir -p "$DATA/icons/hicolor/scalable/apps"
cp "$HERE/icons/hicolor/scalable/apps/errands.svg" "$DATA/icons/hicolor/scalable/apps/errands.svg"
refresh

echo "Errands is installed in $OPT; find it in your applications menu, or run: errands"
case ":$PATH:" in
    *":$BIN:"*) ;;
    *) echo "note: $BIN is not on your PATH; add it to run 'errands' from a terminal" ;;
esac
