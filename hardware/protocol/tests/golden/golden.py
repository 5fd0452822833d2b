#!/usr/bin/env python3
"""Independent reference for the golden frames of hardware/PROTOCOL.md §12.

Written from the protocol text alone (no Rust, no crcmod): a bitwise CRC-32C, a plain COBS
encoder and the 2-bit cell packing. Run `python3 golden.py` and compare with the hex in
PROTOCOL.md and in tests/protocol/golden.rs.
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
