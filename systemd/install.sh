#!/bin/sh
# Installs smartgoban on a Raspberry Pi (or removes it), from a checkout with the release
# binary built (`cargo build --release`, or a cross-built one given as BINARY=…):
#
#   sudo systemd/install.sh            # install, then enable and start the service
#   sudo systemd/install.sh uninstall  # stop, disable and remove it (the config and the
#                                      # records in /var/lib/smartgoban are kept)
#
# What goes where (modes in brackets):
#   $PREFIX/bin/smartgoban                        the binary [0755]
#   /etc/systemd/system/smartgoban.service         the unit [0644]
#   /usr/lib/sysusers.d/smartgoban.conf            its user (sysusers.d) [0644]
#   /etc/udev/rules.d/99-smartgoban.rules          /dev/smartgoban for the board [0644]
#   /etc/smartgoban/smartgoban.toml                the configuration, kept if present [0644]
#   /usr/share/smartgoban/voice/{en,zh}/*.wav      the clock's spoken calls [0644]
#   $PREFIX/share/doc/smartgoban/README.md         the manual [0644]
#
# DESTDIR=DIR installs into a scratch root instead (packaging, tests): nothing is enabled or
# started then, and the commands that would run are printed. PREFIX defaults to /usr/local.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
action=${1:-install}
DESTDIR=${DESTDIR:-}
PREFIX=${PREFIX:-/usr/local}
BINARY=${BINARY:-$top/target/release/smartgoban}
root=$DESTDIR

# Runs a command on the live system, or says it would, under DESTDIR.
live() {
    if [ -n "$DESTDIR" ]; then
        echo "would run: $*"
    else
        "$@"
    fi
}

# put MODE SOURCE TARGET: one file, its folders made.
put() {
    install -D -m "$1" "$2" "$root$3"
    echo "installed $3"
}

case "$action" in
install)
    if [ ! -x "$BINARY" ]; then
        echo "no binary at $BINARY: run \`cargo build --release\` first, or give BINARY=PATH" >&2
        exit 1
    fi
    put 0755 "$BINARY" "$PREFIX/bin/smartgoban"
    unit=$(mktemp)
    trap 'rm -f "$unit"' EXIT
    sed "s|/usr/local/bin/smartgoban|$PREFIX/bin/smartgoban|g; s|/usr/local/share/doc|$PREFIX/share/doc|g" \
        "$here/smartgoban.service" >"$unit"
    put 0644 "$unit" /etc/systemd/system/smartgoban.service
    put 0644 "$here/smartgoban.sysusers" /usr/lib/sysusers.d/smartgoban.conf
    put 0644 "$here/99-smartgoban.rules" /etc/udev/rules.d/99-smartgoban.rules
    if [ -e "$root/etc/smartgoban/smartgoban.toml" ]; then
        echo "kept /etc/smartgoban/smartgoban.toml (the example is systemd/smartgoban.toml)"
    else
        put 0644 "$here/smartgoban.toml" /etc/smartgoban/smartgoban.toml
    fi
    for clip in "$top"/assets/voice/*/*.wav; do
        [ -e "$clip" ] || continue
        lang=$(basename "$(dirname "$clip")")
        install -D -m 0644 "$clip" "$root/usr/share/smartgoban/voice/$lang/$(basename "$clip")"
    done
    echo "installed /usr/share/smartgoban/voice"
    put 0644 "$top/README.md" "$PREFIX/share/doc/smartgoban/README.md"
    live systemd-sysusers /usr/lib/sysusers.d/smartgoban.conf
    live udevadm control --reload-rules
    live udevadm trigger --subsystem-match=tty
    live systemctl daemon-reload
    live systemctl enable --now smartgoban.service
    ;;
uninstall)
    live systemctl disable --now smartgoban.service
    for f in "$PREFIX/bin/smartgoban" /etc/systemd/system/smartgoban.service \
        /usr/lib/sysusers.d/smartgoban.conf /etc/udev/rules.d/99-smartgoban.rules \
        "$PREFIX/share/doc/smartgoban/README.md"; do
        rm -f "$root$f" && echo "removed $f"
    done
    rm -rf "$root/usr/share/smartgoban/voice" && echo "removed /usr/share/smartgoban/voice"
    rmdir "$root/usr/share/smartgoban" "$root$PREFIX/share/doc/smartgoban" 2>/dev/null || true
    live systemctl daemon-reload
    echo "kept /etc/smartgoban/smartgoban.toml and the records in /var/lib/smartgoban"
    ;;
*)
    echo "usage: $0 [install|uninstall]" >&2
    exit 2
    ;;
esac
