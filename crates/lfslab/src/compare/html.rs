//! A self-contained HTML report of a comparison: summary table and inline
//! SVG plots (throughput over time, latency CDF, WAF per layer, FTL memory,
//! GC activity), the simplifications each run states, and the scenarios.
//! Plain SVG written here: no JavaScript, no external files.

use super::Comparison;
use std::fmt::Write;

const COLORS: [&str; 6] = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b"];
const W: f64 = 640.0;
const H: f64 = 300.0;
const LEFT: f64 = 70.0;
const RIGHT: f64 = 20.0;
const TOP: f64 = 30.0;
const BOTTOM: f64 = 45.0;

fn esc(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

/// Round tick values: about `n` steps between `lo` and `hi`.
fn ticks(lo: f64, hi: f64, n: usize) -> Vec<f64> {
    if hi <= lo {
        return vec![lo];
    }
    let raw = (hi - lo) / n as f64;
    let mag = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 5.0, 10.0].iter().map(|m| m * mag).find(|s| *s >= raw).unwrap_or(10.0 * mag);
    let mut v = (lo / step).ceil() * step;
    let mut out = Vec::new();
    while v <= hi + step * 1e-9 {
        out.push(v);
        v += step;
    }
    out
}

fn fmt_tick(v: f64) -> String {
    if v.abs() >= 1e6 {
        format!("{:.1}M", v / 1e6)
    } else if v.abs() >= 1e3 {
        format!("{:.0}K", v / 1e3)
    } else if v.fract().abs() < 1e-9 {
        format!("{v:.0}")
    } else {
        format!("{v:.2}")
    }
}

fn frame(s: &mut String, title: &str, x_label: &str, y_label: &str) {
    let _ = write!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" viewBox="0 0 {W} {H}" font-family="sans-serif" font-size="11">
<text x="{}" y="18" text-anchor="middle" font-size="14" font-weight="bold">{}</text>
<text x="{}" y="{}" text-anchor="middle">{}</text>
<text transform="translate(14,{}) rotate(-90)" text-anchor="middle">{}</text>
"#,
        W / 2.0,
        esc(title),
        LEFT + (W - LEFT - RIGHT) / 2.0,
        H - 8.0,
        esc(x_label),
        TOP + (H - TOP - BOTTOM) / 2.0,
        esc(y_label)
    );
}

fn legend(s: &mut String, names: &[&str]) {
    for (i, n) in names.iter().enumerate() {
        let x = LEFT + 10.0 + i as f64 * 110.0;
        let _ = write!(
            s,
            r#"<rect x="{x}" y="{}" width="12" height="12" fill="{}"/><text x="{}" y="{}">{}</text>"#,
            TOP + 2.0,
            COLORS[i % COLORS.len()],
            x + 16.0,
            TOP + 12.0,
            esc(n)
        );
    }
}

