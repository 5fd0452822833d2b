//! [`Slot`]: the 16 palette entries of a frame, their colours and effects, and the
//! [`LedSettings`] that scale them.

use serde::Serialize;
use smartgoban_protocol::{LedEffect, LedPaint, PALETTE_LEN};

use crate::rules::Color;

/// Black's hue on the wood (a black stone cannot be lit black): blue.
pub const BLACK_HUE: [u8; 3] = [40, 90, 255];
/// White's hue on the wood: warm white.
pub const WHITE_HUE: [u8; 3] = [255, 190, 120];

const AMBER: [u8; 3] = [255, 120, 0];
const RED: [u8; 3] = [255, 0, 0];
const VIOLET: [u8; 3] = [150, 0, 255];
const ORANGE: [u8; 3] = [255, 60, 0];
const DIM_WHITE: [u8; 3] = [70, 70, 70];

/// Brightness and current limits of the LEDs (the `[leds]` section of the config file).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, utoipa::ToSchema)]
pub struct LedSettings {
    /// Global brightness, 0 (off) to 255 (full): every colour is scaled by it first.
    pub brightness: u8,
    /// The most current the LEDs may draw for colour, mA: a frame whose colours at their peak
    /// would draw more is scaled down until it does not ([`budget`](super::budget)).
    pub max_current_ma: u32,
    /// Current of one colour channel at full scale (255), mA: about 20 for WS2812 and APA102,
    /// so 60 mA for one LED at full white.
    pub channel_ma: u32,
}

impl Default for LedSettings {
    /// Half brightness, 2 A, 20 mA per channel.
    fn default() -> Self {
        LedSettings {
            brightness: 128,
            max_current_ma: 2_000,
            channel_ma: 20,
        }
    }
}

/// A palette entry of a frame: index = the wire index (PROTOCOL.md §5.6). Entry 0 is off.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
#[repr(u8)]
pub enum Slot {
    /// Off.
    Off = 0,
    /// A star point: dim white, breathing while the link is lost.
    Star,
    /// Black's last move: soft blue.
    LastBlack,
    /// White's last move: soft warm white.
    LastWhite,
    /// A stone to lift: amber, blinking once a second.
    Remove,
    /// The next stone to lift: bright amber, blinking twice a second.
    RemoveNext,
    /// A black stone to put back: blue.
    RestoreBlack,
    /// A white stone to put back: warm white.
    RestoreWhite,
    /// The next black stone to put back: bright blue, breathing.
    RestoreBlackNext,
    /// The next white stone to put back: bright warm white, breathing.
    RestoreWhiteNext,
    /// The ko point: violet.
    Ko,
    /// An illegal stone: red, blinking.
    Illegal,
    /// A dead stone at the count: orange.
    Dead,
    /// Black's territory: dim blue.
    TerritoryBlack,
    /// White's territory: dim warm white.
    TerritoryWhite,
    /// A dame point: the two hues mixed, dim.
    Shared,
}

impl Slot {
    /// Every slot in wire order.
    pub const ALL: [Slot; PALETTE_LEN] = [
        Slot::Off,
        Slot::Star,
        Slot::LastBlack,
        Slot::LastWhite,
        Slot::Remove,
        Slot::RemoveNext,
        Slot::RestoreBlack,
        Slot::RestoreWhite,
        Slot::RestoreBlackNext,
        Slot::RestoreWhiteNext,
        Slot::Ko,
        Slot::Illegal,
        Slot::Dead,
        Slot::TerritoryBlack,
        Slot::TerritoryWhite,
        Slot::Shared,
    ];

    /// The palette index.
    pub const fn index(self) -> u8 {
        self as u8
    }

    /// The slot of a palette index (0..16).
    pub fn from_index(index: u8) -> Slot {
        Slot::ALL
            .get(usize::from(index))
            .copied()
            .unwrap_or(Slot::Off)
    }

