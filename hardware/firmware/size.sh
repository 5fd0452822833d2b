#!/usr/bin/env bash
# Builds the firmware for the RP2040 (thumbv6m-none-eabi, release) and prints its flash and RAM
# use from llvm-size (rustup's llvm-tools): flash = .boot2 + .vector_table + .text + .rodata +
# .data (its initial values), RAM = .data + .bss + .uninit; the rest of the 264 KiB is the
# stack. Fails when flash passes half of the Pico's 2 MiB or RAM 85 % (room for the stack).
#
#   hardware/firmware/size.sh          # needs: rustup target add thumbv6m-none-eabi;
#                                      #        rustup component add llvm-tools
set -euo pipefail
cd "$(dirname "$0")"
cargo build --release
elf=target/thumbv6m-none-eabi/release/smartgoban-firmware
size="$(rustc --print sysroot)/lib/rustlib/$(rustc -vV | sed -n 's/^host: //p')/bin/llvm-size"
"$size" -A "$elf" | grep -v '^\.debug'
read -r flash ram < <("$size" -A "$elf" | awk '
    $1 ~ /^\.(boot2|vector_table|text|rodata|data)$/ { flash += $2 }
    $1 ~ /^\.(data|bss|uninit)$/ { ram += $2 }
    END { print flash, ram }')
flash_total=$((2048 * 1024))
ram_total=$((264 * 1024))
echo "flash: $flash of $flash_total bytes ($((flash * 1000 / flash_total / 10)).$((flash * 1000 / flash_total % 10)) %)"
echo "RAM:   $ram of $ram_total bytes ($((ram * 1000 / ram_total / 10)).$((ram * 1000 / ram_total % 10)) %), $((ram_total - ram)) bytes left for the stack"
if [ "$flash" -gt $((flash_total / 2)) ] || [ "$ram" -gt $((ram_total * 85 / 100)) ]; then
    echo "the firmware no longer fits the RP2040 with room to spare" >&2
    exit 1
fi
