//! Where random I/O lands: the access distributions of fio's
//! `random_distribution` option, and fio-style byte-size parsing.
//!
//! Models the four distributions fio(1) documents for `random_distribution`
//! (fio HOWTO, "random_distribution=str"): `random` (uniform), `zipf:theta`,
//! `pareto:h` and `zoned:access%/range%:...`. Sizes follow fio's integer
//! suffixes with `kb_base=1024` (k/m/g/t = powers of 1024, optional "b"/"ib").
//!
//! * Zipf: P(rank k) ∝ k^-theta over ranks 1..=n, sampled in O(1) expected
//!   time for any theta > 0 by rejection-inversion (W. Hörmann and
//!   G. Derflinger, "Rejection-inversion to generate variates from monotone
//!   discrete distributions", ACM TOMACS 6(3), 1996). The integral of the
//!   hat function and its inverse are written through the stable helpers
//!   expm1(x)/x and ln1p(x)/x, so theta = 1 (the logarithmic case) needs no
//!   special branch — the same formulation Apache Commons RNG's
//!   `RejectionInversionZipfSampler` uses (implemented here from the paper's
//!   math).
//! * Pareto: the self-similar "h/(1-h)" law of Gray, Sundaresan, Englert,
//!   Baclawski and Weinberger ("Quickly generating billion-record synthetic
//!   databases", SIGMOD 1994), the same law fio's `pareto` draws from
//!   (fio lib/zipf.c: `pow(rand, log(h)/log(1-h))`): a fraction h of the
//!   accesses go to the hottest fraction (1-h) of the items, recursively.
//!   Here rank = floor(n · u^q) with q = ln(1-h)/ln(h) and u uniform in
//!   [0,1), so rank 0 is hottest; h = 0.5 is uniform, h = 0.9 sends 90% of
//!   accesses to 10% of items (and 81% to 1%).
//! * Zoned: fio's zoned mode — pick a zone by its access percentage, then a
//!   uniform item inside that zone's contiguous slice of the range.
//!
//! fio hashes zipf/pareto ranks so that hot blocks are not all adjacent. A
//! hash modulo n is not a bijection (it merges some ranks and leaves items
//! never addressed), so here ranks are scattered by a keyed *bijection* of
//! [0, n): an invertible mix on the enclosing power of two with cycle-walking
//! back into range (Black and Rogaway, "Ciphers with arbitrary finite
//! domains", CT-RSA 2002). The popularity of every item is therefore exactly
//! that of the rank mapped onto it, while hot items spread over the device.

use crate::sim::SimRng;

/// Parse a fio-style size: plain bytes ("512"), or an integer with a k/m/g/t
/// suffix (powers of 1024), optionally followed by "b" or "ib" in any case
/// ("4k", "4KiB", "2MB", "64g"). A bare "b" suffix means bytes.
pub fn parse_size(s: &str) -> Result<u64, String> {
    let bad = || format!("{s:?} is not a size (expected a number with optional k/m/g/t suffix)");
    let t = s.trim();
    let digits_end = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    if digits_end == 0 {
        return Err(bad());
    }
    let (num, suffix) = t.split_at(digits_end);
    let shift: u32 = match suffix.to_ascii_lowercase().as_str() {
        "" | "b" => 0,
        "k" | "kb" | "kib" => 10,
        "m" | "mb" | "mib" => 20,
        "g" | "gb" | "gib" => 30,
        "t" | "tb" | "tib" => 40,
        _ => return Err(bad()),
    };
    let overflow = || format!("{s:?} is too large (exceeds 2^64 - 1 bytes)");
    let n: u64 = num.parse().map_err(|_| overflow())?;
    n.checked_mul(1u64 << shift).ok_or_else(overflow)
}

/// One zone of a `zoned:` distribution: `access_pct` percent of accesses land
/// uniformly in the next `range_pct` percent of the items.
#[derive(Clone, Debug, PartialEq)]
pub struct Zone {
    pub access_pct: f64,
    pub range_pct: f64,
}

