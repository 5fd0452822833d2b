//! The calibration image: a board's calibration ([`BoardCalibration`]: every point's empty,
//! black and white readings and the coupling table) and its sensors' health, as the host
//! writes it into the board with `CalibrationData` and `CalibrationCommit`
//! (hardware/PROTOCOL.md §5.14, §15) and the firmware keeps it in flash.
//!
//! Layout (all multi-byte integers little-endian), [`image_len`] bytes (3,983 for 19 × 19,
//! 2,023 for 9 × 9):
//!
//! | offset | size | field |
//! |---|---|---|
//! | 0 | 4 | magic `SGCB` |
//! | 4 | 1 | image version, [`IMAGE_VERSION`] |
//! | 5 | 1 | board size (9, 13 or 19) |
//! | 6 | 2 | reserved, 0 |
//! | 8 | 1,444 | the coupling: 19 × 19 shares (i32, ppm), row `dy` 0–18, column `dx` 0–18; `(0, 0)` is 1,000,000 |
//! | 1,452 | 6 × size² | each point's `empty`, `black`, `white` (u16 counts, at most 4,095), point order |
//! | … | size² | each point's health bits ([`Health`]: 1 dead, 2 swapped, 4 weak, 8 noisy) |
//! | … | 4 | CRC-32C of every byte before it (§2.3) |
//!
//! [`decode`] refuses anything else ([`ImageError`]), so a board never runs on a damaged or
//! foreign image: it keeps the calibration it had.

use smartgoban_protocol::calibration::MAX_IMAGE_LEN;
use smartgoban_protocol::{crc32c, BoardSize};

use crate::calibration::{BoardCalibration, CalibrationError, PointCalibration};
use crate::coupling::{Coupling, MAX_OFFSET, PPM};
use crate::health::Health;
use crate::oversample::ADC_MAX;
use crate::MAX_POINTS;

/// The image's first four bytes.
pub const MAGIC: [u8; 4] = *b"SGCB";

/// The layout version this firmware reads and writes.
pub const IMAGE_VERSION: u8 = 1;

/// Bytes before the coupling table.
const HEADER_LEN: usize = 8;

/// Bytes of the coupling table.
const COUPLING_LEN: usize = (MAX_OFFSET + 1) * (MAX_OFFSET + 1) * 4;

/// The image's length for a board of `size`, bytes.
pub const fn image_len(size: BoardSize) -> usize {
    HEADER_LEN + COUPLING_LEN + 7 * size.points() + 4
}

/// Why bytes are not a calibration image this board can use; nothing changes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ImageError {
    /// Not `SGCB` at the start.
    BadMagic,
    /// A layout version this firmware does not read.
    UnknownVersion(u8),
    /// A board size other than 9, 13 or 19.
    BadBoardSize(u8),
    /// The image is of a board of `image` lines; this board has `board`.
    WrongBoardSize {
        /// This board's size.
        board: u8,
        /// The image's.
        image: u8,
    },
    /// `actual` bytes where the size needs `expected`.
    BadLength {
        /// What the layout needs.
        expected: usize,
        /// What was given.
        actual: usize,
    },
    /// The CRC-32C at the end does not match the bytes.
    BadCrc,
    /// A reading above the ADC's full scale, health bits past the four faults, or a coupling
    /// whose own share is not 1,000,000 ppm.
    OutOfRange,
    /// A coupling no magnets have ([`CalibrationError::ImplausibleCoupling`]).
    Calibration(CalibrationError),
    /// The output buffer is shorter than [`image_len`].
    BufferTooSmall,
}

impl core::fmt::Display for ImageError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            ImageError::BadMagic => f.write_str("not a calibration image (no SGCB magic)"),
            ImageError::UnknownVersion(v) => {
                write!(
                    f,
                    "calibration image version {v}; this firmware reads {IMAGE_VERSION}"
                )
            }
            ImageError::BadBoardSize(s) => write!(f, "calibration image of a {s}x{s} board"),
            ImageError::WrongBoardSize { board, image } => write!(
                f,
                "the calibration image is of a {image}x{image} board; this board is {board}x{board}"
            ),
            ImageError::BadLength { expected, actual } => write!(
                f,
                "a calibration image of {actual} bytes; its board size needs {expected}"
            ),
            ImageError::BadCrc => f.write_str("the calibration image's CRC-32C does not match"),
            ImageError::OutOfRange => {
                f.write_str("a value of the calibration image is out of range")
            }
            ImageError::Calibration(e) => e.fmt(f),
            ImageError::BufferTooSmall => f.write_str("the buffer is too small for the image"),
        }
    }
}

