#!/usr/bin/env python3
"""Independent reference for the golden frames of hardware/PROTOCOL.md §12.

Written from the protocol text alone (no Rust, no crcmod): a bitwise CRC-32C, a plain COBS
encoder, the 2-bit cell packing and the history entries of version 3. Run `python3 golden.py`:
it prints every example (compare with the hex in PROTOCOL.md §12) and writes frames.txt beside
it, the golden frames that the tests of the protocol crate (tests/protocol/golden.rs), of
hardware/board-core and of the host (src/link) read and check.
"""
import struct


def crc32c(data: bytes) -> int:
    """CRC-32C (Castagnoli): poly 0x1EDC6F41 reflected = 0x82F63B78, init/xorout 0xFFFFFFFF."""
    crc = 0xFFFFFFFF
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = (crc >> 1) ^ 0x82F63B78 if crc & 1 else crc >> 1
    return crc ^ 0xFFFFFFFF


def cobs_encode(raw: bytes) -> bytes:
    """COBS without the trailing delimiter."""
    out = bytearray()
    block = bytearray()
    for byte in raw:
        if byte == 0:
            out.append(len(block) + 1)
            out += block
            block.clear()
        else:
            block.append(byte)
            if len(block) == 254:
                out.append(255)
                out += block
                block.clear()
    out.append(len(block) + 1)
    out += block
    return bytes(out)


def frame(kind: int, seq: int, payload: bytes) -> tuple[bytes, bytes]:
    body = bytes([kind, seq]) + payload
    raw = body + struct.pack("<I", crc32c(body))
    return raw, cobs_encode(raw) + b"\x00"