/// fio's `random_distribution`.
#[derive(Clone, Debug, PartialEq)]
pub enum AccessDistribution {
    /// `random`: every item equally likely.
    Uniform,
    /// `zipf:theta`: P(rank k) ∝ k^-theta, theta > 0.
    Zipf { theta: f64 },
    /// `pareto:h`: a fraction h of accesses hit the hottest (1-h) of items, 0 < h < 1.
    Pareto { h: f64 },
    /// `zoned:a/r:...`: zones laid out in order from item 0.
    Zoned(Vec<Zone>),
}

const DIST_SYNTAX: &str = "expected random, zipf:THETA, pareto:H or zoned:ACCESS/RANGE:...";

fn parse_number(whole: &str, text: &str) -> Result<f64, String> {
    match text.trim().parse::<f64>() {
        Ok(v) if v.is_finite() => Ok(v),
        _ => Err(format!("{whole:?}: {text:?} is not a finite number")),
    }
}

impl AccessDistribution {
    /// Parse fio `random_distribution` syntax.
    pub fn parse(s: &str) -> Result<Self, String> {
        let t = s.trim();
        let (kind, arg) = match t.split_once(':') {
            Some((k, a)) => (k.trim(), Some(a)),
            None => (t, None),
        };
        match (kind, arg) {
            ("random", None) => Ok(AccessDistribution::Uniform),
            ("random", Some(a)) => Err(format!("{s:?}: \"random\" takes no parameter (got {a:?})")),
            ("zipf" | "pareto" | "zoned", None) => {
                Err(format!("{s:?}: {kind} needs a parameter ({DIST_SYNTAX})"))
            }
            ("zipf", Some(a)) => {
                let theta = parse_number(s, a)?;
                if theta <= 0.0 {
                    return Err(format!("{s:?}: zipf exponent {a:?} must be > 0"));
                }
                Ok(AccessDistribution::Zipf { theta })
            }
            ("pareto", Some(a)) => {
                let h = parse_number(s, a)?;
                if !(h > 0.0 && h < 1.0) {
                    return Err(format!("{s:?}: pareto h {a:?} must be strictly between 0 and 1"));
                }
                Ok(AccessDistribution::Pareto { h })
            }
            ("zoned", Some(a)) => {
                let mut zones = Vec::new();
                for part in a.split(':') {
                    let (acc, range) = part
                        .split_once('/')
                        .ok_or_else(|| format!("{s:?}: zone {part:?} is not ACCESS%/RANGE%"))?;
                    let access_pct = parse_number(s, acc)?;
                    let range_pct = parse_number(s, range)?;
                    if access_pct <= 0.0 || range_pct <= 0.0 {
                        return Err(format!("{s:?}: zone {part:?} needs both percentages > 0"));
                    }
                    zones.push(Zone { access_pct, range_pct });
                }
                let sa: f64 = zones.iter().map(|z| z.access_pct).sum();
                let sr: f64 = zones.iter().map(|z| z.range_pct).sum();
                if (sa - 100.0).abs() > 1e-6 {
                    return Err(format!("{s:?}: access percentages sum to {sa}, not 100"));
                }
                if (sr - 100.0).abs() > 1e-6 {
                    return Err(format!("{s:?}: range percentages sum to {sr}, not 100"));
                }
                Ok(AccessDistribution::Zoned(zones))
            }
            _ => Err(format!("{s:?} is not a random_distribution ({DIST_SYNTAX})")),
        }
    }

    /// The canonical fio string; `parse(d.describe()) == d`.
    pub fn describe(&self) -> String {
        match self {
            AccessDistribution::Uniform => "random".to_string(),
            AccessDistribution::Zipf { theta } => format!("zipf:{theta}"),
            AccessDistribution::Pareto { h } => format!("pareto:{h}"),
            AccessDistribution::Zoned(zones) => {
                let parts: Vec<String> =
                    zones.iter().map(|z| format!("{}/{}", z.access_pct, z.range_pct)).collect();
                format!("zoned:{}", parts.join(":"))
            }
        }
    }
}

// ---------------------------------------------------------------------------
// Rank scattering: a keyed bijection of [0, n).

