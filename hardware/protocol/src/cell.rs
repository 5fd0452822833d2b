//! [`Cell`] and [`PackedCells`]: a full board reading at 2 bits per point (hardware/PROTOCOL.md §6).

use core::fmt;
use core::iter::FusedIterator;

use crate::board_size::BoardSize;
use crate::error::{CellCountError, DecodeError};
use crate::MAX_CELL_BYTES;

/// What the sensor of one point reads, as the 2-bit value sent in a `Scan` (hardware/PROTOCOL.md §6).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[repr(u8)]
pub enum Cell {
    /// `0b00`: no stone.
    #[default]
    Empty = 0,
    /// `0b01`: a black stone.
    Black = 1,
    /// `0b10`: a white stone.
    White = 2,
    /// `0b11`: the point cannot be read now (a hand over it, a faulty sensor); the host
    /// keeps its previous belief about the point.
    Uncertain = 3,
}

impl Cell {
    /// The cell for the two low bits of `bits` (`0..=3`); higher bits are ignored.
    pub const fn from_bits(bits: u8) -> Cell {
        match bits & 0b11 {
            0 => Cell::Empty,
            1 => Cell::Black,
            2 => Cell::White,
            _ => Cell::Uncertain,
        }
    }

    /// The 2-bit wire value, `0..=3`.
    pub const fn bits(self) -> u8 {
        self as u8
    }
}

/// One reading of every point of the board, packed 4 points per byte exactly as it travels
/// in a `Scan` (hardware/PROTOCOL.md §6).
///
/// Point `i = y * size + x` (`x` column from the left, `y` row from the top, SGF order) is
/// bits `2*(i%4) ..= 2*(i%4)+1` of byte `i/4`, least significant pair first. The bytes are
/// `ceil(size²/4)` long (21, 43 or 91) and the unused high bits of the last byte are always 0:
/// no method can set them, and the decoder rejects frames where they are not
/// ([`DecodeError::BadPadding`]). Storage is a fixed `[u8; MAX_CELL_BYTES]` (91 bytes); bytes
/// past [`BoardSize::cell_bytes`] stay 0, so `==` compares boards.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct PackedCells {
    size: BoardSize,
    bytes: [u8; MAX_CELL_BYTES],
}

impl PackedCells {
    /// An all-[`Cell::Empty`] board of `size`.
    pub const fn new(size: BoardSize) -> PackedCells {
        PackedCells {
            size,
            bytes: [0; MAX_CELL_BYTES],
        }
    }

    /// A board of `size` from its cells in point order (index 0 = top-left "aa", row by row).
    ///
    /// `cells` must yield exactly `size²` cells (81, 169 or 361); otherwise the error says
    /// how many were expected and how many came (it stops reading one past the expected count).
    pub fn from_cells(
        size: BoardSize,
        cells: impl IntoIterator<Item = Cell>,
    ) -> Result<PackedCells, CellCountError> {
        let mut packed = PackedCells::new(size);
        let expected = size.points();
        let mut count = 0;
        for cell in cells {
            if count == expected {
                return Err(CellCountError::TooMany { expected });
            }
            packed.set(count, cell);
            count += 1;
        }
        if count < expected {
            return Err(CellCountError::TooFew {
                expected,
                actual: count,
            });
        }
        Ok(packed)
    }

    /// Takes the packed bytes of a `Scan` (§6), which must be exactly `size.cell_bytes()` long
    /// (the caller checks the length against the frame); rejects set padding bits.
    pub(crate) fn from_wire(size: BoardSize, bytes: &[u8]) -> Result<PackedCells, DecodeError> {
        let mut packed = PackedCells::new(size);
        let dst = packed
            .bytes
            .get_mut(..bytes.len())
            .ok_or(DecodeError::BadLength {
                kind: crate::MessageKind::Scan as u8,
                expected: size.cell_bytes(),
                actual: bytes.len(),
            })?;
        dst.copy_from_slice(bytes);
        let used_pairs = size.points() % 4; // 1 for every v1 size: 81, 169, 361 are all 1 mod 4
        if used_pairs != 0 {
            let last = packed
                .bytes
                .get(size.cell_bytes() - 1)
                .copied()
                .unwrap_or(0);
            if last >> (2 * used_pairs) != 0 {
                return Err(DecodeError::BadPadding);
            }
        }
        Ok(packed)
    }

    /// The board size these cells describe.
    pub const fn size(&self) -> BoardSize {
        self.size
    }

    /// The number of points (not bytes): 81, 169 or 361.
    #[allow(clippy::len_without_is_empty)] // a board always has points; "empty" would mislead
    pub const fn len(&self) -> usize {
        self.size.points()
    }

    /// The cell at point index `i` (`y * size + x`, §6).
    ///
    /// # Panics
    /// If `i >= self.len()`, like slice indexing. Use [`PackedCells::iter`] to walk the board.
    pub fn get(&self, i: usize) -> Cell {
        assert!(
            i < self.len(),
            "point index {i} out of range for {}",
            self.size
        );
        let byte = self.bytes.get(i / 4).copied().unwrap_or(0);
        Cell::from_bits(byte >> (2 * (i % 4)))
    }

    /// Sets the cell at point index `i` (`y * size + x`, §6).
    ///
    /// # Panics
    /// If `i >= self.len()`, like slice indexing; so the padding bits can never be set.
    pub fn set(&mut self, i: usize, cell: Cell) {
        assert!(
            i < self.len(),
            "point index {i} out of range for {}",
            self.size
        );
        if let Some(byte) = self.bytes.get_mut(i / 4) {
            let shift = 2 * (i % 4);
            *byte = (*byte & !(0b11 << shift)) | (cell.bits() << shift);
        }
    }

