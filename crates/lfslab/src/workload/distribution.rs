//! Access distributions for random offsets, in fio's `random_distribution`
//! syntax (fio(1)): `random` (uniform), `zipf:theta`, `pareto:h`, and
//! `zoned:access%/range%:...`. Plus fio-style size parsing.
//!
//! Zipf uses rejection-inversion sampling (Hörmann & Derflinger, "Rejection-
//! inversion to generate variates from monotone discrete distributions",
//! ACM TOMACS 1996), O(1) per sample for any exponent > 0. Ranks are then
//! scattered over the address space by a bijection, as fio hashes zipf and
//! pareto outputs so hot blocks are not all adjacent; a bijection keeps the
//! popularity ranking exact.

use crate::sim::SimRng;

/// fio-style size: bytes, or k/m/g/t (powers of 1024) with optional "b"/"ib".
pub fn parse_size(s: &str) -> Result<u64, String> {
    let bad = || format!("{s:?} is not a size (expected a number with optional k/m/g/t suffix)");
    let t = s.trim();
    if t.is_empty() || t.starts_with('-') {
        return Err(bad());
    }
    let split = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (num, suffix) = t.split_at(split);
    let n: u64 = num.parse().map_err(|_| bad())?;
    let lower = suffix.to_ascii_lowercase();
    let unit = lower.trim_end_matches("ib").trim_end_matches('b');
    let mult: u64 = match unit {
        "" => 1,
        "k" => 1 << 10,
        "m" => 1 << 20,
        "g" => 1 << 30,
        "t" => 1 << 40,
        _ => return Err(bad()),
    };
    if !suffix.is_empty() && unit.is_empty() && lower != "b" {
        return Err(bad());
    }
    n.checked_mul(mult).ok_or_else(|| format!("{s:?} overflows 64 bits"))
}

#[derive(Clone, Debug, PartialEq)]
pub struct Zone {
    pub access_pct: f64,
    pub range_pct: f64,
}

#[derive(Clone, Debug, PartialEq)]
pub enum AccessDistribution {
    Uniform,
    Zipf { theta: f64 },
    Pareto { h: f64 },
    Zoned(Vec<Zone>),
}

impl AccessDistribution {
    pub fn parse(s: &str) -> Result<Self, String> {
        let t = s.trim();
        let (kind, arg) = t.split_once(':').unwrap_or((t, ""));
        let num = |a: &str| a.trim().parse::<f64>().map_err(|_| format!("{s:?}: {a:?} is not a number"));
        match kind {
            "random" if arg.is_empty() => Ok(AccessDistribution::Uniform),
            "zipf" => {
                let theta = num(arg)?;
                if !(theta.is_finite() && theta > 0.0) {
                    return Err(format!("{s:?}: zipf exponent must be > 0"));
                }
                Ok(AccessDistribution::Zipf { theta })
            }
            "pareto" => {
                let h = num(arg)?;
                if !(h > 0.0 && h < 1.0) {
                    return Err(format!("{s:?}: pareto h must be in (0, 1)"));
                }
                Ok(AccessDistribution::Pareto { h })
            }
            "zoned" => {
                let mut zones = Vec::new();
                for part in arg.split(':') {
                    let (a, r) = part.split_once('/').ok_or_else(|| format!("{s:?}: zone {part:?} is not access/range"))?;
                    let (a, r) = (num(a)?, num(r)?);
                    if !(a > 0.0 && r > 0.0) {
                        return Err(format!("{s:?}: zone {part:?} needs positive percentages"));
                    }
                    zones.push(Zone { access_pct: a, range_pct: r });
                }
                let sa: f64 = zones.iter().map(|z| z.access_pct).sum();
                let sr: f64 = zones.iter().map(|z| z.range_pct).sum();
                if (sa - 100.0).abs() > 1e-6 || (sr - 100.0).abs() > 1e-6 {
                    return Err(format!("{s:?}: access and range percentages must each sum to 100 (got {sa} and {sr})"));
                }
                Ok(AccessDistribution::Zoned(zones))
            }
            _ => Err(format!("{s:?}: unknown distribution; valid: random, zipf:T, pareto:H, zoned:A/R:...")),
        }
    }

    pub fn describe(&self) -> String {
        match self {
            AccessDistribution::Uniform => "random".into(),
            AccessDistribution::Zipf { theta } => format!("zipf:{theta}"),
            AccessDistribution::Pareto { h } => format!("pareto:{h}"),
            AccessDistribution::Zoned(z) => format!(
                "zoned:{}",
                z.iter().map(|z| format!("{}/{}", z.access_pct, z.range_pct)).collect::<Vec<_>>().join(":")
            ),
        }
    }
}

/// Bijective scramble of [0, n): an invertible mix on the enclosing power of
/// two, with cycle-walking back into range.
#[derive(Clone, Debug)]
struct Scatter {
    n: u64,
    mask: u64,
    shift: u32,
    key: u64,
}