const SCRAMBLE_ROUNDS: usize = 4;
const SCRAMBLE_MULS: [u64; SCRAMBLE_ROUNDS] =
    [0x9E37_79B9_7F4A_7C15, 0xBF58_476D_1CE4_E5B9, 0x94D0_49BB_1331_11EB, 0xD6E8_FEB8_6659_FD93];

/// Permutation of [0, n). On [0, P), P = the smallest power of two >= n, each
/// round is `x = (x * odd + key) mod P` (odd multiply and add are bijections
/// mod 2^b) then `x ^= x >> shift` (xorshift-right is invertible and stays
/// below P); the composition is a bijection on [0, P). Values landing in
/// [n, P) are walked along their cycle until they fall back below n, which
/// restricts the permutation to a bijection on [0, n). Since P < 2n the
/// expected number of walks is below 2.
#[derive(Clone, Debug)]
struct Scramble {
    n: u64,
    mask: u64,
    shift: u32,
    keys: [u64; SCRAMBLE_ROUNDS],
}

impl Scramble {
    fn new(n: u64, seed: u64) -> Self {
        let bits = if n <= 1 { 0 } else { 64 - (n - 1).leading_zeros() };
        let mask = if bits >= 64 { u64::MAX } else { (1u64 << bits) - 1 };
        let mut keys = [0u64; SCRAMBLE_ROUNDS];
        let mut key_rng = SimRng::new(seed);
        for k in keys.iter_mut() {
            *k = key_rng.next_u64() & mask;
        }
        Scramble { n, mask, shift: bits.div_ceil(2).max(1), keys }
    }

    #[inline]
    fn permute(&self, mut x: u64) -> u64 {
        for (mul, key) in SCRAMBLE_MULS.iter().zip(&self.keys) {
            x = x.wrapping_mul(*mul).wrapping_add(*key) & self.mask;
            x ^= x >> self.shift;
        }
        x
    }

    /// Item index for 0-based rank `r < n`.
    #[inline]
    fn map(&self, r: u64) -> u64 {
        debug_assert!(r < self.n);
        let mut x = self.permute(r);
        while x >= self.n {
            x = self.permute(x);
        }
        x
    }
}

// ---------------------------------------------------------------------------
// Zipf by rejection-inversion.

/// expm1(x)/x, continuous at 0 (Taylor 1 + x/2 + x²/6 + x³/24 near 0).
#[inline]
fn expm1_over_x(x: f64) -> f64 {
    if x.abs() > 1e-8 {
        x.exp_m1() / x
    } else {
        1.0 + 0.5 * x * (1.0 + x / 3.0 * (1.0 + 0.25 * x))
    }
}

/// ln1p(x)/x, continuous at 0 (Taylor 1 - x/2 + x²/3 - x³/4 near 0).
#[inline]
fn ln1p_over_x(x: f64) -> f64 {
    if x.abs() > 1e-8 {
        x.ln_1p() / x
    } else {
        1.0 - x * (0.5 - x * (1.0 / 3.0 - 0.25 * x))
    }
}

/// Zipf over ranks 1..=n with weights h(k) = k^-theta. The hat is the
/// continuous h(x) = x^-theta with integral
/// H(x) = (x^(1-theta) - 1)/(1-theta) = ln(x) · expm1((1-theta)ln x)/((1-theta)ln x),
/// which is ln(x) at theta = 1, and inverse
/// H⁻¹(y) = exp(y · ln1p((1-theta)y)/((1-theta)y)).
/// A uniform u on (H(1.5) - h(1), H(n + 0.5)] is inverted to x and rounded to
/// k; k is accepted if u >= H(k + 0.5) - h(k), i.e. u fell in the part of
/// k's hat interval [H(k-0.5)..H(k+0.5)] of width exactly h(k). The quick test
/// k - x <= s accepts without evaluating H (Hörmann & Derflinger, §4).
#[derive(Clone, Debug)]
struct Zipf {
    n: f64,
    theta: f64,
    h_int_x1: f64,
    h_int_n: f64,
    s: f64,
}

