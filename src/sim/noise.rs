//! Noise models: how untidy the virtual players and sensors are.

use std::ops::RangeInclusive;

/// The named noise models of the `--noise` flag.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum NoiseModel {
    /// No hands, no bounce, no misreads; captured stones lifted together.
    Clean,
    /// A hand over the point for 3–15 scans before and after each placement (covered points
    /// read uncertain, now and then a wrong colour), the new stone bouncing for 1–5 scans,
    /// captured stones lifted one at a time 100–800 ms apart, a one-scan misread somewhere on
    /// the board about every 2,000 scans.
    #[default]
    Realistic,
    /// All of that more often and longer: bigger hands for longer, more wrong colours, longer
    /// bounces, slower lifting, a misread of 1–3 scans about every 400 scans, and now and then
    /// a stone put on a neighbouring point and pushed to its own before it settles.
    Harsh,
    /// Quick players whose moves overlap ([`Tempo`], module [`super::blitz`]): a reply
    /// 0.3–1.2 s after the opponent's stone lands (now and then 40–150 ms: two stones down
    /// together), each hand over its point from 100–400 ms before its stone lands until
    /// 20–300 ms after the opponent's hand reaches in, so some hand is nearly always over the
    /// board; captured stones lifted late, shuffled, one at a time 100–500 ms apart (a third of
    /// captures only after the opponent's next stone is down); bounces of 1–3 scans and the
    /// sensors of `realistic`. A clean game: no act a referee would flag.
    Blitz,
}

impl std::fmt::Display for NoiseModel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            NoiseModel::Clean => "clean",
            NoiseModel::Realistic => "realistic",
            NoiseModel::Harsh => "harsh",
            NoiseModel::Blitz => "blitz",
        })
    }
}

impl std::str::FromStr for NoiseModel {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "clean" => Ok(NoiseModel::Clean),
            "realistic" => Ok(NoiseModel::Realistic),
            "harsh" => Ok(NoiseModel::Harsh),
            "blitz" => Ok(NoiseModel::Blitz),
            other => Err(format!(
                "unknown noise model `{other}` (use clean, realistic, harsh or blitz)"
            )),
        }
    }
}

/// The numbers behind a [`NoiseModel`]. Times in ms of board time, counts in scans (one scan
/// every 20 ms at 50 Hz). Ranges are inclusive and drawn uniformly.
#[derive(Clone, Debug, PartialEq)]
pub struct NoiseParams {
    /// Pause between the end of one move's handling and the next act. Kept well above the
    /// stabiliser's settle time so each move settles on its own.
    pub think_ms: RangeInclusive<u64>,
    /// Scans a hand hovers over the point before the stone is put down (0 = no hand).
    pub hand_before_scans: RangeInclusive<u32>,
    /// Scans the hand stays after the stone is down.
    pub hand_after_scans: RangeInclusive<u32>,
    /// Hand radius in points.
    pub hand_radius: RangeInclusive<u8>,
    /// Chance, in 1/1000 per covered point and scan, that a covered point reads a colour
    /// instead of uncertain.
    pub wrong_colour_per_mille: u32,
    /// Scans a freshly placed stone bounces (0 = none).
    pub bounce_scans: RangeInclusive<u32>,
    /// Delay before each captured stone is lifted, one at a time; `None` = all captured stones
    /// lifted together after the first value of `capture_together_ms`.
    pub capture_gap_ms: Option<RangeInclusive<u64>>,
    /// Delay before captured stones are lifted together (clean model).
    pub capture_together_ms: u64,
    /// Scans a hand hovers over each stone being lifted.
    pub lift_hand_scans: RangeInclusive<u32>,
    /// Mean scans between random misreads of one point (0 = never).
    pub misread_every_scans: u32,
    /// Length of one random misread, in scans (must stay below the settle time).
    pub misread_scans: RangeInclusive<u32>,
    /// Chance, in 1/1000 per move, that the stone is first put on a neighbouring point and
    /// pushed to its own point before it settles.
    pub slide_per_mille: u32,
    /// The players' tempo when their moves overlap ([`super::blitz`]); `None`: one act after
    /// the other, each move settling on its own (the fields above time everything). With a
    /// tempo, the fields above still time the calm parts (setup stones, record moves a board
    /// cannot show, injected violations) and give the hand radius, the wrong colours, the
    /// bounces, the lifting hands and gaps and the misreads of the quick part.
    pub tempo: Option<Tempo>,
    /// `None`: the sensors read cells directly (the classic virtual board). `Some`: the board
    /// is read as the real one, through Hall sensors and the firmware's own logic
    /// ([`super::hall`], `sim --firmware`).
    pub hall: Option<super::hall::HallParams>,
}

