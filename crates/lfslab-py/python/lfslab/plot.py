"""The HTML report's figures with matplotlib, drawn from `compare`'s (or
`run`'s) results: throughput over time, latency tail, WAF per layer, FTL
memory, D2FS region use. Each takes an optional ``ax`` and returns it."""

from __future__ import annotations

from typing import Any, Dict, Mapping, Optional, Union

import pandas as pd

from .api import Result

Results = Union[pd.DataFrame, Mapping[str, Result], Result]


def _results(r: Results) -> Dict[str, Result]:
    if isinstance(r, Result):
        return {r.summary.get("design", "run"): r}
    if isinstance(r, pd.DataFrame):
        return dict(r.attrs.get("results", {}))
    return dict(r)


def _ax(ax):
    if ax is None:
        import matplotlib.pyplot as plt

        _, ax = plt.subplots(figsize=(7, 4))
    return ax


def throughput(results: Results, ax=None):
    """MB/s (reads + writes) per time bucket of each design's measured phase."""
    ax = _ax(ax)
    for name, r in _results(results).items():
        ts = r.timeseries
        if ts.empty:
            continue
        width = float(ts["t_s"].diff().median()) if len(ts) > 1 else 1.0
        ax.plot(ts["t_s"], (ts["read_bytes"] + ts["write_bytes"]) / 1e6 / width, label=name)
    ax.set_xlabel("time (s)")
    ax.set_ylabel("MB/s")
    ax.set_title("Throughput over time")
    ax.grid(alpha=0.3)
    ax.legend()
    return ax


def latency_tail(results: Results, ax=None):
    """Latency percentiles of each design's busiest job direction (µs, log scale)."""
    ax = _ax(ax)
    for name, r in _results(results).items():
        lat = r.latency
        if lat.empty:
            continue
        row = lat.sort_values("ios", ascending=False).iloc[0]
        cols = sorted((c for c in lat.columns if c.startswith("p") and c.endswith("_us")), key=lambda c: float(c[1:-3]))
        ax.plot([float(c[1:-3]) for c in cols], [row[c] for c in cols], marker=".", label=name)
    ax.set_xlabel("percentile")
    ax.set_ylabel("latency (µs)")
    ax.set_yscale("log")
    ax.set_title("Latency tail")
    ax.grid(alpha=0.3)
    ax.legend()
    return ax


def waf(summary: pd.DataFrame, ax=None):
    """FS, FTL and total write amplification per design (a `compare` DataFrame)."""
    ax = _ax(ax)
    summary.set_index("design")[["fs_waf", "ftl_waf", "total_waf"]].plot.bar(ax=ax, rot=0)
    ax.set_ylabel("write amplification")
    ax.set_title("WAF per layer")
    return ax


def ftl_memory(summary: pd.DataFrame, ax=None):
    """FTL mapping memory per design (MiB)."""
    ax = _ax(ax)
    (summary.set_index("design")["ftl_memory_bytes"] / 2**20).plot.bar(ax=ax, rot=0)
    ax.set_ylabel("MiB")
    ax.set_title("FTL mapping memory")
    return ax


def region_use(results: Results, ax=None):
    """D2FS: the regular and GC regions' use over time (% of their sections)."""
    ax = _ax(ax)
    for name, r in _results(results).items():
        regions = (r.report.get("d2fs") or {}).get("regions") or []
        if not regions:
            continue
        df = pd.DataFrame(regions)
        ax.plot(df["t_s"], df["regular_pct"], label=f"{name} regular")
        ax.plot(df["t_s"], df["gc_pct"], linestyle="--", label=f"{name} GC region")
    ax.set_xlabel("time (s)")
    ax.set_ylabel("% of the region's sections")
    ax.set_title("D2FS region use")
    ax.grid(alpha=0.3)
    ax.legend()
    return ax