    /// Writes the cells, in point index order (§6), to the start of `out`, four to a byte as
    /// they are packed; returns how many: [`PackedCells::len`], or `out.len()` if `out` is
    /// shorter (the rest is not written).
    pub fn unpack_into(&self, out: &mut [Cell]) -> usize {
        let n = self.len().min(out.len());
        let Some(out) = out.get_mut(..n) else {
            return 0; // n ≤ out.len(): not reached
        };
        for (chunk, &byte) in out.chunks_mut(4).zip(self.bytes.iter()) {
            for (k, cell) in chunk.iter_mut().enumerate() {
                *cell = Cell::from_bits(byte >> (2 * k));
            }
        }
        n
    }

    /// The cells in point order (index 0 first), `len()` of them.
    pub fn iter(&self) -> Cells<'_> {
        Cells {
            cells: self,
            next: 0,
        }
    }

    /// The packed bytes as sent on the wire: `ceil(size²/4)` bytes (21, 43 or 91).
    pub fn as_bytes(&self) -> &[u8] {
        self.bytes.get(..self.size.cell_bytes()).unwrap_or(&[])
    }
}

impl fmt::Debug for PackedCells {
    /// Shows the size and only the bytes in use (not the zero tail of the storage).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PackedCells")
            .field("size", &self.size.get())
            .field("bytes", &self.as_bytes())
            .finish()
    }
}

impl<'a> IntoIterator for &'a PackedCells {
    type Item = Cell;
    type IntoIter = Cells<'a>;

    fn into_iter(self) -> Cells<'a> {
        self.iter()
    }
}

/// Iterator over the cells of a [`PackedCells`] in point order; see [`PackedCells::iter`].
#[derive(Debug, Clone)]
pub struct Cells<'a> {
    cells: &'a PackedCells,
    next: usize,
}

impl Iterator for Cells<'_> {
    type Item = Cell;

    fn next(&mut self) -> Option<Cell> {
        if self.next < self.cells.len() {
            let cell = self.cells.get(self.next);
            self.next += 1;
            Some(cell)
        } else {
            None
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let left = self.cells.len().saturating_sub(self.next);
        (left, Some(left))
    }
}

impl ExactSizeIterator for Cells<'_> {}
impl FusedIterator for Cells<'_> {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unpack_into_gives_what_iter_gives() {
        for n in [9u8, 13, 19] {
            let size = BoardSize::new(n).unwrap();
            let mut cells = PackedCells::new(size);
            for i in 0..cells.len() {
                cells.set(i, Cell::from_bits((i * 7 + i / 3) as u8));
            }
            let mut out = [Cell::Uncertain; 400];
            assert_eq!(cells.unpack_into(&mut out), cells.len());
            assert!(out[..cells.len()].iter().copied().eq(cells.iter()));
            assert!(out[cells.len()..].iter().all(|&c| c == Cell::Uncertain));
            let mut short = [Cell::Uncertain; 10];
            assert_eq!(cells.unpack_into(&mut short), 10);
            assert!(short.iter().copied().eq(cells.iter().take(10)));
        }
    }

    #[test]
    fn cell_bits_round_trip() {
        for bits in 0..4 {
            assert_eq!(Cell::from_bits(bits).bits(), bits);
        }
        assert_eq!(Cell::from_bits(0b1110), Cell::White);
    }

    #[test]
    fn packing_matches_the_spec_example() {
        // §12 example 2: black C7 (cc, i=20), white D7 (dc, i=21), uncertain E5 (ee, i=40),
        // black J1 (ii, i=80) on 9×9.
        let mut cells = PackedCells::new(BoardSize::NINE);
        cells.set(20, Cell::Black);
        cells.set(21, Cell::White);
        cells.set(40, Cell::Uncertain);
        cells.set(80, Cell::Black);
        let mut expected = [0u8; 21];
        expected[5] = 0x09;
        expected[10] = 0x03;
        expected[20] = 0x01;
        assert_eq!(cells.as_bytes(), &expected);
        assert_eq!(cells.get(21), Cell::White);
        cells.set(21, Cell::Empty);
        assert_eq!(cells.as_bytes()[5], 0x01);
    }

    #[test]
    fn from_cells_checks_the_count() {
        let size = BoardSize::NINE;
        let ok = PackedCells::from_cells(size, (0..81).map(|i| Cell::from_bits(i as u8)));
        let ok = ok.unwrap();
        assert!(ok
            .iter()
            .enumerate()
            .all(|(i, c)| c == Cell::from_bits(i as u8)));
        assert_eq!(ok.iter().len(), 81);
        assert_eq!(
            PackedCells::from_cells(size, [Cell::Black; 80]),
            Err(CellCountError::TooFew {
                expected: 81,
                actual: 80
            })
        );
        assert_eq!(
            PackedCells::from_cells(size, core::iter::repeat(Cell::Black)),
            Err(CellCountError::TooMany { expected: 81 })
        );
    }

    #[test]
    fn padding_is_checked_on_the_wire() {
        for size in BoardSize::ALL {
            let mut bytes = [0u8; MAX_CELL_BYTES];
            let n = size.cell_bytes();
            assert!(PackedCells::from_wire(size, &bytes[..n]).is_ok());
            for bit in 2..8 {
                bytes[n - 1] = 1 << bit;
                assert_eq!(
                    PackedCells::from_wire(size, &bytes[..n]),
                    Err(DecodeError::BadPadding)
                );
            }
        }
    }

    #[test]
    #[should_panic(expected = "out of range")]
    fn get_past_the_end_panics() {
        PackedCells::new(BoardSize::NINE).get(81);
    }
}