/// How quick players overlap their moves ([`NoiseModel::Blitz`], [`super::blitz`]). Times in
/// ms of board time; ranges are inclusive and drawn uniformly; chances in 1/1000.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tempo {
    /// Reply time: the opponent's stone landing to the reply's stone landing.
    pub reply_ms: RangeInclusive<u64>,
    /// Chance per move of a close reply: the replier's hand was already there. One drawn
    /// where the reply cannot be close (captures still to lift, a pass, a calm move) goes to
    /// the next move where it can.
    pub close_reply_per_mille: u32,
    /// Reply time of a close reply (two stones down within 150 ms).
    pub close_reply_ms: RangeInclusive<u64>,
    /// The hand arrives over its point this long before its stone lands.
    pub hand_before_ms: RangeInclusive<u64>,
    /// The hand lifts this long after the opponent's hand arrives over the opponent's point
    /// (and never before its own stone has landed).
    pub hand_stays_ms: RangeInclusive<u64>,
    /// The palm (a hand of the model's radius) covers the points around the stone from its
    /// arrival until this long after the stone lands; the fingers stay over the stone alone
    /// until the hand lifts.
    pub palm_after_ms: RangeInclusive<u64>,
    /// Time a hand takes from one job to the next (from its last hand over the board to its
    /// next stone's hand).
    pub hand_move_ms: RangeInclusive<u64>,
    /// Chance per capture that its stones are lifted only after the opponent's next stone is
    /// down (when that stone does not go on a captured point).
    pub late_capture_per_mille: u32,
    /// A clock press comes this long after the presser's stone lands (later if its captures
    /// are still being lifted or the opponent has not pressed yet).
    pub press_ms: RangeInclusive<u64>,
}

impl Default for Tempo {
    /// The tempo of [`NoiseModel::Blitz`].
    fn default() -> Self {
        Tempo {
            reply_ms: 300..=1200,
            close_reply_per_mille: 30,
            close_reply_ms: 40..=150,
            hand_before_ms: 100..=400,
            hand_stays_ms: 20..=300,
            palm_after_ms: 40..=120,
            hand_move_ms: 50..=150,
            late_capture_per_mille: 333,
            press_ms: 0..=400,
        }
    }
}

impl NoiseModel {
    /// The parameters of this model.
    pub fn params(self) -> NoiseParams {
        match self {
            NoiseModel::Clean => NoiseParams {
                think_ms: 300..=300,
                hand_before_scans: 0..=0,
                hand_after_scans: 0..=0,
                hand_radius: 0..=0,
                wrong_colour_per_mille: 0,
                bounce_scans: 0..=0,
                capture_gap_ms: None,
                capture_together_ms: 100,
                lift_hand_scans: 0..=0,
                misread_every_scans: 0,
                misread_scans: 1..=1,
                slide_per_mille: 0,
                tempo: None,
                hall: None,
            },
            NoiseModel::Realistic => NoiseParams {
                think_ms: 500..=1500,
                hand_before_scans: 3..=15,
                hand_after_scans: 3..=15,
                hand_radius: 0..=1,
                wrong_colour_per_mille: 20,
                bounce_scans: 1..=5,
                capture_gap_ms: Some(100..=800),
                capture_together_ms: 0,
                lift_hand_scans: 3..=8,
                misread_every_scans: 2000,
                misread_scans: 1..=1,
                slide_per_mille: 0,
                tempo: None,
                hall: None,
            },
            NoiseModel::Harsh => NoiseParams {
                think_ms: 800..=2000,
                hand_before_scans: 5..=30,
                hand_after_scans: 5..=30,
                hand_radius: 1..=2,
                wrong_colour_per_mille: 100,
                bounce_scans: 2..=8,
                capture_gap_ms: Some(100..=1200),
                capture_together_ms: 0,
                lift_hand_scans: 5..=15,
                misread_every_scans: 400,
                misread_scans: 1..=3,
                slide_per_mille: 50,
                tempo: None,
                hall: None,
            },
            NoiseModel::Blitz => NoiseParams {
                think_ms: 500..=1500,
                hand_before_scans: 5..=20,
                hand_after_scans: 3..=15,
                hand_radius: 0..=0,
                wrong_colour_per_mille: 20,
                bounce_scans: 1..=3,
                capture_gap_ms: Some(100..=500),
                capture_together_ms: 0,
                lift_hand_scans: 3..=8,
                misread_every_scans: 2000,
                misread_scans: 1..=1,
                slide_per_mille: 0,
                tempo: Some(Tempo::default()),
                hall: None,
            },
        }
    }
}