impl Scatter {
    fn new(n: u64, key: u64) -> Self {
        let bits = 64 - (n.max(2) - 1).leading_zeros();
        Scatter { n, mask: if bits >= 64 { u64::MAX } else { (1u64 << bits) - 1 }, shift: bits.div_ceil(2).max(1), key }
    }
    #[inline]
    fn round(&self, mut x: u64) -> u64 {
        // Each step is a bijection on [0, 2^bits): odd multiply, add, xorshift.
        for k in 0..3u64 {
            x = x.wrapping_mul(0x9E37_79B9_7F4A_7C15 | 1).wrapping_add(self.key.rotate_left(k as u32 * 21)) & self.mask;
            x ^= x >> self.shift;
        }
        x
    }
    #[inline]
    fn map(&self, r: u64) -> u64 {
        let mut x = self.round(r);
        while x >= self.n {
            x = self.round(x);
        }
        x
    }
}

/// Rejection-inversion Zipf over ranks 1..=n with P(k) ∝ k^-theta.
#[derive(Clone, Debug)]
struct Zipf {
    n: f64,
    theta: f64,
    h_x1: f64,
    h_n: f64,
    s: f64,
}

impl Zipf {
    fn new(n: u64, theta: f64) -> Self {
        let mut z = Zipf { n: n as f64, theta, h_x1: 0.0, h_n: 0.0, s: 0.0 };
        z.h_x1 = z.h(1.5) - 1.0;
        z.h_n = z.h(n as f64 + 0.5);
        z.s = 2.0 - z.h_inv(z.h(2.5) - (2.0f64).powf(-theta));
        z
    }
    /// H(x) = ((x^(1-theta)) - 1) / (1 - theta), log(x) at theta = 1.
    fn h(&self, x: f64) -> f64 {
        let lx = x.ln();
        helper1((1.0 - self.theta) * lx) * lx
    }
    fn h_inv(&self, x: f64) -> f64 {
        let t = (x * (1.0 - self.theta)).max(-1.0);
        (helper2(t) * x).exp()
    }
    fn sample(&self, rng: &mut SimRng) -> u64 {
        loop {
            let u = self.h_n + rng.next_f64() * (self.h_x1 - self.h_n);
            let x = self.h_inv(u);
            let k = (x + 0.5).floor().clamp(1.0, self.n);
            if k - x <= self.s || u >= self.h(k + 0.5) - (-(self.theta) * k.ln()).exp() {
                return k as u64;
            }
        }
    }
}

/// (e^x - 1) / x, stable near 0.
fn helper1(x: f64) -> f64 {
    if x.abs() > 1e-8 {
        x.exp_m1() / x
    } else {
        1.0 + x * 0.5 * (1.0 + x / 3.0 * (1.0 + 0.25 * x))
    }
}
/// ln(1 + x) / x, stable near 0.
fn helper2(x: f64) -> f64 {
    if x.abs() > 1e-8 {
        x.ln_1p() / x
    } else {
        1.0 - x * (0.5 - x * (1.0 / 3.0 - 0.25 * x))
    }
}

enum Kind {
    Uniform,
    Zipf(Zipf, Scatter),
    Pareto { inv: f64, scatter: Scatter },
    Zoned { cum_access: Vec<f64>, starts: Vec<u64>, lens: Vec<u64> },
}

pub struct OffsetSampler {
    n: u64,
    rng: SimRng,
    kind: Kind,
}

impl OffsetSampler {
    pub fn new(dist: &AccessDistribution, n_items: u64, rng: SimRng) -> Self {
        assert!(n_items >= 1, "sampler over an empty range");
        let key = rng.fork("scatter").next_u64();
        let kind = match dist {
            AccessDistribution::Uniform => Kind::Uniform,
            AccessDistribution::Zipf { theta } => Kind::Zipf(Zipf::new(n_items, *theta), Scatter::new(n_items, key)),
            AccessDistribution::Pareto { h } => Kind::Pareto { inv: 1.0 / (1.0 - h), scatter: Scatter::new(n_items, key) },
            AccessDistribution::Zoned(zones) => {
                let mut cum = 0.0;
                let mut cum_access = Vec::new();
                let mut starts = Vec::new();
                let mut lens = Vec::new();
                let mut start = 0u64;
                for (i, z) in zones.iter().enumerate() {
                    cum += z.access_pct / 100.0;
                    cum_access.push(cum);
                    let len = if i + 1 == zones.len() {
                        n_items - start
                    } else {
                        ((n_items as f64 * z.range_pct / 100.0).round() as u64).min(n_items - start)
                    };
                    starts.push(start);
                    lens.push(len);
                    start += len;
                }
                Kind::Zoned { cum_access, starts, lens }
            }
        };
        OffsetSampler { n: n_items, rng, kind }
    }