impl Zipf {
    fn new(n: u64, theta: f64) -> Self {
        assert!(theta > 0.0 && theta.is_finite(), "zipf exponent must be > 0");
        let mut z = Zipf { n: n as f64, theta, h_int_x1: 0.0, h_int_n: 0.0, s: 0.0 };
        z.h_int_x1 = z.h_int(1.5) - 1.0;
        z.h_int_n = z.h_int(n as f64 + 0.5);
        z.s = 2.0 - z.h_int_inv(z.h_int(2.5) - z.h(2.0));
        z
    }

    #[inline]
    fn h(&self, x: f64) -> f64 {
        (-self.theta * x.ln()).exp()
    }

    #[inline]
    fn h_int(&self, x: f64) -> f64 {
        let lx = x.ln();
        expm1_over_x((1.0 - self.theta) * lx) * lx
    }

    #[inline]
    fn h_int_inv(&self, y: f64) -> f64 {
        // (1-theta)y > -1 mathematically on the sampled range; clamp rounding.
        let t = ((1.0 - self.theta) * y).max(-1.0);
        (ln1p_over_x(t) * y).exp()
    }

    /// A rank in 1..=n.
    #[inline]
    fn sample(&self, rng: &mut SimRng) -> u64 {
        loop {
            let u = self.h_int_n + rng.next_f64() * (self.h_int_x1 - self.h_int_n);
            let x = self.h_int_inv(u);
            // f64::max/min ignore NaN, so k is always a valid rank.
            let k = (x + 0.5).floor().max(1.0).min(self.n);
            if k - x <= self.s || u >= self.h_int(k + 0.5) - self.h(k) {
                return k as u64;
            }
        }
    }
}

// ---------------------------------------------------------------------------
// The sampler.

/// A zone's slice of items with its cumulative access probability.
#[derive(Clone, Debug)]
struct ZoneSpan {
    cum: f64,
    start: u64,
    len: u64,
}

#[derive(Clone, Debug)]
enum Kind {
    Uniform,
    Zipf(Zipf, Scramble),
    /// rank = floor(n · u^q), q = ln(1-h)/ln(h).
    Pareto { q: f64, scramble: Scramble },
    Zoned(Vec<ZoneSpan>),
}

/// Draws item indices in [0, n) from an [`AccessDistribution`]. O(1) per
/// sample (O(zones) for zoned), no allocation after construction.
#[derive(Clone, Debug)]
pub struct OffsetSampler {
    n: u64,
    rng: SimRng,
    kind: Kind,
}

impl OffsetSampler {
    /// A sampler over items 0..n_items. The scatter key is taken from a fork
    /// of `rng`, so it does not consume the sample stream.
    pub fn new(dist: &AccessDistribution, n_items: u64, rng: SimRng) -> OffsetSampler {
        assert!(n_items >= 1, "OffsetSampler over zero items");
        let n = n_items;
        let scramble = || Scramble::new(n, rng.fork("scatter").next_u64());
        let kind = match dist {
            AccessDistribution::Uniform => Kind::Uniform,
            AccessDistribution::Zipf { theta } => Kind::Zipf(Zipf::new(n, *theta), scramble()),
            AccessDistribution::Pareto { h } => {
                assert!(*h > 0.0 && *h < 1.0, "pareto h must be in (0, 1)");
                Kind::Pareto { q: (1.0 - h).ln() / h.ln(), scramble: scramble() }
            }
            AccessDistribution::Zoned(zones) => Kind::Zoned(zone_spans(zones, n)),
        };
        OffsetSampler { n, rng, kind }
    }

    /// Number of items sampled over.
    pub fn n_items(&self) -> u64 {
        self.n
    }

    /// An item index in [0, n_items).
    #[inline]
    pub fn sample(&mut self) -> u64 {
        match &self.kind {
            Kind::Uniform => self.rng.below(self.n),
            Kind::Zipf(z, sc) => sc.map(z.sample(&mut self.rng) - 1),
            Kind::Pareto { q, scramble } => scramble.map(pareto_rank(self.n, *q, &mut self.rng)),
            Kind::Zoned(spans) => {
                let u = self.rng.next_f64();
                let z = spans.iter().find(|z| u < z.cum).unwrap_or(&spans[spans.len() - 1]);
                z.start + self.rng.below(z.len)
            }
        }
    }
}

