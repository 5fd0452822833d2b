//! Clock faces: one 4-digit display per player showing that player's clock (issue "Game
//! clock", hardware). [`ClockFace`] is the small trait the service drives; [`Tm1637Face`]
//! drives a TM1637 4-digit LED module through embedded-hal pins (rppal on the Pi, a mock in
//! tests); [`SimFace`] keeps the last frame for the demo and tests, and can be told to drop
//! its link for a while.

use crate::clock::Reading;

/// What a face shows: four characters and the colon.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FaceFrame {
    /// Left to right: a digit 0–9, `None` blank, `Some(DASH)` a dash.
    pub digits: [Option<u8>; 4],
    /// The colon between the second and third digit.
    pub colon: bool,
}

/// A dash in [`FaceFrame::digits`].
pub const DASH: u8 = 10;

impl FaceFrame {
    /// The frame for one side's reading:
    /// * main time of an hour or more: `H:MM` (hours, minutes);
    /// * main time under an hour: `MM:SS`;
    /// * overtime: periods (or Canadian stones, up to 9; more shows 9), a blank, then the
    ///   seconds left in the period (`3 25`); 100 s or more: `P:MM` minutes… of the period as
    ///   `MM:SS` when there are no periods to show;
    /// * flag fallen: `----`.
    ///
    /// Seconds are rounded up: a clock shows `0:01` until the last millisecond is gone.
    pub fn of(r: &Reading) -> FaceFrame {
        let digit = |n: u64| Some((n % 10) as u8);
        if r.expired {
            return FaceFrame {
                digits: [Some(DASH); 4],
                colon: false,
            };
        }
        let mmss = |s: u64| FaceFrame {
            digits: [
                digit(s / 600),
                digit(s / 60 % 10),
                digit(s % 60 / 10),
                digit(s % 10),
            ],
            colon: true,
        };
        if r.overtime && r.periods > 0 {
            let s = r.period_ms.div_ceil(1000);
            let p = u64::from(r.periods.min(9));
            return if s < 100 {
                FaceFrame {
                    digits: [digit(p), None, digit(s / 10), digit(s)],
                    colon: false,
                }
            } else {
                let mut f = mmss(s);
                f.digits[0] = digit(p);
                f
            };
        }
        let s = r.main_ms.div_ceil(1000);
        if s >= 3600 {
            let m = s / 60;
            FaceFrame {
                digits: [None, digit(m / 60), digit(m % 60 / 10), digit(m % 10)],
                colon: true,
            }
        } else {
            mmss(s)
        }
    }

    /// The segment bytes of a TM1637 module (bit 0 = segment a … bit 6 = g, bit 7 = the colon
    /// on the second digit).
    pub fn segments(&self) -> [u8; 4] {
        const DIGITS: [u8; 11] = [
            0x3f, 0x06, 0x5b, 0x4f, 0x66, 0x6d, 0x7d, 0x07, 0x7f, 0x6f, 0x40,
        ];
        let mut out = self
            .digits
            .map(|d| d.map_or(0, |d| DIGITS[usize::from(d.min(DASH))]));
        if self.colon {
            out[1] |= 0x80;
        }
        out
    }
}

/// Why a face could not be written.
#[derive(Debug, thiserror::Error)]
#[error("clock face: {0}")]
pub struct FaceError(pub String);

/// A player's clock display.
pub trait ClockFace: Send {
    /// Shows `frame`. A face that fails keeps failing quietly until it answers again; the
    /// service keeps time regardless and writes the next frame when it can.
    fn show(&mut self, frame: FaceFrame) -> Result<(), FaceError>;
}

/// A TM1637 4-digit module on two GPIO pins (CLK, DIO) with a delay, written against the
/// embedded-hal 1.0 traits (rppal's pins with its `hal` feature on the Pi).
pub struct Tm1637Face<CLK, DIO, D> {
    tm: tm1637_embedded_hal::TM1637<4, tm1637_embedded_hal::tokens::Blocking, CLK, DIO, D>,
    ready: bool,
}

impl<CLK, DIO, D, E> Tm1637Face<CLK, DIO, D>
where
    CLK: embedded_hal::digital::OutputPin<Error = E>,
    DIO: embedded_hal::digital::OutputPin<Error = E>,
    D: embedded_hal::delay::DelayNs,
    E: std::fmt::Debug,
{
    /// The module on `clk`/`dio`, bit delay 100 µs.
    pub fn new(clk: CLK, dio: DIO, delay: D) -> Self {
        let tm = tm1637_embedded_hal::TM1637Builder::new(clk, dio, delay)
            .brightness(tm1637_embedded_hal::Brightness::L5)
            .delay_us(100)
            .build_blocking::<4>();
        Tm1637Face { tm, ready: false }
    }
}

