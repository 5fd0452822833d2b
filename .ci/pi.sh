#!/usr/bin/env bash
# The service for the Raspberry Pi (issue 16; README "On the Pi"): release builds in the `pi`
# profile (stripped, thin LTO) for 64-bit Raspberry Pi OS (aarch64, Pi 4/5) and 32-bit
# (armv7 hard-float, Pi 3/Zero 2), with Debian's cross compilers; then the core tests — the
# library's unit tests, the rules tests and the protocol and board-core crates, not the
# pty/HTTP integration suite — built for aarch64 and run under qemu-aarch64 with the cross
# C library (the runner in .cargo/config.toml). Prints each binary's `file` line and size.
# Needs: rustup targets aarch64-unknown-linux-gnu and armv7-unknown-linux-gnueabihf, Debian's
# gcc-aarch64-linux-gnu, gcc-arm-linux-gnueabihf, libc6-dev-arm64-cross, libc6-dev-armhf-cross
# and qemu-user (.ci/run installs them).
set -euo pipefail
cd "$(dirname "$0")/.."

for target in aarch64-unknown-linux-gnu armv7-unknown-linux-gnueabihf; do
    echo "+ cargo build --profile pi --target $target --bin smartgoban"
    cargo build --profile pi --target "$target" --bin smartgoban
done
for target in aarch64-unknown-linux-gnu armv7-unknown-linux-gnueabihf; do
    bin="target/$target/pi/smartgoban"
    file "$bin"
    echo "$bin: $(stat -c %s "$bin") bytes"
done

echo "+ the core tests for aarch64 under qemu-aarch64"
# (The protocol's exhaustive test of every pair of cuts in a stream is cubic: it runs on x86,
# under emulation it alone would take many minutes.)
cargo test --profile pi --target aarch64-unknown-linux-gnu \
    -p smartgoban-protocol -p smartgoban-board-core -- --skip stream::cut_at_every_pair_of_offsets
# (The serial port's tests open a pseudo-terminal with the TCGETS2 ioctl, which Debian 12's
# qemu-user 7.2 does not emulate — "Function not implemented"; the Pi's kernel has it since
# Linux 2.6.20. They run on x86 with the rest of the suite.)
cargo test --profile pi --target aarch64-unknown-linux-gnu -p smartgoban \
    --lib --test 'rules_*' -- --skip link::serial::tests