/// Writes the image of `cal` with `health` (one entry a point; missing entries are healthy)
/// into `out`; returns its length ([`image_len`]).
///
/// # Errors
/// [`ImageError::BufferTooSmall`] when `out` is shorter than the image.
pub fn encode(
    cal: &BoardCalibration,
    health: &[Health],
    out: &mut [u8],
) -> Result<usize, ImageError> {
    let size = cal.size();
    let len = image_len(size);
    let out = out.get_mut(..len).ok_or(ImageError::BufferTooSmall)?;
    let mut w = Cursor { out, at: 0 };
    w.put(&MAGIC);
    w.put(&[IMAGE_VERSION, size.get(), 0, 0]);
    for dy in 0..=MAX_OFFSET as i32 {
        for dx in 0..=MAX_OFFSET as i32 {
            w.put(&cal.coupling().at(dx, dy).to_le_bytes());
        }
    }
    for p in cal.points() {
        w.put(&p.empty.to_le_bytes());
        w.put(&p.black.to_le_bytes());
        w.put(&p.white.to_le_bytes());
    }
    for i in 0..size.points() {
        w.put(&[health.get(i).copied().unwrap_or(Health::HEALTHY).0 & 0x0f]);
    }
    let crc = crc32c(w.out.get(..w.at).unwrap_or(&[]));
    w.put(&crc.to_le_bytes());
    Ok(len)
}

struct Cursor<'a> {
    out: &'a mut [u8],
    at: usize,
}

impl Cursor<'_> {
    fn put(&mut self, bytes: &[u8]) {
        if let Some(slot) = self.out.get_mut(self.at..self.at + bytes.len()) {
            slot.copy_from_slice(bytes);
        }
        self.at += bytes.len();
    }
}

/// A decoded image: the calibration and each point's health (point order; past the board's
/// points, healthy).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Image {
    /// The calibration.
    pub calibration: BoardCalibration,
    /// Each point's health.
    pub health: [Health; MAX_POINTS],
}

/// Reads an image for a board of `board` lines (`None`: any size).
///
/// # Errors
/// Anything but a whole, undamaged image of this layout for this board ([`ImageError`]).
pub fn decode(bytes: &[u8], board: Option<BoardSize>) -> Result<Image, ImageError> {
    let byte = |i: usize| bytes.get(i).copied().unwrap_or(0);
    if bytes.get(..4) != Some(&MAGIC[..]) {
        return Err(ImageError::BadMagic);
    }
    if byte(4) != IMAGE_VERSION {
        return Err(ImageError::UnknownVersion(byte(4)));
    }
    let size = BoardSize::new(byte(5)).map_err(|_| ImageError::BadBoardSize(byte(5)))?;
    if let Some(board) = board.filter(|&b| b != size) {
        return Err(ImageError::WrongBoardSize {
            board: board.get(),
            image: size.get(),
        });
    }
    let len = image_len(size);
    if bytes.len() != len {
        return Err(ImageError::BadLength {
            expected: len,
            actual: bytes.len(),
        });
    }
    let body = bytes.get(..len - 4).ok_or(ImageError::BadCrc)?;
    if Some(&crc32c(body).to_le_bytes()[..]) != bytes.get(len - 4..) {
        return Err(ImageError::BadCrc);
    }
    if byte(6) != 0 || byte(7) != 0 {
        return Err(ImageError::OutOfRange);
    }
    let u16_at = |i: usize| u16::from_le_bytes([byte(i), byte(i + 1)]);
    let i32_at = |i: usize| i32::from_le_bytes([byte(i), byte(i + 1), byte(i + 2), byte(i + 3)]);
    let mut coupling = Coupling::none();
    for dy in 0..=MAX_OFFSET {
        for dx in 0..=MAX_OFFSET {
            let share = i32_at(HEADER_LEN + 4 * (dy * (MAX_OFFSET + 1) + dx));
            if dx == 0 && dy == 0 {
                if share != PPM {
                    return Err(ImageError::OutOfRange);
                }
            } else {
                coupling.set_share(dx, dy, share);
            }
        }
    }
    let points_at = HEADER_LEN + COUPLING_LEN;
    let mut points = [PointCalibration::symmetric(0, 0); MAX_POINTS];
    for (i, p) in points.iter_mut().enumerate().take(size.points()) {
        let at = points_at + 6 * i;
        *p = PointCalibration {
            empty: u16_at(at),
            black: u16_at(at + 2),
            white: u16_at(at + 4),
        };
        if p.empty > ADC_MAX || p.black > ADC_MAX || p.white > ADC_MAX {
            return Err(ImageError::OutOfRange);
        }
    }
    let health_at = points_at + 6 * size.points();
    let mut health = [Health::HEALTHY; MAX_POINTS];
    for (i, h) in health.iter_mut().enumerate().take(size.points()) {
        let bits = byte(health_at + i);
        if bits > 0x0f {
            return Err(ImageError::OutOfRange);
        }
        *h = Health(bits);
    }
    let calibration =
        BoardCalibration::from_points(size, points.get(..size.points()).unwrap_or(&[]), coupling)
            .map_err(ImageError::Calibration)?;
    Ok(Image {
        calibration,
        health,
    })
}

