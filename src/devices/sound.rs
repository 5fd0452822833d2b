//! The timekeeper's voice (C3.2): each `call` event spoken from a folder of clips (English or
//! Mandarin, `assets/voice/`), or — with no sound device — beeped on a buzzer. [`Announcer`]
//! is the small trait; [`ClipVoice`] plays clips with `aplay`, [`PwmBuzzer`] drives a buzzer
//! on the Pi's PWM through rppal, [`SimAnnouncer`] keeps what it was asked to say.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use crate::rules::Color;

/// One call to announce (the `call` event).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SpokenCall {
    /// Whose time.
    pub color: Color,
    /// What the clock says (`30`, `40`, …, `1` … `10`, `60`).
    pub text: String,
    /// Chinese counting: reserve minutes left.
    pub minutes_left: Option<u32>,
    /// Byo-yomi: periods left.
    pub periods_left: Option<u32>,
    /// The call ends a unit (period).
    pub unit_end: bool,
}

impl SpokenCall {
    /// The clips that say it, in order: the number; the end of a unit says the minutes (or
    /// periods) left instead; the end of the last one adds "time is up" to its `10`.
    pub fn clips(&self) -> Vec<String> {
        let left = self.minutes_left.or(self.periods_left);
        match (self.unit_end, left) {
            (true, Some(n)) if n > 0 => {
                let kind = if self.minutes_left.is_some() {
                    "minutes"
                } else {
                    "periods"
                };
                vec![format!("{kind}-left-{}", n.min(10))]
            }
            (true, _) => vec![self.text.clone(), "timeup".into()],
            (false, _) => vec![self.text.clone()],
        }
    }

    /// The buzzer's pattern, (on ms, off ms) pairs: one short beep for a count, two for a
    /// ten-second call, a long one for a unit end, three long ones at time up.
    pub fn beeps(&self) -> Vec<(u64, u64)> {
        match self.clips().as_slice() {
            [_, up] if up == "timeup" => vec![(600, 200); 3],
            [c] if c.contains("left") => vec![(500, 100)],
            [c] if c.parse::<u32>().is_ok_and(|n| n < 10) => vec![(80, 0)],
            _ => vec![(120, 120), (120, 0)],
        }
    }
}

/// Why a call could not be announced.
#[derive(Debug, thiserror::Error)]
#[error("announcer: {0}")]
pub struct SoundError(pub String);

/// Speaks (or beeps) calls. Must not block: announcing happens beside the service's loop.
pub trait Announcer: Send {
    /// Announces `call`.
    fn announce(&mut self, call: &SpokenCall) -> Result<(), SoundError>;
}

/// Clips played one after the other with `aplay` (ALSA) from `dir` (`assets/voice/en` or
/// `…/zh`); if a clip is missing or `aplay` cannot run, the fallback (a buzzer) beeps.
pub struct ClipVoice {
    dir: PathBuf,
    fallback: Option<Box<dyn Announcer>>,
}

impl ClipVoice {
    /// Clips from `dir`, beeping on `fallback` when they cannot be played.
    pub fn new(dir: &Path, fallback: Option<Box<dyn Announcer>>) -> ClipVoice {
        ClipVoice {
            dir: dir.to_path_buf(),
            fallback,
        }
    }

    /// The files for `call`, or `None` if one is missing.
    pub fn files(&self, call: &SpokenCall) -> Option<Vec<PathBuf>> {
        call.clips()
            .iter()
            .map(|c| {
                let f = self.dir.join(format!("{c}.wav"));
                f.is_file().then_some(f)
            })
            .collect()
    }
}

impl Announcer for ClipVoice {
    fn announce(&mut self, call: &SpokenCall) -> Result<(), SoundError> {
        let played = self.files(call).and_then(|files| {
            std::process::Command::new("aplay")
                .arg("-q")
                .args(&files)
                .stdin(std::process::Stdio::null())
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::null())
                .spawn()
                .ok()
        });
        match (played, &mut self.fallback) {
            (Some(mut child), _) => {
                // reap it beside the loop
                std::thread::spawn(move || child.wait());
                Ok(())
            }
            (None, Some(buzzer)) => buzzer.announce(call),
            (None, None) => Err(SoundError(format!(
                "no clip or no player for `{}`",
                call.text
            ))),
        }
    }
}

/// A piezo buzzer on one of the Pi's hardware PWM channels (rppal), 2 kHz at half duty.
pub struct PwmBuzzer {
    pwm: Arc<Mutex<rppal::pwm::Pwm>>,
}