#[inline]
fn pareto_rank(n: u64, q: f64, rng: &mut SimRng) -> u64 {
    let r = (n as f64 * rng.next_f64().powf(q)) as u64;
    r.min(n - 1)
}

/// Lay zones out in order from item 0. Boundaries are rounded from the
/// cumulative range percentage (so rounding never drifts) and the last zone
/// ends at n, covering every item. A zone that rounds to zero items (n smaller
/// than the zone count) hands its access share to the next non-empty zone, or
/// the previous one if it is last, so every draw still lands on an item.
fn zone_spans(zones: &[Zone], n: u64) -> Vec<ZoneSpan> {
    assert!(!zones.is_empty(), "zoned distribution without zones");
    let total_range: f64 = zones.iter().map(|z| z.range_pct).sum();
    let total_access: f64 = zones.iter().map(|z| z.access_pct).sum();
    let mut raw: Vec<(f64, u64, u64)> = Vec::with_capacity(zones.len()); // (access, start, len)
    let (mut cum_range, mut start) = (0.0, 0u64);
    for (i, z) in zones.iter().enumerate() {
        cum_range += z.range_pct;
        let end = if i + 1 == zones.len() {
            n
        } else {
            ((n as f64 * cum_range / total_range).round() as u64).clamp(start, n)
        };
        raw.push((z.access_pct, start, end - start));
        start = end;
    }
    let mut spans: Vec<ZoneSpan> = Vec::with_capacity(raw.len());
    let mut carried = 0.0;
    let mut cum = 0.0;
    for &(access, start, len) in &raw {
        if len == 0 {
            carried += access;
            continue;
        }
        cum += (access + carried) / total_access;
        carried = 0.0;
        spans.push(ZoneSpan { cum, start, len });
    }
    // Trailing empty zones' share goes to the last non-empty zone; the last
    // threshold is infinite so rounding in the cumulative sums cannot leak.
    let last = spans.last_mut().expect("n >= 1 gives at least one non-empty zone");
    last.cum = f64::INFINITY;
    spans
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all_dists() -> Vec<AccessDistribution> {
        [
            "random",
            "zipf:0.99",
            "zipf:1",
            "zipf:1.2",
            "zipf:0.2",
            "zipf:3.5",
            "pareto:0.9",
            "pareto:0.3",
            "zoned:60/10:30/20:8/30:2/40",
            "zoned:80/20:20/80",
        ]
        .iter()
        .map(|s| AccessDistribution::parse(s).unwrap())
        .collect()
    }

    fn zipf_pmf(n: u64, theta: f64, k: u64) -> f64 {
        let hn: f64 = (1..=n).map(|i| (i as f64).powf(-theta)).sum();
        (k as f64).powf(-theta) / hn
    }

    #[test]
    fn sizes_parse() {
        assert_eq!(parse_size("512"), Ok(512));
        assert_eq!(parse_size("0"), Ok(0));
        assert_eq!(parse_size("4k"), Ok(4096));
        assert_eq!(parse_size("4K"), Ok(4096));
        assert_eq!(parse_size("4KiB"), Ok(4096));
        assert_eq!(parse_size("4kib"), Ok(4096));
        assert_eq!(parse_size("4kB"), Ok(4096));
        assert_eq!(parse_size("2MB"), Ok(2 << 20));
        assert_eq!(parse_size("64g"), Ok(64 << 30));
        assert_eq!(parse_size("3T"), Ok(3 << 40));
        assert_eq!(parse_size("100b"), Ok(100));
        assert_eq!(parse_size(" 8m "), Ok(8 << 20));
        assert_eq!(parse_size("16777215t"), Ok(16_777_215 << 40));
    }

    #[test]
    fn sizes_reject_with_the_bad_text() {
        for bad in [
            "", " ", "-4k", "+4k", "5q", "1.5k", "4.k", "k", "kib", "4kk", "4kbb", "4kibib", "4 k",
            "4x", "0x10", "4ib", "16777216t", "99999999999999999999", "18446744073709551616",
        ] {
            let e = parse_size(bad).expect_err(bad);
            assert!(e.contains(&format!("{bad:?}")), "error for {bad:?} does not quote it: {e}");
        }
        assert_eq!(
            parse_size("5q").unwrap_err(),
            "\"5q\" is not a size (expected a number with optional k/m/g/t suffix)"
        );
        assert_eq!(parse_size("18446744073709551615"), Ok(u64::MAX));
    }

    #[test]
    fn distributions_round_trip() {
        for s in ["random", "zipf:0.99", "zipf:1", "zipf:1.2", "pareto:0.9", "zoned:60/10:30/20:8/30:2/40", "zoned:80/20:20/80"]
        {
            let d = AccessDistribution::parse(s).unwrap();
            assert_eq!(d.describe(), s);
            assert_eq!(AccessDistribution::parse(&d.describe()).unwrap(), d);
        }
        assert_eq!(AccessDistribution::parse("random").unwrap(), AccessDistribution::Uniform);
        assert_eq!(AccessDistribution::parse("zipf:1.0").unwrap(), AccessDistribution::Zipf { theta: 1.0 });
        assert_eq!(AccessDistribution::parse("pareto:0.5").unwrap(), AccessDistribution::Pareto { h: 0.5 });
        assert_eq!(
            AccessDistribution::parse("zoned:80/20:20/80").unwrap(),
            AccessDistribution::Zoned(vec![
                Zone { access_pct: 80.0, range_pct: 20.0 },
                Zone { access_pct: 20.0, range_pct: 80.0 }
            ])
        );
        // Percentages need only sum to 100 within 1e-6.
        assert!(AccessDistribution::parse("zoned:33.3333333/50:66.6666667/50").is_ok());
    }

    #[test]
    fn distribution_errors_quote_the_text() {
        for bad in [
            "",
            "gauss:1",
            "random:3",
            "zipf",
            "zipf:",
            "zipf:x",
            "zipf:0",
            "zipf:-1",
            "zipf:inf",
            "zipf:NaN",
            "pareto:0",
            "pareto:1",
            "pareto:1.5",
            "pareto:-0.2",
            "zoned",
            "zoned:",
            "zoned:80-20",
            "zoned:80/20:10/80",
            "zoned:80/20:20/70",
            "zoned:100/0:0/100",
            "zoned:80/20:20/abc",
        ] {
            let e = AccessDistribution::parse(bad).expect_err(bad);
            assert!(e.contains(&format!("{bad:?}")), "error for {bad:?} does not quote it: {e}");
        }
        let e = AccessDistribution::parse("zoned:80/20:20/abc").unwrap_err();
        assert!(e.contains("\"abc\""), "{e}");
        let e = AccessDistribution::parse("zoned:80-20").unwrap_err();
        assert!(e.contains("\"80-20\""), "{e}");
    }

    #[test]
    fn samples_stay_in_range() {
        for d in all_dists() {
            for n in [1u64, 2, 3, 7, 1000, 1 << 20, (1 << 40) + 12345, u64::MAX] {
                let mut s = OffsetSampler::new(&d, n, SimRng::new(n ^ 0x5eed));
                for _ in 0..5000 {
                    let x = s.sample();
                    assert!(x < n, "{} n={n} gave {x}", d.describe());
                }
            }
        }
    }

    #[test]
    fn small_n_reaches_every_item() {
        for d in all_dists() {
            for n in [2u64, 3, 7] {
                let mut s = OffsetSampler::new(&d, n, SimRng::new(11));
                let mut seen = vec![false; n as usize];
                for _ in 0..200_000 {
                    seen[s.sample() as usize] = true;
                }
                assert!(seen.iter().all(|&b| b), "{} n={n} misses items: {seen:?}", d.describe());
            }
        }
    }

    #[test]
    fn uniform_is_flat() {
        let n = 100u64;
        let draws = 200_000u64;
        let mut s = OffsetSampler::new(&AccessDistribution::Uniform, n, SimRng::new(3));
        let mut counts = vec![0u64; n as usize];
        for _ in 0..draws {
            counts[s.sample() as usize] += 1;
        }
        let expect = draws as f64 / n as f64;
        let chi2: f64 = counts.iter().map(|&c| (c as f64 - expect).powi(2) / expect).sum();
        // 99 degrees of freedom: mean 99, sd ~14; 200 is far out in the tail.
        assert!(chi2 < 200.0, "chi-square {chi2}");
    }

    #[test]
    fn scramble_is_a_bijection() {
        for n in [1u64, 2, 3, 7, 1000, 1024, 1025, 65_537] {
            for seed in [0u64, 77, u64::MAX] {
                let sc = Scramble::new(n, seed);
                let mut seen = vec![false; n as usize];
                for r in 0..n {
                    let x = sc.map(r);
                    assert!(x < n);
                    assert!(!seen[x as usize], "n={n} seed={seed}: collision at {x}");
                    seen[x as usize] = true;
                }
            }
        }
        // And it does spread neighbours: the 16 hottest ranks are not a block.
        let sc = Scramble::new(1 << 20, 5);
        let top: Vec<u64> = (0..16).map(|r| sc.map(r)).collect();
        let span = top.iter().max().unwrap() - top.iter().min().unwrap();
        assert!(span > 1 << 16, "hot ranks clustered: {top:?}");
    }

    #[test]
    fn zipf_rank_frequencies_match_theory() {
        let n = 1000u64;
        let draws = 400_000u64;
        for theta in [0.2, 0.5, 0.99, 1.0, 1.2, 2.0, 3.5] {
            let z = Zipf::new(n, theta);
            let mut rng = SimRng::new(5);
            let mut counts = vec![0u64; n as usize + 1];
            for _ in 0..draws {
                let k = z.sample(&mut rng);
                assert!((1..=n).contains(&k));
                counts[k as usize] += 1;
            }
            for k in 1..=4u64 {
                let want = zipf_pmf(n, theta, k);
                let got = counts[k as usize] as f64 / draws as f64;
                // Only check ranks with enough expected hits to be meaningful.
                if want * draws as f64 > 2000.0 {
                    assert!((got - want).abs() / want < 0.1, "theta={theta} rank {k}: {got} vs {want}");
                }
            }
            // The tail half of the ranks, in aggregate.
            let want_tail: f64 = (n / 2 + 1..=n).map(|k| zipf_pmf(n, theta, k)).sum();
            let got_tail = counts[(n / 2 + 1) as usize..].iter().sum::<u64>() as f64 / draws as f64;
            if want_tail * draws as f64 > 2000.0 {
                assert!((got_tail - want_tail).abs() / want_tail < 0.1, "theta={theta} tail: {got_tail} vs {want_tail}");
            }
        }
    }

    #[test]
    fn zipf_099_hottest_item_through_the_sampler() {
        let n = 1000u64;
        let theta = 0.99;
        let draws = 300_000u64;
        let rng = SimRng::new(42);
        let mut s = OffsetSampler::new(&AccessDistribution::Zipf { theta }, n, rng.clone());
        let mut counts = vec![0u64; n as usize];
        for _ in 0..draws {
            counts[s.sample() as usize] += 1;
        }
        let (hot, &hot_count) = counts.iter().enumerate().max_by_key(|&(_, c)| *c).unwrap();
        // The hottest item is where rank 1 was scattered to.
        let sc = Scramble::new(n, rng.fork("scatter").next_u64());
        assert_eq!(hot as u64, sc.map(0));
        let share = hot_count as f64 / draws as f64;
        let want = 1.0 / (1..=n).map(|k| (k as f64).powf(-theta)).sum::<f64>();
        assert!((share - want).abs() / want < 0.15, "rank-1 share {share} vs theory {want}");
        // A uniform item would get 1/n; rank 1 gets over 100 times that.
        assert!(share > 100.0 / n as f64, "{share}");
        // The median item is far colder than the hottest.
        let mut sorted = counts.clone();
        sorted.sort_unstable();
        assert!(sorted[n as usize / 2] * 50 < hot_count);
    }

    #[test]
    fn zipf_theta_one_and_above_work() {
        for theta in [1.0, 1.2] {
            let n = 1 << 20;
            let mut s = OffsetSampler::new(&AccessDistribution::Zipf { theta }, n, SimRng::new(8));
            let draws = 200_000u64;
            let mut hits = std::collections::HashMap::new();
            for _ in 0..draws {
                let x = s.sample();
                assert!(x < n);
                *hits.entry(x).or_insert(0u64) += 1;
            }
            let top = *hits.values().max().unwrap() as f64 / draws as f64;
            let want = 1.0 / (1..=n).map(|k| (k as f64).powf(-theta)).sum::<f64>();
            assert!((top - want).abs() / want < 0.15, "theta={theta}: {top} vs {want}");
        }
    }

    #[test]
    fn pareto_h_share_goes_to_hottest_one_minus_h() {
        for h in [0.9, 0.8, 0.3] {
            let n = 100_000u64;
            let q = (1.0f64 - h).ln() / h.ln();
            let mut rng = SimRng::new(21);
            let draws = 200_000;
            let hot_ranks = ((1.0 - h) * n as f64) as u64;
            let hot = (0..draws).filter(|_| pareto_rank(n, q, &mut rng) < hot_ranks).count() as f64 / draws as f64;
            assert!((hot - h).abs() < 0.01, "h={h}: {hot} of accesses in hottest {hot_ranks}");
        }
        // pareto:0.5 is uniform over ranks.
        let mut rng = SimRng::new(1);
        let low = (0..100_000).filter(|_| pareto_rank(1000, 1.0, &mut rng) < 500).count();
        assert!((48_500..51_500).contains(&low), "{low}");
    }

    #[test]
    fn zoned_80_20() {
        let d = AccessDistribution::parse("zoned:80/20:20/80").unwrap();
        for n in [10_000u64, 1 << 20, 1001] {
            let mut s = OffsetSampler::new(&d, n, SimRng::new(9));
            let draws = 200_000;
            let cut = (n as f64 * 0.2).round() as u64;
            let hot = (0..draws).filter(|_| s.sample() < cut).count() as f64 / draws as f64;
            assert!((hot - 0.8).abs() < 0.02, "n={n}: {hot}");
        }
    }

    #[test]
    fn zoned_layout_covers_every_item() {
        let zones = match AccessDistribution::parse("zoned:60/10:30/20:8/30:2/40").unwrap() {
            AccessDistribution::Zoned(z) => z,
            _ => unreachable!(),
        };
        for n in [1u64, 2, 3, 7, 10, 999, 1000, 1 << 30] {
            let spans = zone_spans(&zones, n);
            let mut next = 0;
            for sp in &spans {
                assert_eq!(sp.start, next);
                assert!(sp.len > 0);
                next += sp.len;
            }
            assert_eq!(next, n, "n={n}");
            assert_eq!(spans.last().unwrap().cum, f64::INFINITY);
        }
        let spans = zone_spans(&zones, 1000);
        let lens: Vec<u64> = spans.iter().map(|s| s.len).collect();
        assert_eq!(lens, vec![100, 200, 300, 400]);
        // n=1: the 60% and 30% zones round empty and pass their share on.
        let spans = zone_spans(&zones, 1);
        assert_eq!(spans.len(), 1);
    }

    #[test]
    fn deterministic_per_seed() {
        for d in all_dists() {
            let mut a = OffsetSampler::new(&d, 1 << 20, SimRng::new(99));
            let mut b = OffsetSampler::new(&d, 1 << 20, SimRng::new(99));
            let mut c = OffsetSampler::new(&d, 1 << 20, SimRng::new(100));
            let va: Vec<u64> = (0..1000).map(|_| a.sample()).collect();
            let vb: Vec<u64> = (0..1000).map(|_| b.sample()).collect();
            let vc: Vec<u64> = (0..1000).map(|_| c.sample()).collect();
            assert_eq!(va, vb, "{}", d.describe());
            assert_ne!(va, vc, "{}", d.describe());
        }
    }
}
