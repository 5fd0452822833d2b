//! The frame checksum: CRC-32C (hardware/PROTOCOL.md §2.3).

use crc::{Crc, CRC_32_ISCSI};

/// CRC-32C (Castagnoli, the crc catalogue's `CRC-32/ISCSI`), with a 256-entry table (1 KiB,
/// built at compile time).
static CRC32C: Crc<u32> = Crc::<u32>::new(&CRC_32_ISCSI);

/// CRC-32C of `bytes` (hardware/PROTOCOL.md §2.3): polynomial 0x1EDC6F41, reflected input and
/// output, init 0xFFFFFFFF, xorout 0xFFFFFFFF; check value `crc32c(b"123456789") ==
/// 0xE3069283`. A frame's `crc` is this over its `kind`, `seq` and payload bytes, sent
/// little-endian.
pub fn crc32c(bytes: &[u8]) -> u32 {
    CRC32C.checksum(bytes)
}

#[cfg(test)]
mod tests {
    #[test]
    fn check_value() {
        assert_eq!(super::crc32c(b"123456789"), 0xE306_9283);
        assert_eq!(super::crc32c(b""), 0);
    }
}
