//! [`Side`], [`Button`] and [`ButtonCounters`]: the six wrapping press counters a `Scan`
//! carries (hardware/PROTOCOL.md §5.3, §7).

/// A player's side of the board: each has its own pass, resign and clock button (§7).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Side {
    /// The player with the black stones.
    Black,
    /// The player with the white stones.
    White,
}

/// One kind of button; each exists once per [`Side`] (§7).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Button {
    /// The pass button (or pass gesture).
    Pass,
    /// The resign button.
    Resign,
    /// The game clock button, pressed after each move.
    Clock,
}

/// Cumulative presses of each button since the board's last `HelloAck`, each a wrapping `u8`
/// (hardware/PROTOCOL.md §5.3 payload offsets 9..=14, §7).
///
/// Every `Scan` carries the totals, so a lost frame loses no press: the host takes
/// `(new - old) mod 256` presses per button ([`ButtonCounters::presses_since`]). The wire
/// order is the field order below. The board counts with [`ButtonCounters::record_press`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct ButtonCounters {
    /// Black's pass presses (payload offset 9).
    pub pass_black: u8,
    /// White's pass presses (payload offset 10).
    pub pass_white: u8,
    /// Black's resign presses (payload offset 11).
    pub resign_black: u8,
    /// White's resign presses (payload offset 12).
    pub resign_white: u8,
    /// Black's clock presses (payload offset 13).
    pub clock_black: u8,
    /// White's clock presses (payload offset 14).
    pub clock_white: u8,
}

impl ButtonCounters {
    /// Bytes on the wire: six `u8`.
    pub const WIRE_LEN: usize = 6;

    /// The six buttons in wire order (§5.3 payload offsets 9..=14), which is also the order
    /// of the press codes of the board's history (§14.2).
    pub const ORDER: [(Button, Side); 6] = [
        (Button::Pass, Side::Black),
        (Button::Pass, Side::White),
        (Button::Resign, Side::Black),
        (Button::Resign, Side::White),
        (Button::Clock, Side::Black),
        (Button::Clock, Side::White),
    ];

    /// All counters at zero, as after a `HelloAck`.
    pub const ZERO: ButtonCounters = ButtonCounters {
        pass_black: 0,
        pass_white: 0,
        resign_black: 0,
        resign_white: 0,
        clock_black: 0,
        clock_white: 0,
    };

    /// The counter of `button` on `side`.
    pub const fn get(&self, button: Button, side: Side) -> u8 {
        match (button, side) {
            (Button::Pass, Side::Black) => self.pass_black,
            (Button::Pass, Side::White) => self.pass_white,
            (Button::Resign, Side::Black) => self.resign_black,
            (Button::Resign, Side::White) => self.resign_white,
            (Button::Clock, Side::Black) => self.clock_black,
            (Button::Clock, Side::White) => self.clock_white,
        }
    }

    /// Counts one press of `button` on `side` (wrapping 255 → 0); used by the board.
    pub fn record_press(&mut self, button: Button, side: Side) {
        let counter = match (button, side) {
            (Button::Pass, Side::Black) => &mut self.pass_black,
            (Button::Pass, Side::White) => &mut self.pass_white,
            (Button::Resign, Side::Black) => &mut self.resign_black,
            (Button::Resign, Side::White) => &mut self.resign_white,
            (Button::Clock, Side::Black) => &mut self.clock_black,
            (Button::Clock, Side::White) => &mut self.clock_white,
        };
        *counter = counter.wrapping_add(1);
    }

    /// Presses of each button between `earlier` and `self`: `(self - earlier) mod 256` per
    /// counter (§7). Exact as long as fewer than 256 presses of one button fall between two
    /// received scans.
    pub const fn presses_since(&self, earlier: &ButtonCounters) -> ButtonCounters {
        ButtonCounters {
            pass_black: self.pass_black.wrapping_sub(earlier.pass_black),
            pass_white: self.pass_white.wrapping_sub(earlier.pass_white),
            resign_black: self.resign_black.wrapping_sub(earlier.resign_black),
            resign_white: self.resign_white.wrapping_sub(earlier.resign_white),
            clock_black: self.clock_black.wrapping_sub(earlier.clock_black),
            clock_white: self.clock_white.wrapping_sub(earlier.clock_white),
        }
    }

    /// The six counters in wire order: pass B, pass W, resign B, resign W, clock B, clock W.
    pub const fn to_bytes(&self) -> [u8; 6] {
        [
            self.pass_black,
            self.pass_white,
            self.resign_black,
            self.resign_white,
            self.clock_black,
            self.clock_white,
        ]
    }

    /// The counters from six bytes in wire order (the inverse of [`ButtonCounters::to_bytes`]).
    pub const fn from_bytes(bytes: [u8; 6]) -> ButtonCounters {
        let [pass_black, pass_white, resign_black, resign_white, clock_black, clock_white] = bytes;
        ButtonCounters {
            pass_black,
            pass_white,
            resign_black,
            resign_white,
            clock_black,
            clock_white,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn presses_wrap() {
        let mut old = ButtonCounters::ZERO;
        old.clock_black = 254;
        let mut new = old;
        for _ in 0..3 {
            new.record_press(Button::Clock, Side::Black);
        }
        new.record_press(Button::Pass, Side::White);
        assert_eq!(new.clock_black, 1);
        let d = new.presses_since(&old);
        assert_eq!(d.get(Button::Clock, Side::Black), 3);
        assert_eq!(d.get(Button::Pass, Side::White), 1);
        assert_eq!(d.get(Button::Resign, Side::Black), 0);
    }

    #[test]
    fn wire_order() {
        let c = ButtonCounters::from_bytes([1, 2, 3, 4, 5, 6]);
        assert_eq!(c.resign_black, 3);
        assert_eq!(c.clock_white, 6);
        assert_eq!(c.to_bytes(), [1, 2, 3, 4, 5, 6]);
    }
}
