//! Oversampling: one point's reading in a scan from several ADC conversions, and the running
//! statistics of a point's readings over many scans (the noise the calibration reports).
//!
//! Readings are RP2040 ADC counts: 12 bits, `0..=`[`ADC_MAX`], for 0 to 3.3 V at the sensor's
//! output (a linear Hall sensor sits at half the supply with no field).

/// The largest ADC reading (12 bits).
pub const ADC_MAX: u16 = 4095;

/// Most conversions [`trimmed_mean`] takes for one reading (more are ignored).
pub const MAX_SAMPLES: usize = 32;

/// One reading from `samples`, the conversions of one point in one scan (in counts): the mean of
/// the middle half, so that a spike from the multiplexer switching or a USB burst moves nothing
/// (a quarter of the samples, rounded down, are dropped at each end). `None` when there are no
/// samples. Only the first [`MAX_SAMPLES`] are used; values above [`ADC_MAX`] count as
/// [`ADC_MAX`].
pub fn trimmed_mean(samples: &[u16]) -> Option<u16> {
    let mut sorted = [0u16; MAX_SAMPLES];
    let n = samples.len().min(MAX_SAMPLES);
    for (slot, &s) in sorted.iter_mut().zip(samples) {
        *slot = s.min(ADC_MAX);
    }
    let used = sorted.get_mut(..n)?;
    if used.is_empty() {
        return None;
    }
    used.sort_unstable();
    let cut = n / 4;
    let middle = used.get(cut..n - cut)?;
    let sum: u32 = middle.iter().map(|&s| u32::from(s)).sum();
    let len = middle.len() as u32; // at least 1: n - 2·⌊n/4⌋ ≥ 1 for n ≥ 1
    u16::try_from((sum + len / 2) / len).ok()
}

/// Running statistics of one point's readings over many scans: how many, their mean, their
/// spread (standard deviation) and their range, in counts. Integer arithmetic only (the
/// RP2040 has no floating-point unit); exact for up to 2^20 readings.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    n: u32,
    sum: u64,
    sum_sq: u64,
    min: u16,
    max: u16,
}

impl Stats {
    /// No readings yet.
    pub const fn new() -> Stats {
        Stats {
            n: 0,
            sum: 0,
            sum_sq: 0,
            min: u16::MAX,
            max: 0,
        }
    }

    /// Adds one reading (counts). Past 2^20 readings nothing more is added.
    pub fn push(&mut self, reading: u16) {
        if self.n >= 1 << 20 {
            return;
        }
        let r = reading.min(ADC_MAX);
        self.n += 1;
        self.sum += u64::from(r);
        self.sum_sq += u64::from(r) * u64::from(r);
        self.min = self.min.min(r);
        self.max = self.max.max(r);
    }

    /// How many readings.
    pub const fn count(&self) -> u32 {
        self.n
    }

    /// Their mean, rounded (counts); `None` before the first.
    pub fn mean(&self) -> Option<u16> {
        let n = u64::from(self.n);
        (n > 0).then(|| u16::try_from((self.sum + n / 2) / n).unwrap_or(ADC_MAX))
    }

    /// Their standard deviation, rounded down (counts); 0 for fewer than two.
    pub fn std_dev(&self) -> u16 {
        let n = u64::from(self.n);
        if n < 2 {
            return 0;
        }
        // n·Σx² − (Σx)² = n²·variance; both terms fit in u64 for n ≤ 2^20 and x ≤ 4095.
        let spread = (n * self.sum_sq).saturating_sub(self.sum * self.sum);
        u16::try_from(isqrt(spread / (n * n))).unwrap_or(u16::MAX)
    }

    /// The lowest and highest reading; `None` before the first.
    pub fn range(&self) -> Option<(u16, u16)> {
        (self.n > 0).then_some((self.min, self.max))
    }
}

/// ⌊√v⌋ by Newton's method on integers.
fn isqrt(v: u64) -> u64 {
    if v < 2 {
        return v;
    }
    let mut x = v;
    let mut y = x.div_ceil(2);
    while y < x {
        x = y;
        y = (x + v / x) / 2;
    }
    x
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_spike_in_the_samples_does_not_move_the_reading() {
        assert_eq!(trimmed_mean(&[2000; 8]), Some(2000));
        // one conversion caught the multiplexer switching, another a USB burst
        assert_eq!(
            trimmed_mean(&[2000, 2001, 4095, 1999, 2000, 0, 2002, 1998]),
            Some(2000)
        );
        assert_eq!(trimmed_mean(&[7]), Some(7));
        assert_eq!(trimmed_mean(&[10, 20]), Some(15));
        assert_eq!(trimmed_mean(&[]), None);
        assert_eq!(trimmed_mean(&[u16::MAX; 3]), Some(ADC_MAX));
        // more than MAX_SAMPLES: the rest is ignored
        let mut many = [100u16; 40];
        many[35] = 4000;
        assert_eq!(trimmed_mean(&many), Some(100));
    }

    #[test]
    fn statistics_of_readings() {
        let mut s = Stats::new();
        assert_eq!((s.mean(), s.std_dev(), s.range()), (None, 0, None));
        for r in [1000, 1002, 998, 1004, 996] {
            s.push(r);
        }
        assert_eq!(s.count(), 5);
        assert_eq!(s.mean(), Some(1000));
        // variance (0 + 4 + 4 + 16 + 16) / 5 = 8: σ = 2.83
        assert_eq!(s.std_dev(), 2);
        assert_eq!(s.range(), Some((996, 1004)));
        let mut flat = Stats::new();
        for _ in 0..1000 {
            flat.push(ADC_MAX);
        }
        assert_eq!((flat.mean(), flat.std_dev()), (Some(ADC_MAX), 0));
    }

    #[test]
    fn integer_square_roots() {
        for v in [0u64, 1, 2, 3, 4, 15, 16, 17, 99, 100, 1 << 40, u64::MAX / 3] {
            let r = isqrt(v);
            assert!(
                r * r <= v && (r + 1).checked_mul(r + 1).is_none_or(|s| s > v),
                "{v}"
            );
        }
    }
}
