//! How the board shows itself on USB (hardware/WIRING.md "The RP2040"): a CDC-ACM serial port
//! with the Raspberry Pi vendor id, the product string the udev rule
//! (`systemd/99-smartgoban.rules`) matches to name it `/dev/smartgoban`, and a serial number
//! from the flash chip's 64-bit unique id, so that a hall with many boards tells them apart
//! (`/dev/smartgoban-by-serial/<serial>`, the same id in `HelloAck.device_id`).

/// USB vendor id: Raspberry Pi (the RP2040's maker).
pub const VENDOR_ID: u16 = 0x2e8a;

/// USB product id: 0x000a, the Pico SDK's CDC serial port. A board sold in numbers asks
/// Raspberry Pi for its own product id (github.com/raspberrypi/usb-pid); the udev rule
/// matches the product string, not this id.
pub const PRODUCT_ID: u16 = 0x000a;

/// The USB manufacturer string.
pub const MANUFACTURER: &str = "smartgoban";

/// The USB product string: the udev rule matches it (`ATTRS{product}`).
pub const PRODUCT: &str = "smartgoban board";

/// Characters of [`serial_number`]: 16 hexadecimal digits.
pub const SERIAL_LEN: usize = 16;

/// The USB serial number for the flash's unique id `uid` (8 bytes, as the flash's
/// `READ_UNIQUE_ID` command gives them): 16 upper-case hexadecimal digits, first byte first —
/// the Pico SDK's `pico_get_unique_board_id_string` form.
pub fn serial_number(uid: [u8; 8]) -> [u8; SERIAL_LEN] {
    const fn hex(nibble: u8) -> u8 {
        match nibble {
            0..=9 => b'0' + nibble,
            _ => b'A' + nibble - 10,
        }
    }
    let mut out = [0u8; SERIAL_LEN];
    for (pair, byte) in out.chunks_exact_mut(2).zip(uid) {
        if let [hi, lo] = pair {
            *hi = hex(byte >> 4);
            *lo = hex(byte & 0x0f);
        }
    }
    out
}

/// The `device_id` of the board's `HelloAck` (§5.2) for the flash's unique id: its last four
/// bytes, big-endian — the serial number's last 8 digits read as hexadecimal.
pub fn device_id(uid: [u8; 8]) -> u32 {
    let [_, _, _, _, a, b, c, d] = uid;
    u32::from_be_bytes([a, b, c, d])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_serial_number_is_the_unique_id_in_hexadecimal() {
        let uid = [0xe6, 0x61, 0x38, 0x52, 0x83, 0x0a, 0x2f, 0x0d];
        assert_eq!(&serial_number(uid), b"E6613852830A2F0D");
        assert_eq!(&serial_number([0; 8]), b"0000000000000000");
        assert_eq!(&serial_number([0xff; 8]), b"FFFFFFFFFFFFFFFF");
        assert_eq!(device_id(uid), 0x830a_2f0d);
        let serial = serial_number(uid);
        let text = core::str::from_utf8(&serial).unwrap();
        assert_eq!(u32::from_str_radix(&text[8..], 16).unwrap(), device_id(uid));
        // Every id gives a different serial (spot check over single-bit changes).
        for bit in 0..64 {
            let mut other = uid;
            other[bit / 8] ^= 1 << (bit % 8);
            assert_ne!(serial_number(other), serial, "bit {bit}");
        }
    }
}