    /// An item index in [0, n).
    #[inline]
    pub fn sample(&mut self) -> u64 {
        match &self.kind {
            Kind::Uniform => self.rng.below(self.n),
            Kind::Zipf(z, sc) => sc.map(z.sample(&mut self.rng) - 1),
            Kind::Pareto { inv, scatter } => {
                // Rank = n * u^(1/(1-h)): h -> 1 concentrates accesses on low ranks.
                let u = self.rng.next_f64();
                let r = ((self.n as f64) * u.powf(*inv)) as u64;
                scatter.map(r.min(self.n - 1))
            }
            Kind::Zoned { cum_access, starts, lens } => {
                let u = self.rng.next_f64();
                let mut i = cum_access.iter().position(|&c| u < c).unwrap_or(cum_access.len() - 1);
                while lens[i] == 0 {
                    i = (i + 1) % lens.len();
                }
                starts[i] + self.rng.below(lens[i])
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes() {
        assert_eq!(parse_size("4k"), Ok(4096));
        assert_eq!(parse_size("4KiB"), Ok(4096));
        assert_eq!(parse_size("64g"), Ok(64 << 30));
        assert_eq!(parse_size("512"), Ok(512));
        assert_eq!(parse_size("2MB"), Ok(2 << 20));
        for bad in ["", "-4k", "5q", "1.5k", "k", "99999999999t"] {
            assert!(parse_size(bad).is_err(), "{bad:?} accepted");
        }
        assert!(parse_size("5q").unwrap_err().contains("5q"));
    }

    #[test]
    fn parse_round_trip_and_errors() {
        for s in ["random", "zipf:0.99", "zipf:1.2", "pareto:0.9", "zoned:80/20:20/80"] {
            assert_eq!(AccessDistribution::parse(s).unwrap().describe(), s);
        }
        for bad in ["zipf:-1", "zipf:x", "pareto:1.5", "zoned:80/20:10/80", "zoned:80-20", "gauss:1", "random:3"] {
            let e = AccessDistribution::parse(bad).unwrap_err();
            assert!(e.contains(bad), "{e}");
        }
    }

    fn all_dists() -> Vec<AccessDistribution> {
        ["random", "zipf:0.99", "zipf:1.0", "zipf:1.2", "pareto:0.9", "zoned:60/10:30/20:8/30:2/40"]
            .iter()
            .map(|s| AccessDistribution::parse(s).unwrap())
            .collect()
    }

    #[test]
    fn samples_stay_in_range() {
        for d in all_dists() {
            for n in [1u64, 2, 7, 1000, 1 << 20] {
                let mut s = OffsetSampler::new(&d, n, SimRng::new(n));
                for _ in 0..2000 {
                    assert!(s.sample() < n, "{d:?} n={n}");
                }
            }
        }
    }

    #[test]
    fn scatter_is_a_bijection() {
        let sc = Scatter::new(1000, 77);
        let mut seen = vec![false; 1000];
        for r in 0..1000 {
            let x = sc.map(r) as usize;
            assert!(!seen[x], "collision at {x}");
            seen[x] = true;
        }
    }

    #[test]
    fn zipf_rank1_frequency_matches_theory() {
        let n = 1000u64;
        let theta = 0.99;
        let z = Zipf::new(n, theta);
        let mut rng = SimRng::new(5);
        let draws = 200_000;
        let ones = (0..draws).filter(|_| z.sample(&mut rng) == 1).count() as f64 / draws as f64;
        let harmonic: f64 = (1..=n).map(|k| (k as f64).powf(-theta)).sum();
        let want = 1.0 / harmonic;
        assert!((ones - want).abs() / want < 0.15, "rank-1 share {ones} vs {want}");
        // Far above a uniform item's 1/1000.
        assert!(ones > 50.0 / n as f64);
    }

    #[test]
    fn zoned_80_20() {
        let d = AccessDistribution::parse("zoned:80/20:20/80").unwrap();
        let n = 10_000;
        let mut s = OffsetSampler::new(&d, n, SimRng::new(9));
        let hot = (0..100_000).filter(|_| s.sample() < n / 5).count() as f64 / 100_000.0;
        assert!((hot - 0.8).abs() < 0.02, "{hot}");
    }

    #[test]
    fn uniform_is_flat_and_deterministic() {
        let mut a = OffsetSampler::new(&AccessDistribution::Uniform, 10, SimRng::new(3));
        let mut b = OffsetSampler::new(&AccessDistribution::Uniform, 10, SimRng::new(3));
        let mut counts = [0u32; 10];
        for _ in 0..10_000 {
            let x = a.sample();
            assert_eq!(x, b.sample());
            counts[x as usize] += 1;
        }
        assert!(counts.iter().all(|&c| (800..1200).contains(&c)), "{counts:?}");
    }
}
