//! The players' buttons: raw contact levels, sampled by the firmware (every millisecond or
//! so), to presses counted as PROTOCOL.md §7 says. A contact bounces for a few milliseconds
//! when pressed and released; a level counts only once it has held for
//! [`STABLE_MS`], and a press is counted once when the button goes down, however long it is
//! held.

use smartgoban_protocol::{Button, ButtonCounters, Side};

/// A contact level must hold this long (ms) before it counts.
pub const STABLE_MS: u32 = 5;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Contact {
    /// The level that counts.
    down: bool,
    /// The level last sampled, and since when (board ms).
    raw: bool,
    since: u32,
}

/// The six buttons' debouncing and their press counters, in the wire order of
/// [`ButtonCounters::ORDER`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Buttons {
    contacts: [Contact; 6],
    counters: ButtonCounters,
}

impl Buttons {
    /// Every button up, no press counted.
    pub fn new() -> Buttons {
        Buttons::default()
    }

    /// Takes one sample of the six contacts (`true`: pressed, in the order of
    /// [`ButtonCounters::ORDER`]) at board time `now_ms` (a wrapping millisecond clock);
    /// returns the counters. Samples must come in time order, closer than 49 days apart.
    pub fn sample(&mut self, pressed: [bool; 6], now_ms: u32) -> ButtonCounters {
        for ((contact, &raw), &(button, side)) in self
            .contacts
            .iter_mut()
            .zip(&pressed)
            .zip(&ButtonCounters::ORDER)
        {
            if raw != contact.raw {
                contact.raw = raw;
                contact.since = now_ms;
            } else if raw != contact.down && now_ms.wrapping_sub(contact.since) >= STABLE_MS {
                contact.down = raw;
                if raw {
                    self.counters.record_press(button, side);
                }
            }
        }
        self.counters
    }

    /// The counters so far.
    pub fn counters(&self) -> ButtonCounters {
        self.counters
    }

    /// A new session (a `HelloAck`): the counters start again from 0 (§7); a button held
    /// down now is not counted again.
    pub fn restart(&mut self) {
        self.counters = ButtonCounters::ZERO;
    }

    /// Whether `button` of `side` is down (debounced).
    pub fn is_down(&self, button: Button, side: Side) -> bool {
        ButtonCounters::ORDER
            .iter()
            .position(|&b| b == (button, side))
            .and_then(|i| self.contacts.get(i))
            .is_some_and(|c| c.down)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Samples every 100 µs rounded to ms clock ticks: `levels(t_tenths_ms)` for the clock
    /// button of Black, starting at board time `start`.
    fn run(buttons: &mut Buttons, start: u32, tenths: u32, level: impl Fn(u32) -> bool) {
        for t in 0..tenths {
            let mut pressed = [false; 6];
            pressed[4] = level(t);
            buttons.sample(pressed, start.wrapping_add(t / 10));
        }
    }

    #[test]
    fn a_bouncing_press_held_and_released_counts_once() {
        let mut b = Buttons::new();
        // down at 10 ms, bouncing for 3 ms (toggling every 0.3 ms), held 200 ms, released
        // with 2 ms of bounce
        run(&mut b, 0, 3000, |t| match t {
            0..=99 => false,
            100..=129 => (t / 3) % 2 == 0,
            130..=2099 => true,
            2100..=2119 => (t / 2) % 2 == 0,
            _ => false,
        });
        assert_eq!(b.counters().clock_black, 1);
        assert_eq!(b.counters().clock_white, 0);
        assert!(!b.is_down(Button::Clock, Side::Black));
    }

    #[test]
    fn spikes_shorter_than_the_stable_time_are_not_presses_and_quick_presses_all_count() {
        let mut b = Buttons::new();
        // 3 ms spikes every 50 ms: nothing
        run(&mut b, 0, 5000, |t| t % 500 < 30);
        assert_eq!(b.counters().clock_black, 0);
        // five presses of 20 ms, 30 ms apart
        run(&mut b, 500, 2500, |t| t % 500 < 200);
        assert_eq!(b.counters().clock_black, 5);
    }

    #[test]
    fn the_millisecond_clock_wraps_and_a_restart_counts_from_zero() {
        let mut b = Buttons::new();
        run(&mut b, u32::MAX - 20, 600, |t| (100..400).contains(&t));
        assert_eq!(b.counters().clock_black, 1);
        assert!(!b.is_down(Button::Clock, Side::Black));
        // held across a restart: not counted again
        run(&mut b, 100, 200, |t| t >= 50);
        assert!(b.is_down(Button::Clock, Side::Black));
        b.restart();
        run(&mut b, 120, 200, |_| true);
        assert_eq!(b.counters(), ButtonCounters::ZERO);
        // 300 presses wrap the counter as the protocol says
        let mut many = Buttons::new();
        for k in 0..300u32 {
            run(&mut many, k * 40, 400, |t| t < 200);
        }
        assert_eq!(many.counters().clock_black, (300 % 256) as u8);
    }
}
