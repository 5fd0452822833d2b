//! The positions a playout has been through, for its whole-board repetition stop (R20.2–R20.3).

/// A set of position hashes (Zobrist, [`PlayoutBoard::hash`](super::PlayoutBoard::hash)) for
/// the whole-board repetition stop of a playout: open addressing on the hash's low bits, which
/// are uniformly random.
#[derive(Debug, Clone)]
pub struct PositionSet {
    slots: Vec<u64>,
    len: usize,
    /// Whether the hash 0 (the empty board) is in the set; 0 marks a free slot.
    zero: bool,
}

impl PositionSet {
    /// A set with room for `positions` without growing.
    pub fn with_capacity(positions: usize) -> PositionSet {
        PositionSet {
            slots: vec![0; (2 * positions).next_power_of_two().max(16)],
            len: 0,
            zero: false,
        }
    }

    /// Empties the set, keeping its room.
    pub fn clear(&mut self) {
        self.slots.fill(0);
        self.len = 0;
        self.zero = false;
    }

    /// Adds `hash`; false if it was already there.
    pub fn insert(&mut self, hash: u64) -> bool {
        if hash == 0 {
            return !std::mem::replace(&mut self.zero, true);
        }
        if 2 * (self.len + 1) > self.slots.len() {
            self.grow();
        }
        let mask = self.slots.len() - 1;
        let mut k = hash as usize & mask;
        loop {
            match self.slots[k] {
                0 => {
                    self.slots[k] = hash;
                    self.len += 1;
                    return true;
                }
                h if h == hash => return false,
                _ => k = (k + 1) & mask,
            }
        }
    }

    /// Whether `hash` is in the set.
    pub fn contains(&self, hash: u64) -> bool {
        if hash == 0 {
            return self.zero;
        }
        let mask = self.slots.len() - 1;
        let mut k = hash as usize & mask;
        loop {
            match self.slots[k] {
                0 => return false,
                h if h == hash => return true,
                _ => k = (k + 1) & mask,
            }
        }
    }

    fn grow(&mut self) {
        let room = 2 * self.slots.len();
        let old = std::mem::replace(&mut self.slots, vec![0; room]);
        self.len = 0;
        for h in old.into_iter().filter(|&h| h != 0) {
            self.insert(h);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn position_set() {
        let mut s = PositionSet::with_capacity(4);
        assert!(s.insert(0) && !s.insert(0) && s.contains(0));
        for h in 1..100u64 {
            assert!(s.insert(h.wrapping_mul(0x9E37_79B9_7F4A_7C15)));
        }
        assert!(!s.insert(5u64.wrapping_mul(0x9E37_79B9_7F4A_7C15)));
        assert!(s.contains(99u64.wrapping_mul(0x9E37_79B9_7F4A_7C15)));
        assert!(!s.contains(12345));
        s.clear();
        assert!(!s.contains(0) && !s.contains(5u64.wrapping_mul(0x9E37_79B9_7F4A_7C15)));
    }
}