impl<CLK, DIO, D, E> ClockFace for Tm1637Face<CLK, DIO, D>
where
    CLK: embedded_hal::digital::OutputPin<Error = E> + Send,
    DIO: embedded_hal::digital::OutputPin<Error = E> + Send,
    D: embedded_hal::delay::DelayNs + Send,
    E: std::fmt::Debug,
{
    fn show(&mut self, frame: FaceFrame) -> Result<(), FaceError> {
        let err = |e| FaceError(format!("{e:?}"));
        if !self.ready {
            self.tm.init().map_err(err)?;
            self.ready = true;
        }
        self.tm.display_slice(0, &frame.segments()).map_err(|e| {
            self.ready = false;
            err(e)
        })
    }
}

/// The simulated face: keeps every frame it showed; `drop_link` makes it fail for a while
/// (a loose display cable).
#[derive(Clone, Debug, Default)]
pub struct SimFace {
    shown: std::sync::Arc<std::sync::Mutex<SimFaceState>>,
}

#[derive(Debug, Default)]
struct SimFaceState {
    frames: Vec<FaceFrame>,
    failing_until: Option<std::time::Instant>,
    failed_writes: u64,
}

impl SimFace {
    /// A face that works.
    pub fn new() -> SimFace {
        SimFace::default()
    }

    /// Writes fail for `for_time` from now (a loose cable).
    pub fn drop_link(&self, for_time: std::time::Duration) {
        if let Ok(mut s) = self.shown.lock() {
            s.failing_until = Some(std::time::Instant::now() + for_time);
        }
    }

    /// Writes that failed while the link was down.
    pub fn failed_writes(&self) -> u64 {
        self.shown.lock().map(|s| s.failed_writes).unwrap_or(0)
    }

    /// Every frame shown, oldest first.
    pub fn frames(&self) -> Vec<FaceFrame> {
        self.shown
            .lock()
            .map(|s| s.frames.clone())
            .unwrap_or_default()
    }
}

impl ClockFace for SimFace {
    fn show(&mut self, frame: FaceFrame) -> Result<(), FaceError> {
        let mut s = self
            .shown
            .lock()
            .map_err(|_| FaceError("poisoned".into()))?;
        if s.failing_until
            .is_some_and(|t| std::time::Instant::now() < t)
        {
            s.failed_writes += 1;
            return Err(FaceError("link down".into()));
        }
        if s.frames.last() != Some(&frame) {
            s.frames.push(frame);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(main_ms: u64, overtime: bool, period_ms: u64, periods: u32) -> Reading {
        Reading {
            main_ms,
            overtime,
            period_ms,
            periods,
            expired: false,
        }
    }

    #[test]
    fn frames_for_main_time_overtime_and_the_flag() {
        let f = FaceFrame::of(&r(3_600_000 + 23 * 60_000, false, 0, 0));
        assert_eq!(
            (f.digits, f.colon),
            ([None, Some(1), Some(2), Some(3)], true)
        );
        let f = FaceFrame::of(&r(9 * 60_000 + 5_001, false, 0, 0));
        assert_eq!(f.digits, [Some(0), Some(9), Some(0), Some(6)], "rounded up");
        let f = FaceFrame::of(&r(0, true, 25_000, 3));
        assert_eq!(
            (f.digits, f.colon),
            ([Some(3), None, Some(2), Some(5)], false)
        );
        let f = FaceFrame::of(&r(0, true, 300_000, 10));
        assert_eq!(
            (f.digits, f.colon),
            ([Some(9), Some(5), Some(0), Some(0)], true)
        );
        let mut x = r(0, true, 0, 0);
        x.expired = true;
        assert_eq!(FaceFrame::of(&x).digits, [Some(DASH); 4]);
    }

    #[test]
    fn tm1637_segments_are_the_standard_encoding() {
        let f = FaceFrame {
            digits: [Some(1), Some(2), None, Some(DASH)],
            colon: true,
        };
        assert_eq!(f.segments(), [0x06, 0x5b | 0x80, 0x00, 0x40]);
        let f = FaceFrame::of(&r(8 * 60_000, false, 0, 0));
        assert_eq!(f.segments(), [0x3f, 0x7f | 0x80, 0x3f, 0x3f]);
    }

    #[test]
    fn the_tm1637_face_writes_through_embedded_hal_pins() {
        use tm1637_embedded_hal::mock::Noop;
        let mut face = Tm1637Face::new(Noop, Noop, Noop);
        face.show(FaceFrame::of(&r(60_000, false, 0, 0))).unwrap();
    }
}
