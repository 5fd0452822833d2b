//! Zobrist keys for whole-board position hashing (G6/R20: global repetition).
//!
//! One 64-bit key per (colour, cell) of the padded board layout ([`super::board`]), generated at
//! compile time by splitmix64 from a fixed seed: the same keys on every run, build and platform,
//! so a position's hash can be stored (in the event log, the database) and compared later.

use super::board::CELLS;

/// The seed of the key sequence ("SGOBAN01" in ASCII). Changing it changes every stored hash.
const SEED: u64 = 0x5347_4F42_414E_3031;

/// `KEYS[colour][cell]`: colour index 0 = Black, 1 = White; cell is a padded-layout index.
pub(crate) static KEYS: [[u64; CELLS]; 2] = generate();

/// splitmix64 (Steele, Lea, Flood 2014), as used to seed xoshiro generators.
const fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

const fn generate() -> [[u64; CELLS]; 2] {
    let mut keys = [[0u64; CELLS]; 2];
    let mut state = SEED;
    let mut colour = 0;
    while colour < 2 {
        let mut cell = 0;
        while cell < CELLS {
            keys[colour][cell] = splitmix64(&mut state);
            cell += 1;
        }
        colour += 1;
    }
    keys
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_fixed_and_distinct() {
        // Pinned values: a change here invalidates every stored position hash.
        assert_eq!(KEYS[0][0], 0xfda9_a75b_8321_0adb);
        assert_eq!(KEYS[1][CELLS - 1], 0xc533_b5f2_d17b_6ba3);
        let mut all: Vec<u64> = KEYS.iter().flatten().copied().collect();
        all.sort_unstable();
        all.dedup();
        assert_eq!(all.len(), 2 * CELLS);
    }
}