/// The longest image, for buffers: the 19 × 19 one, within the protocol's [`MAX_IMAGE_LEN`].
pub const MAX_LEN: usize = image_len(BoardSize::NINETEEN);

const _: () = assert!(MAX_LEN <= MAX_IMAGE_LEN);

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(size: BoardSize) -> (BoardCalibration, [Health; MAX_POINTS]) {
        let mut cal = BoardCalibration::uniform(
            size,
            PointCalibration::symmetric(2048, 700),
            Coupling::default(),
        );
        let mut health = [Health::HEALTHY; MAX_POINTS];
        for i in (0..size.points()).step_by(5) {
            cal.set_point(
                i,
                PointCalibration {
                    empty: 1900 + i as u16,
                    black: 2600 + i as u16 % 300,
                    white: 1200 - i as u16,
                },
            );
            health[i] = Health((i % 16) as u8);
        }
        (cal, health)
    }

    #[test]
    fn an_image_reads_back_as_written_for_every_size() {
        for size in BoardSize::ALL {
            let (cal, health) = sample(size);
            let mut buf = [0u8; MAX_LEN];
            let n = encode(&cal, &health, &mut buf).unwrap();
            assert_eq!(n, image_len(size));
            let image = decode(&buf[..n], Some(size)).unwrap();
            assert_eq!(image.calibration, cal);
            assert_eq!(&image.health[..size.points()], &health[..size.points()]);
            assert_eq!(decode(&buf[..n], None).unwrap(), image);
        }
        assert_eq!(image_len(BoardSize::NINETEEN), 3983);
        assert_eq!(image_len(BoardSize::NINE), 2023);
    }

    #[test]
    fn damaged_foreign_or_short_images_are_refused() {
        let size = BoardSize::NINE;
        let (cal, health) = sample(size);
        let mut buf = [0u8; MAX_LEN];
        let n = encode(&cal, &health, &mut buf).unwrap();
        let image = &buf[..n];
        assert_eq!(
            decode(image, Some(BoardSize::NINETEEN)),
            Err(ImageError::WrongBoardSize {
                board: 19,
                image: 9
            })
        );
        assert_eq!(
            decode(&image[..n - 1], None),
            Err(ImageError::BadLength {
                expected: n,
                actual: n - 1
            })
        );
        // every single-bit flip is refused
        for i in 0..n {
            for bit in 0..8 {
                let mut bad = image.to_vec();
                bad[i] ^= 1 << bit;
                assert!(decode(&bad, Some(size)).is_err(), "byte {i} bit {bit}");
            }
        }
        // a well-formed image (right CRC) with values out of range
        let mut bad = image.to_vec();
        let at = HEADER_LEN + COUPLING_LEN;
        bad[at..at + 2].copy_from_slice(&4096u16.to_le_bytes());
        let crc = crc32c(&bad[..n - 4]);
        bad[n - 4..].copy_from_slice(&crc.to_le_bytes());
        assert_eq!(decode(&bad, None), Err(ImageError::OutOfRange));
        assert_eq!(decode(b"", None), Err(ImageError::BadMagic));
        let mut small = [0u8; 100];
        assert_eq!(
            encode(&cal, &health, &mut small),
            Err(ImageError::BufferTooSmall)
        );
    }
}