    /// One character for text diagrams (the demo's terminal, `leds test`, golden files):
    /// `.` off, `+` star, `b`/`w` last move, `r`/`R` remove (next), `p`/`q` restore black /
    /// white, `P`/`Q` the next one, `k` ko, `!` illegal, `d` dead, `X`/`O` territory, `=`
    /// shared.
    pub const fn symbol(self) -> char {
        match self {
            Slot::Off => '.',
            Slot::Star => '+',
            Slot::LastBlack => 'b',
            Slot::LastWhite => 'w',
            Slot::Remove => 'r',
            Slot::RemoveNext => 'R',
            Slot::RestoreBlack => 'p',
            Slot::RestoreWhite => 'q',
            Slot::RestoreBlackNext => 'P',
            Slot::RestoreWhiteNext => 'Q',
            Slot::Ko => 'k',
            Slot::Illegal => '!',
            Slot::Dead => 'd',
            Slot::TerritoryBlack => 'X',
            Slot::TerritoryWhite => 'O',
            Slot::Shared => '=',
        }
    }

    /// Whether the slot asks the players for something (lift, put back, an illegal stone) or
    /// shows the count, as opposed to information (star points, the last move, the ko point).
    pub const fn is_guidance(self) -> bool {
        !matches!(
            self,
            Slot::Off | Slot::Star | Slot::LastBlack | Slot::LastWhite | Slot::Ko
        )
    }

    /// The restore slot in `color`'s hue.
    pub fn restore(color: Color, next: bool) -> Slot {
        match (color, next) {
            (Color::Black, false) => Slot::RestoreBlack,
            (Color::White, false) => Slot::RestoreWhite,
            (Color::Black, true) => Slot::RestoreBlackNext,
            (Color::White, true) => Slot::RestoreWhiteNext,
        }
    }

    /// The colour at full brightness (before [`LedSettings::brightness`] and the budget) and
    /// the effect. `link_up` and `storage_ok` change the star points only (breathing while the
    /// link is lost, blinking red while the store does not take the record).
    pub fn paint(self, link_up: bool, storage_ok: bool) -> LedPaint {
        use LedEffect::*;
        let (rgb, effect) = match self {
            Slot::Off => ([0, 0, 0], Steady),
            Slot::Star if !storage_ok => (scale(RED, 110), Blink { period_ds: 20 }),
            Slot::Star if link_up => (DIM_WHITE, Steady),
            Slot::Star => (DIM_WHITE, Breathe { period_ds: 30 }),
            Slot::LastBlack => (scale(BLACK_HUE, 90), Steady),
            Slot::LastWhite => (scale(WHITE_HUE, 90), Steady),
            Slot::Remove => (scale(AMBER, 160), Blink { period_ds: 10 }),
            Slot::RemoveNext => (AMBER, Blink { period_ds: 5 }),
            Slot::RestoreBlack => (scale(BLACK_HUE, 160), Steady),
            Slot::RestoreWhite => (scale(WHITE_HUE, 160), Steady),
            Slot::RestoreBlackNext => (BLACK_HUE, Breathe { period_ds: 15 }),
            Slot::RestoreWhiteNext => (WHITE_HUE, Breathe { period_ds: 15 }),
            Slot::Ko => (scale(VIOLET, 140), Steady),
            Slot::Illegal => (RED, Blink { period_ds: 4 }),
            Slot::Dead => (scale(ORANGE, 180), Steady),
            Slot::TerritoryBlack => (scale(BLACK_HUE, 70), Steady),
            Slot::TerritoryWhite => (scale(WHITE_HUE, 70), Steady),
            Slot::Shared => (scale(mix(BLACK_HUE, WHITE_HUE), 70), Steady),
        };
        LedPaint { rgb, effect }
    }
}

/// `rgb × level / 255` per channel.
pub(super) const fn scale(rgb: [u8; 3], level: u8) -> [u8; 3] {
    let l = level as u16;
    [
        (rgb[0] as u16 * l / 255) as u8,
        (rgb[1] as u16 * l / 255) as u8,
        (rgb[2] as u16 * l / 255) as u8,
    ]
}

const fn mix(a: [u8; 3], b: [u8; 3]) -> [u8; 3] {
    [
        ((a[0] as u16 + b[0] as u16) / 2) as u8,
        ((a[1] as u16 + b[1] as u16) / 2) as u8,
        ((a[2] as u16 + b[2] as u16) / 2) as u8,
    ]
}