impl PwmBuzzer {
    /// The buzzer on PWM `channel` (0 or 1).
    ///
    /// # Errors
    /// No PWM (not a Pi, overlay not enabled): a message for people.
    pub fn new(channel: u8) -> Result<PwmBuzzer, String> {
        let channel = match channel {
            0 => rppal::pwm::Channel::Pwm0,
            1 => rppal::pwm::Channel::Pwm1,
            c => return Err(format!("PWM channel {c}: use 0 or 1")),
        };
        let pwm = rppal::pwm::Pwm::with_frequency(
            channel,
            2_000.0,
            0.5,
            rppal::pwm::Polarity::Normal,
            false,
        )
        .map_err(|e| format!("PWM: {e}"))?;
        Ok(PwmBuzzer {
            pwm: Arc::new(Mutex::new(pwm)),
        })
    }
}

impl Announcer for PwmBuzzer {
    fn announce(&mut self, call: &SpokenCall) -> Result<(), SoundError> {
        let pattern = call.beeps();
        let pwm = self.pwm.clone();
        std::thread::spawn(move || {
            for (on, off) in pattern {
                if let Ok(p) = pwm.lock() {
                    let _ = p.enable();
                }
                std::thread::sleep(std::time::Duration::from_millis(on));
                if let Ok(p) = pwm.lock() {
                    let _ = p.disable();
                }
                std::thread::sleep(std::time::Duration::from_millis(off));
            }
        });
        Ok(())
    }
}

/// Keeps every call it was asked to announce (demo, tests).
#[derive(Clone, Debug, Default)]
pub struct SimAnnouncer {
    said: Arc<Mutex<Vec<SpokenCall>>>,
}

impl SimAnnouncer {
    /// Nothing said yet.
    pub fn new() -> SimAnnouncer {
        SimAnnouncer::default()
    }

    /// Every call so far.
    pub fn said(&self) -> Vec<SpokenCall> {
        self.said.lock().map(|s| s.clone()).unwrap_or_default()
    }
}

impl Announcer for SimAnnouncer {
    fn announce(&mut self, call: &SpokenCall) -> Result<(), SoundError> {
        self.said
            .lock()
            .map_err(|_| SoundError("poisoned".into()))?
            .push(call.clone());
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(text: &str, minutes: Option<u32>, periods: Option<u32>) -> SpokenCall {
        let left = minutes.or(periods);
        SpokenCall {
            color: Color::Black,
            text: text.into(),
            minutes_left: minutes,
            periods_left: periods,
            // as the clock makes them: a unit ends at 60 s (or 30 s periods), or at the 10
            unit_end: text == "60" || (text == "10" && left == Some(0)),
        }
    }

    #[test]
    fn every_call_of_every_system_has_its_clips_in_both_languages() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/voice");
        let mut calls = Vec::new();
        for t in ["30", "40", "50", "55", "58", "20", "10"] {
            calls.push(call(t, Some(3), None));
        }
        for n in 1..=9 {
            calls.push(call(&n.to_string(), Some(1), None));
        }
        calls.push(call("10", Some(0), None));
        for n in 1..=12 {
            calls.push(call("60", Some(n), None));
            calls.push(call("60", None, Some(n)));
        }
        for lang in ["en", "zh"] {
            let voice = ClipVoice::new(&root.join(lang), None);
            for c in &calls {
                assert!(voice.files(c).is_some(), "{lang}: no clip for {c:?}");
            }
        }
        assert_eq!(call("60", Some(4), None).clips(), ["minutes-left-4"]);
        assert_eq!(call("10", Some(0), None).clips(), ["10", "timeup"]);
        assert_eq!(call("60", None, Some(2)).clips(), ["periods-left-2"]);
    }

    #[test]
    fn without_clips_the_buzzer_beeps() {
        let sim = SimAnnouncer::new();
        let mut voice = ClipVoice::new(Path::new("/nonexistent"), Some(Box::new(sim.clone())));
        voice.announce(&call("30", Some(2), None)).unwrap();
        assert_eq!(sim.said().len(), 1);
        assert_eq!(call("10", Some(0), None).beeps().len(), 3);
        assert_eq!(call("5", Some(1), None).beeps(), [(80, 0)]);
        assert!(ClipVoice::new(Path::new("/nonexistent"), None)
            .announce(&call("30", None, None))
            .is_err());
    }
}