/// The plot frame and the y axis (0..y1) with grid lines.
fn plot_area(s: &mut String, y1: f64) {
    let (pw, ph) = (W - LEFT - RIGHT, H - TOP - BOTTOM);
    let _ = write!(s, r##"<rect x="{LEFT}" y="{TOP}" width="{pw}" height="{ph}" fill="none" stroke="#888"/>"##);
    for t in ticks(0.0, y1, 5) {
        let y = TOP + ph - t / y1 * ph;
        let _ = write!(
            s,
            r##"<line x1="{LEFT}" y1="{y}" x2="{}" y2="{y}" stroke="#eee"/><text x="{}" y="{}" text-anchor="end">{}</text>"##,
            LEFT + pw,
            LEFT - 4.0,
            y + 4.0,
            fmt_tick(t)
        );
    }
}

/// A line chart; `log_x` plots x on a log10 axis (x must be > 0).
pub fn line_chart(title: &str, x_label: &str, y_label: &str, series: &[(&str, Vec<(f64, f64)>)], log_x: bool) -> String {
    let mut s = String::new();
    frame(&mut s, title, x_label, y_label);
    let tx = |x: f64| if log_x { x.max(1e-12).log10() } else { x };
    let pts = series.iter().flat_map(|(_, p)| p.iter());
    let (mut x0, mut x1, mut y1) = (f64::MAX, f64::MIN, 0.0f64);
    for &(x, y) in pts {
        x0 = x0.min(tx(x));
        x1 = x1.max(tx(x));
        y1 = y1.max(y);
    }
    if x0 > x1 {
        (x0, x1) = (0.0, 1.0);
    }
    if x1 - x0 < 1e-12 {
        x1 = x0 + 1.0;
    }
    let y1 = if y1 <= 0.0 { 1.0 } else { y1 * 1.08 };
    let (pw, ph) = (W - LEFT - RIGHT, H - TOP - BOTTOM);
    let px = |x: f64| LEFT + (tx(x) - x0) / (x1 - x0) * pw;
    let py = |y: f64| TOP + ph - y / y1 * ph;
    plot_area(&mut s, y1);
    let xt: Vec<f64> = if log_x { (x0.floor() as i32..=x1.ceil() as i32).map(|e| 10f64.powi(e)).collect() } else { ticks(x0, x1, 6) };
    for t in xt {
        let x = px(t);
        if !(LEFT - 0.5..=LEFT + pw + 0.5).contains(&x) {
            continue;
        }
        let _ = write!(
            s,
            r##"<line x1="{x}" y1="{TOP}" x2="{x}" y2="{}" stroke="#eee"/><text x="{x}" y="{}" text-anchor="middle">{}</text>"##,
            TOP + ph,
            TOP + ph + 14.0,
            fmt_tick(t)
        );
    }
    for (i, (_, p)) in series.iter().enumerate() {
        if p.is_empty() {
            continue;
        }
        let d: Vec<String> = p.iter().map(|&(x, y)| format!("{:.1},{:.1}", px(x), py(y))).collect();
        let _ = write!(
            s,
            r#"<polyline fill="none" stroke="{}" stroke-width="1.8" points="{}"/>"#,
            COLORS[i % COLORS.len()],
            d.join(" ")
        );
    }
    legend(&mut s, &series.iter().map(|(n, _)| *n).collect::<Vec<_>>());
    s.push_str("</svg>\n");
    s
}

/// Grouped bars: one group per category, one bar per series.
pub fn bar_chart(title: &str, y_label: &str, categories: &[&str], series: &[(&str, Vec<f64>)]) -> String {
    let mut s = String::new();
    frame(&mut s, title, "", y_label);
    let y1 = series.iter().flat_map(|(_, v)| v.iter().copied()).fold(0.0f64, f64::max);
    let y1 = if y1 <= 0.0 { 1.0 } else { y1 * 1.15 };
    let (pw, ph) = (W - LEFT - RIGHT, H - TOP - BOTTOM);
    let py = |y: f64| TOP + ph - y / y1 * ph;
    plot_area(&mut s, y1);
    let group_w = pw / categories.len().max(1) as f64;
    let bar_w = group_w * 0.7 / series.len().max(1) as f64;
    for (c, cat) in categories.iter().enumerate() {
        let gx = LEFT + c as f64 * group_w + group_w * 0.15;
        for (i, (_, v)) in series.iter().enumerate() {
            let val = v.get(c).copied().unwrap_or(0.0);
            let x = gx + i as f64 * bar_w;
            let _ = write!(
                s,
                r#"<rect x="{x:.1}" y="{:.1}" width="{:.1}" height="{:.1}" fill="{}"/><text x="{:.1}" y="{:.1}" text-anchor="middle" font-size="10">{}</text>"#,
                py(val),
                bar_w * 0.92,
                TOP + ph - py(val),
                COLORS[i % COLORS.len()],
                x + bar_w * 0.46,
                py(val) - 3.0,
                if val >= 100.0 { format!("{val:.0}") } else { format!("{val:.2}") }
            );
        }
        let _ = write!(s, r#"<text x="{:.1}" y="{}" text-anchor="middle">{}</text>"#, gx + group_w * 0.35, TOP + ph + 14.0, esc(cat));
    }
    if series.len() > 1 {
        legend(&mut s, &series.iter().map(|(n, _)| *n).collect::<Vec<_>>());
    }
    s.push_str("</svg>\n");
    s
}

/// The whole report page.
pub fn render_html(c: &Comparison) -> String {
    render_html_with(c, "")
}

/// The report with `plots` (SVG charts, e.g. an experiment's figures) first
/// among the plots.
pub fn render_html_with(c: &Comparison, plots: &str) -> String {
    let names: Vec<&str> = c.runs.iter().map(|r| r.design.as_str()).collect();
    let mut h = String::new();
    let _ = write!(
        h,
        "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>lfslab: {w}</title>\n<style>\
         body{{font-family:sans-serif;margin:24px;max-width:1340px}} table{{border-collapse:collapse}} \
         td,th{{border:1px solid #ccc;padding:4px 8px;text-align:right}} th{{background:#f4f4f4}} \
         td:first-child{{text-align:left}} .plots{{display:flex;flex-wrap:wrap;gap:12px}} \
         pre{{background:#f8f8f8;padding:8px;overflow-x:auto;font-size:12px}} .note{{color:#555;font-size:13px}}</style></head><body>\n\
         <h1>lfslab comparison: {w}</h1>\n<p>seed {seed}, scale {scale}, designs: {d}. Generated by lfslab {v}; \
         same seed, same numbers.</p>\n",
        w = esc(&c.workload),
        seed = c.seed,
        scale = c.scale,
        d = esc(&names.join(", ")),
        v = env!("CARGO_PKG_VERSION"),
    );
    h.push_str("<h2>Summary</h2>\n<table><tr><th>design</th><th>IOPS</th><th>steady IOPS (last third)</th><th>p99 µs</th><th>p99.99 µs</th><th>FS-WAF</th><th>FTL-WAF</th><th>total WAF</th><th>FTL memory (MiB)</th><th>stalls</th><th>stall time (s)</th><th>device GC victims</th><th>oracle mismatches</th></tr>\n");
    for r in &c.summary {
        let _ = writeln!(
            h,
            "<tr><td>{}</td><td>{:.0}</td><td>{:.0}</td><td>{:.1}</td><td>{:.1}</td><td>{:.3}</td><td>{:.3}</td><td>{:.3}</td><td>{:.2}</td><td>{}</td><td>{:.3}</td><td>{}</td><td>{}</td></tr>",
            esc(&r.design),
            r.iops,
            r.steady_iops,
            r.p99_us,
            r.p9999_us,
            r.fs_waf,
            r.ftl_waf,
            r.total_waf,
            r.ftl_memory_bytes as f64 / (1u64 << 20) as f64,
            r.stalls,
            r.stall_s,
            r.device_gc_victims,
            r.mismatches
        );
    }
    h.push_str("</table>\n<h2>Plots</h2>\n<div class=\"plots\">\n");
    h.push_str(plots);
    let over_time = |f: &dyn Fn(&crate::metrics::Bucket, f64) -> f64| -> Vec<(&str, Vec<(f64, f64)>)> {
        c.runs
            .iter()
            .map(|r| {
                let ts = &r.report.timeseries;
                let width = if ts.len() > 1 { ts[1].t_s - ts[0].t_s } else { 1.0 };
                // The last bucket is partial: leave it out.
                let n = ts.len().saturating_sub(1).max(1).min(ts.len());
                (r.design.as_str(), ts[..n].iter().map(|b| (b.t_s, f(b, width))).collect())
            })
            .collect()
    };
    h.push_str(&line_chart("Throughput over time", "simulated time (s)", "IOPS", &over_time(&|b, w| b.ios as f64 / w), false));
    let cdf: Vec<(&str, Vec<(f64, f64)>)> = c
        .runs
        .iter()
        .map(|r| {
            let d = r.report.jobs.iter().flat_map(|j| [&j.read, &j.write]).max_by_key(|d| d.total_ios);
            let pts = d
                .map(|d| {
                    crate::metrics::PERCENTILES
                        .iter()
                        // y in "nines": 1 = p90, 2 = p99, 4 = p99.99 (the max drawn at 5).
                        .map(|&p| ((d.lat_ns.at(p) as f64 / 1e3).max(0.001), if p >= 100.0 { 5.0 } else { -(1.0 - p / 100.0).log10() }))
                        .collect()
                })
                .unwrap_or_default();
            (r.design.as_str(), pts)
        })
        .collect();
    h.push_str(&line_chart(
        "Latency CDF, tail up (busiest direction)",
        "completion latency (µs, log)",
        "nines: 1 = p90, 2 = p99, 4 = p99.99, 5 = max",
        &cdf,
        true,
    ));
    let waf: Vec<(&str, Vec<f64>)> = vec![
        ("FS", c.summary.iter().map(|r| r.fs_waf).collect()),
        ("FTL", c.summary.iter().map(|r| r.ftl_waf).collect()),
        ("total", c.summary.iter().map(|r| r.total_waf).collect()),
    ];
    h.push_str(&bar_chart("Write amplification per layer", "WAF", &names, &waf));
    let mem = vec![("FTL mapping", c.summary.iter().map(|r| r.ftl_memory_bytes as f64 / (1u64 << 20) as f64).collect())];
    h.push_str(&bar_chart("FTL mapping memory", "MiB", &names, &mem));
    h.push_str(&line_chart("Device GC activity", "simulated time (s)", "victims erased per s", &over_time(&|b, w| b.gc_count as f64 / w), false));
    h.push_str(&line_chart(
        "NAND writes over time",
        "simulated time (s)",
        "MB/s programmed (host + GC)",
        &over_time(&|b, w| b.nand_write_slots as f64 * 4096.0 / w / 1e6),
        false,
    ));
    if let Some(d) = c.runs.iter().find_map(|r| r.report.d2fs.as_ref()) {
        let regions = vec![
            ("regular region", d.regions.iter().map(|s| (s.t_s, s.regular_pct)).collect()),
            ("GC region", d.regions.iter().map(|s| (s.t_s, s.gc_pct)).collect()),
        ];
        h.push_str(&line_chart("D2FS region utilisation (Fig. 11)", "simulated time since the run began (s)", "sections in use (%)", &regions, false));
    }
    let buffers: Vec<(&str, Vec<(f64, f64)>)> = c
        .runs
        .iter()
        .filter_map(|r| r.report.d2fs.as_ref().map(|d| (r.design.as_str(), &d.record_buffer)))
        .filter(|(_, b)| !b.is_empty())
        // 28 B per record, as the artifact's Fig. 17 counts them.
        .map(|(n, b)| (n, b.iter().map(|&(t, k)| (t as f64, k as f64 * 28.0 / 1e6)).collect()))
        .collect();
    if !buffers.is_empty() {
        h.push_str(&line_chart(
            "D2FS migration record buffer (Fig. 17)",
            "simulated time since the run began (s)",
            "MB at 28 B per record (per-second peak after CGC)",
            &buffers,
            false,
        ));
    }
    let trees: Vec<(&str, Vec<(f64, f64)>)> = c
        .runs
        .iter()
        .filter(|r| !r.report.device.mapping_memory_series.is_empty())
        .map(|r| (r.design.as_str(), r.report.device.mapping_memory_series.iter().map(|&(t, b)| (t, b as f64 / (1u64 << 20) as f64)).collect()))
        .collect();
    if !trees.is_empty() {
        h.push_str(&line_chart("Interval Mapping memory", "simulated time since the run began (s)", "MiB", &trees, false));
    }
    h.push_str("</div>\n<h2>Designs, simplifications and scenarios</h2>\n");
    for r in &c.runs {
        let _ = write!(h, "<h3>{}</h3><p>{}</p><ul class=\"note\">", esc(&r.design), esc(&r.description));
        for n in &r.report.simplifications {
            let _ = write!(h, "<li>{}</li>", esc(n));
        }
        let _ = writeln!(
            h,
            "</ul><details><summary>resolved scenario (lfslab run on it repeats this run)</summary><pre>{}</pre></details>",
            esc(&r.scenario_toml)
        );
    }
    h.push_str("</body></html>\n");
    h
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticks_are_round_and_cover_the_range() {
        assert_eq!(ticks(0.0, 100.0, 5), vec![0.0, 20.0, 40.0, 60.0, 80.0, 100.0]);
        // Steps are 1, 2 or 5 x 10^k, never finer than asked for.
        assert_eq!(ticks(0.0, 0.9, 4), vec![0.0, 0.5]);
        assert_eq!(ticks(0.0, 90.0, 4), vec![0.0, 50.0]);
        assert_eq!(ticks(10.0, 30.0, 4), vec![10.0, 15.0, 20.0, 25.0, 30.0]);
    }

    #[test]
    fn charts_are_svg_with_one_shape_per_series() {
        let s = line_chart("t", "x", "y", &[("a", vec![(0.0, 1.0), (1.0, 2.0)]), ("b", vec![(0.0, 2.0), (1.0, 1.0)])], false);
        assert!(s.starts_with("<svg") && s.trim_end().ends_with("</svg>"));
        assert_eq!(s.matches("<polyline").count(), 2);
        let b = bar_chart("t", "y", &["x", "y<z"], &[("s", vec![1.0, 2.0])]);
        assert_eq!(b.matches("<rect x=").count(), 3, "frame + 2 bars");
        assert!(b.contains("y&lt;z"));
    }
}