def pack_cells(size: int, stones: dict) -> bytes:
    """stones maps SGF point ("cc") to value 0..3; index = y*size + x, y from the top."""
    cells = bytearray((size * size + 3) // 4)
    for sgf, value in stones.items():
        x = ord(sgf[0]) - ord("a")
        y = ord(sgf[1]) - ord("a")
        i = y * size + x
        cells[i // 4] |= value << (2 * (i % 4))
    return bytes(cells)


def hexs(b: bytes) -> str:
    return " ".join(f"{x:02X}" for x in b)


assert crc32c(b"123456789") == 0xE3069283

# Example 1: Hello, seq 0, protocol_version 1.
raw, wire = frame(0x01, 0, bytes([1]))
print("Hello raw :", hexs(raw))
print("Hello wire:", hexs(wire))

# Example 2: Scan of a 9x9 board, seq 5.
# black C7 ("cc"), white D7 ("dc"), uncertain E5 ("ee"), black J1 ("ii").
cells = pack_cells(9, {"cc": 1, "dc": 2, "ee": 3, "ii": 1})
buttons = bytes([0, 0, 0, 0, 1, 0])  # pass_b, pass_w, resign_b, resign_w, clock_b, clock_w
payload = struct.pack("<IIB", 1, 1000, 9) + buttons + cells
raw, wire = frame(0x03, 5, payload)
print("cells     :", hexs(cells))
print("Scan raw  :", hexs(raw), f"({len(raw)} bytes)")
print("Scan wire :", hexs(wire), f"({len(wire)} bytes)")

# Example 3: Ping, seq 7, nonce 0x12345678 (no 0x00 in the raw frame: one COBS code byte).
raw, wire = frame(0x04, 7, struct.pack("<I", 0x12345678))
print("Ping raw  :", hexs(raw))
print("Ping wire :", hexs(wire))

# Sizes (PROTOCOL.md §2.4).
for size in (9, 13, 19):
    n = (size * size + 3) // 4
    r = 2 + 15 + n + 4
    print(f"{size}x{size}: cells {n}, payload {15 + n}, raw {r}, wire max {r + (r + 253) // 254 + 1}")

# Example 5 (version 2): LedFrame, seq 3, frame_id 1, 9x9 (PROTOCOL.md §5.6, §13).
# Palette entry 1: amber (255, 140, 0) blinking with a 1 s period (effect 0x40 | 10 = 0x4A);
# entry 2: blue (40, 80, 255) steady (0x00); entries 0 and 3..15 off.
# C7 ("cc", index 20) shows entry 1, J1 ("ii", index 80) entry 2.
palette = bytearray(64)
palette[4:8] = bytes([255, 140, 0, 0x4A])
palette[8:12] = bytes([40, 80, 255, 0x00])
led_cells = bytearray((81 + 1) // 2)
for index, entry in ((20, 1), (80, 2)):
    led_cells[index // 2] |= entry << (4 * (index % 2))
content = bytes([9]) + bytes(palette) + bytes(led_cells)
raw, wire = frame(0x10, 3, struct.pack("<H", 1) + content)
print("LedFrame raw :", hexs(raw), f"({len(raw)} bytes)")
print("LedFrame wire:", hexs(wire), f"({len(wire)} bytes)")

# Example 6 (version 2): LedAck, seq 9, for that frame: its id and the CRC-32C of its content.
print("content crc :", f"{crc32c(content):#010x}")
raw, wire = frame(0x06, 9, struct.pack("<HI", 1, crc32c(content)))
print("LedAck raw  :", hexs(raw))
print("LedAck wire :", hexs(wire))

# Version 3: the board's history (PROTOCOL.md §5.8-§5.11, §14), §12 examples 7-10.
# A 9x9 board of boot 0x1234ABCD: its first scan at 1000 ms shows black J1 ("ii"); at 1020 ms
# black C7 ("cc") appears; black presses the clock at 1500 ms; at 70000 ms white D7 ("dc")
# appears (68500 ms after the last entry: a filler 65535 ms after it bridges the gap). The host
# processed the scan at 1000 ms.
BOOT = 0x1234ABCD


def entry(what: int, frm: int, to: int, dt: int) -> bytes:
    """One history entry: code (what bits 0-8, from bits 9-10, to bits 11-12), dt_ms; u16 LE."""
    return struct.pack("<HH", what | (frm << 9) | (to << 11), dt)


# Example 7: HistoryOpen, seq 1 (the host's first frame after its Hello, seq 0).
open_raw, open_wire = frame(0x11, 1, struct.pack("<II", BOOT, 1000))
print("HistoryOpen raw  :", hexs(open_raw))
print("HistoryOpen wire :", hexs(open_wire))

# Example 8: HistoryInfo, seq 4: Ok, since 1000, until 70000 (the board's last scan), 4 entries,
# oldest 1000 (the boot's first scan: nothing overwritten), the session's counters at 70000
# (clock B = 1), board size 9, base = the readings at 1000 (black J1).
base = pack_cells(9, {"ii": 1})
info_payload = (
    struct.pack("<BIIIII", 0, BOOT, 1000, 70000, 4, 1000)
    + bytes([9])
    + bytes([0, 0, 0, 0, 1, 0])
    + base
)
assert len(info_payload) == 28 + 21
info_raw, info_wire = frame(0x07, 4, info_payload)
print("HistoryInfo raw  :", hexs(info_raw), f"({len(info_raw)} bytes)")
print("HistoryInfo wire :", hexs(info_wire), f"({len(info_wire)} bytes)")

# Example 9: HistoryPull, seq 2: the span of since 1000, from entry 0.
pull_raw, pull_wire = frame(0x12, 2, struct.pack("<II", 1000, 0))
print("HistoryPull raw  :", hexs(pull_raw))
print("HistoryPull wire :", hexs(pull_wire))

# Example 10: HistoryChunk, seq 6: Ok, entries 0..3, base_ms = since 1000.
C7, D7 = 2 * 9 + 2, 2 * 9 + 3  # "cc" = index 20, "dc" = index 21
entries = (
    entry(C7, 0, 1, 1020 - 1000)  # C7 empty -> black at 1020
    + entry(508, 0, 0, 1500 - 1020)  # clock black at 1500
    + entry(511, 0, 0, 65535)  # filler: 67035
    + entry(D7, 0, 2, 70000 - 67035)  # D7 empty -> white at 70000
)
chunk_payload = struct.pack("<IBIIB", 1000, 0, 0, 1000, 4) + entries
assert len(chunk_payload) == 14 + 4 * 4
chunk_raw, chunk_wire = frame(0x08, 6, chunk_payload)
print("HistoryChunk raw :", hexs(chunk_raw), f"({len(chunk_raw)} bytes)")
print("HistoryChunk wire:", hexs(chunk_wire), f"({len(chunk_wire)} bytes)")

# Sizes (PROTOCOL.md §2.4): HistoryInfo per board size, a full HistoryChunk (58 entries).
for size in (9, 13, 19):
    n = (size * size + 3) // 4
    r = 6 + 28 + n
    print(f"HistoryInfo {size}x{size}: payload {28 + n}, raw {r}, wire max {r + (r + 253) // 254 + 1}")
r = 6 + 14 + 4 * 58
print(f"HistoryChunk 58: payload {14 + 4 * 58}, raw {r}, wire max {r + (r + 253) // 254 + 1}")


# Version 4: calibration (PROTOCOL.md §5.12-§5.18, §15), §12 examples 11-17.
# Example 11: RawRequest, seq 2: the readings of points 336 to 338 of a 19x19 board.
rawreq_raw, rawreq_wire = frame(0x13, 2, struct.pack("<HB", 336, 3))
# Example 12: RawReadings, seq 7: from the scan of counter 41, points 336..338 read 2048,
# 2810 and 1290 counts.
rawrd_raw, rawrd_wire = frame(0x09, 7, struct.pack("<IHB", 41, 336, 3) + struct.pack("<3H", 2048, 2810, 1290))
# Example 13: CalibrationData, seq 3: the image's first 8 bytes (magic SGCB, version 1, 9x9).
data_raw, data_wire = frame(0x14, 3, struct.pack("<HH", 0, 8) + b"SGCB" + bytes([1, 9, 0, 0]))
# Example 14: CalibrationCommit, seq 4: a 9x9 image (2,023 bytes) of CRC-32C 0x89ABCDEF.
commit_raw, commit_wire = frame(0x15, 4, struct.pack("<HI", 2023, 0x89ABCDEF))
# Example 15: CalibrationAck, seq 8: stored (status 0), the CRC of what was received.
ack_raw, ack_wire = frame(0x0A, 8, struct.pack("<BI", 0, 0x89ABCDEF))
# Example 16: HealthRequest, seq 5 (no payload).
hreq_raw, hreq_wire = frame(0x16, 5, b"")
# Example 17: SensorHealth, seq 9, 9x9, calibrated: A9 (index 0) dead (1), E5 (index 40) weak
# and noisy (4 | 8), J1 (index 80) swapped (2); one nibble a point, low nibble first.
nibbles = bytearray((81 + 1) // 2)
for index, bits in ((0, 1), (40, 12), (80, 2)):
    nibbles[index // 2] |= bits << (4 * (index % 2))
health_raw, health_wire = frame(0x0B, 9, bytes([9, 1]) + bytes(nibbles))
for name, raw, wire in (
    ("RawRequest", rawreq_raw, rawreq_wire),
    ("RawReadings", rawrd_raw, rawrd_wire),
    ("CalibrationData", data_raw, data_wire),
    ("CalibrationCommit", commit_raw, commit_wire),
    ("CalibrationAck", ack_raw, ack_wire),
    ("HealthRequest", hreq_raw, hreq_wire),
    ("SensorHealth", health_raw, health_wire),
):
    print(f"{name} raw :", hexs(raw))
    print(f"{name} wire:", hexs(wire))


# The golden frames as a plain data file, read by the protocol crate's tests, board-core's and
# the host's (src/link): one frame a line, `name raw-hex wire-hex` (hex without spaces; `-`
# when there is no raw frame).
def golden_frames():
    rows = []
    raw, wire = frame(0x01, 0, bytes([1]))
    rows.append(("hello", raw, wire))
    cells = pack_cells(9, {"cc": 1, "dc": 2, "ee": 3, "ii": 1})
    payload = struct.pack("<IIB", 1, 1000, 9) + bytes([0, 0, 0, 0, 1, 0]) + cells
    raw, wire = frame(0x03, 5, payload)
    rows.append(("scan-9x9", raw, wire))
    raw, wire = frame(0x04, 7, struct.pack("<I", 0x12345678))
    rows.append(("ping", raw, wire))
    rows.append(("garbage-then-hello", None, bytes([0x13, 0x37, 0x00]) + frame(0x01, 0, bytes([1]))[1]))
    raw, wire = frame(0x10, 3, struct.pack("<H", 1) + content)
    rows.append(("led-frame-9x9", raw, wire))
    raw, wire = frame(0x06, 9, struct.pack("<HI", 1, crc32c(content)))
    rows.append(("led-ack", raw, wire))
    rows.append(("history-open", open_raw, open_wire))
    rows.append(("history-info-9x9", info_raw, info_wire))
    rows.append(("history-pull", pull_raw, pull_wire))
    rows.append(("history-chunk", chunk_raw, chunk_wire))
    rows.append(("raw-request", rawreq_raw, rawreq_wire))
    rows.append(("raw-readings", rawrd_raw, rawrd_wire))
    rows.append(("calibration-data", data_raw, data_wire))
    rows.append(("calibration-commit", commit_raw, commit_wire))
    rows.append(("calibration-ack", ack_raw, ack_wire))
    rows.append(("health-request", hreq_raw, hreq_wire))
    rows.append(("sensor-health-9x9", health_raw, health_wire))
    return rows


if __name__ == "__main__":
    import os

    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "frames.txt")
    with open(path, "w") as f:
        f.write("# The golden frames of hardware/PROTOCOL.md §12, written by golden.py (do not edit).\n")
        f.write("# One frame a line: name, raw frame (kind seq payload crc; - if none), wire bytes\n")
        f.write("# (COBS and the 0x00 delimiter), in hex. Read by the tests of hardware/protocol,\n")
        f.write("# hardware/board-core and the host (src/link).\n")
        for name, raw, wire in golden_frames():
            f.write(f"{name} {raw.hex().upper() if raw is not None else '-'} {wire.hex().upper()}\n")
    print("wrote", path)
