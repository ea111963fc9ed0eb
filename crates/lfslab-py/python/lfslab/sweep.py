"""Sweeps: a grid of `--set` values times designs times seeds, run in a
local process pool or as Ray tasks, gathered into one tidy DataFrame (one
row per point, design and seed). A point that fails is a row with its
error, not a failed sweep. Results do not depend on the backend: every run
is seeded.

From the shell: ``python -m lfslab sweep sweep.toml [--ray ADDRESS]`` (or
``lfslab sweep`` once the CLI finds this package), with sweep.toml::

    base = "fio-randwrite"        # a built-in, a scenario file, or [base] as a table
    designs = ["d2fs"]            # omit to run the base scenario's own stack
    seeds = [1]
    scale = 1.0
    [grid]
    "fs.vop_regular" = [1.0, 1.2, 1.4, 1.6, 1.8, 2.0]
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import sys
import time
from typing import Any, Dict, List, Mapping, Optional, Sequence

import pandas as pd

from . import _lfslab
from .api import RunError, ScenarioError, _call, _source, overrides_list


def _points(grid: Mapping[str, Sequence[Any]]) -> List[Dict[str, Any]]:
    keys = list(grid)
    for k in keys:
        if isinstance(grid[k], (str, bytes)) or not hasattr(grid[k], "__iter__"):
            raise ScenarioError(f"grid[{k!r}] = {grid[k]!r}: expected a list of values", field=f"grid.{k}", value=repr(grid[k]),
                                reason="expected a list of values")
    return [dict(zip(keys, combo)) for combo in itertools.product(*(list(grid[k]) for k in keys))]


def _task(task: Dict[str, Any]) -> Dict[str, Any]:
    """One point, design and seed; runs in a worker process or a Ray task."""
    row = dict(task["point"])
    row["design"] = task["design"] or "as-given"
    row["seed"] = task["seed"]
    started = time.monotonic()
    try:
        sets = overrides_list(task["point"])
        if task["design"] is None:
            out = json.loads(_call(_lfslab.run, task["kind"], task["text"], task["seed"], sets))
            summary = out["summary"]
        else:
            c = json.loads(_call(_lfslab.compare, task["kind"], task["text"], [task["design"]], task["scale"], task["seed"], sets))
            summary = c["summary"][0]
        summary = {k: v for k, v in summary.items() if k != "design"}
        row.update(summary)
        row["error"] = ""
    except (ScenarioError, RunError) as e:
        row["error"] = f"{type(e).__name__}: {e}"
    row["wall_s"] = round(time.monotonic() - started, 3)
    return row


class _Progress:
    def __init__(self, total: int, enabled: bool):
        self.total, self.done, self.enabled = total, 0, enabled
        self._bar = None
        if enabled:
            try:
                from tqdm import tqdm  # optional
                self._bar = tqdm(total=total, unit="run")
            except ImportError:
                pass

    def step(self, row: Dict[str, Any]) -> None:
        self.done += 1
        if self._bar is not None:
            self._bar.update(1)
        elif self.enabled:
            mark = " FAILED" if row.get("error") else ""
            print(f"\rsweep: {self.done}/{self.total} runs{mark}   ", end="", file=sys.stderr, flush=True)

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()
        elif self.enabled:
            print(file=sys.stderr)


def sweep(
    base: Any,
    grid: Mapping[str, Sequence[Any]],
    designs: Optional[Sequence[str]] = None,
    seeds: Sequence[int] = (1,),
    scale: float = 1.0,
    backend: str = "local",
    address: Optional[str] = None,
    workers: Optional[int] = None,
    progress: bool = True,
) -> pd.DataFrame:
    """Run every combination of ``grid`` (dotted scenario keys to lists of
    values) on each design and seed. ``base`` is what `run` takes: a
    built-in, a path or a dict. ``designs`` None runs the base scenario's
    own stack. ``backend`` "local" uses a process pool of ``workers``
    (default: the cores); "ray" submits one Ray task per run (``ray.init(
    address=address)`` unless Ray is already initialised) and gathers them
    as they finish. Returns one row per point, design and seed: the grid's
    keys, design, seed, the summary columns, ``error`` ("" when it ran) and
    ``wall_s``, in grid order whatever order they finished in."""
    kind, text = _source(base)
    points = _points(grid)
    tasks = [
        {"kind": kind, "text": text, "point": p, "design": d, "seed": int(s), "scale": float(scale)}
        for p in points
        for d in (list(designs) if designs else [None])
        for s in seeds
    ]
    bar = _Progress(len(tasks), progress)
    rows: List[Optional[Dict[str, Any]]] = [None] * len(tasks)
    try:
        if backend == "local":
            _local(tasks, rows, bar, workers)
        elif backend == "ray":
            _ray(tasks, rows, bar, address)
        else:
            raise ScenarioError(f"backend = {backend!r}: valid: local, ray", field="backend", value=backend, reason="valid: local, ray")
    finally:
        bar.close()
    return pd.DataFrame(rows)


def _local(tasks, rows, bar, workers) -> None:
    from concurrent.futures import ProcessPoolExecutor, as_completed

    workers = workers or os.cpu_count() or 1
    if workers == 1 or len(tasks) == 1:
        for i, t in enumerate(tasks):
            rows[i] = _task(t)
            bar.step(rows[i])
        return
    with ProcessPoolExecutor(max_workers=min(workers, len(tasks))) as pool:
        futures = {pool.submit(_task, t): i for i, t in enumerate(tasks)}
        for f in as_completed(futures):
            i = futures[f]
            rows[i] = f.result()
            bar.step(rows[i])


def _ray(tasks, rows, bar, address) -> None:
    import ray

    if not ray.is_initialized():
        if address:
            ray.init(address=address)
        else:
            ray.init()
    remote = ray.remote(_task)
    pending = {remote.remote(t): i for i, t in enumerate(tasks)}
    while pending:
        done, _ = ray.wait(list(pending), num_returns=1)
        for ref in done:
            i = pending.pop(ref)
            try:
                rows[i] = ray.get(ref)
            except Exception as e:  # a worker that died: the point's row says so
                rows[i] = dict(tasks[i]["point"], design=tasks[i]["design"] or "as-given", seed=tasks[i]["seed"],
                               error=f"{type(e).__name__}: {e}")
            bar.step(rows[i])


def load_sweep_file(path: str) -> Dict[str, Any]:
    """Read sweep.toml; errors name the field."""
    import tomllib

    with open(path, "rb") as f:
        try:
            spec = tomllib.load(f)
        except tomllib.TOMLDecodeError as e:
            raise ScenarioError(f"{path}: {e}", field="sweep", value=path, reason=str(e)) from None
    known = {"base", "grid", "designs", "seeds", "scale"}
    for k in spec:
        if k not in known:
            raise ScenarioError(f"{path}: unknown field {k!r} (valid: {', '.join(sorted(known))})", field=k, value="(set)",
                                reason="unknown field")
    if "base" not in spec or "grid" not in spec:
        raise ScenarioError(f"{path}: needs base and [grid]", field="base" if "base" not in spec else "grid", reason="missing")
    base = spec["base"]
    if isinstance(base, str) and not os.path.isabs(base) and os.path.exists(os.path.join(os.path.dirname(path), base)):
        base = os.path.join(os.path.dirname(path), base)
    return {"base": base, "grid": spec["grid"], "designs": spec.get("designs"), "seeds": spec.get("seeds", [1]),
            "scale": spec.get("scale", 1.0)}


def html_page(df: pd.DataFrame, title: str, keys: Sequence[str]) -> str:
    """A self-contained HTML page: the table, and a plot per summary metric
    against the first grid key (PNG inline), one line per design."""
    import base64
    import io

    parts = [f"<!doctype html><meta charset='utf-8'><title>{title}</title>",
             "<style>body{font-family:sans-serif;margin:2em}table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:2px 6px}</style>",
             f"<h1>{title}</h1>"]
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        ok = df[df["error"] == ""] if "error" in df else df
        if keys and len(ok):
            x = keys[0]
            for metric in ("iops", "steady_iops", "total_waf", "ftl_waf", "p99_us", "stall_s"):
                if metric not in ok:
                    continue
                fig, ax = plt.subplots(figsize=(6, 3.5))
                for design, g in ok.groupby("design"):
                    g = g.groupby(x, as_index=False)[metric].mean().sort_values(x)
                    ax.plot(g[x], g[metric], marker="o", label=design)
                ax.set_xlabel(x)
                ax.set_ylabel(metric)
                ax.grid(alpha=0.3)
                ax.legend()
                buf = io.BytesIO()
                fig.tight_layout()
                fig.savefig(buf, format="png", dpi=90)
                plt.close(fig)
                parts.append(f"<h2>{metric}</h2><img src='data:image/png;base64,{base64.b64encode(buf.getvalue()).decode()}'>")
    except ImportError:
        parts.append("<p>(matplotlib is not installed: no plots)</p>")
    parts.append("<h2>Runs</h2>" + df.to_html(index=False))
    return "\n".join(parts)


def main(argv: Optional[Sequence[str]] = None) -> int:
    ap = argparse.ArgumentParser(prog="lfslab sweep", description="Run a sweep file; write sweep.csv and sweep.html")
    ap.add_argument("file", help="sweep.toml: base, [grid], designs, seeds, scale")
    ap.add_argument("--ray", metavar="ADDRESS", nargs="?", const="", default=None,
                    help="run on Ray: a cluster address, or none for a local Ray instance")
    ap.add_argument("--out", default=None, help="output directory (default lfslab-out/<file stem>)")
    ap.add_argument("--workers", type=int, default=None, help="local backend: processes (default: the cores)")
    a = ap.parse_args(argv)
    try:
        spec = load_sweep_file(a.file)
        backend = "ray" if a.ray is not None else "local"
        df = sweep(spec["base"], spec["grid"], designs=spec["designs"], seeds=spec["seeds"], scale=spec["scale"],
                   backend=backend, address=a.ray or None, workers=a.workers)
    except ScenarioError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    stem = os.path.splitext(os.path.basename(a.file))[0]
    out = a.out or os.path.join("lfslab-out", stem)
    os.makedirs(out, exist_ok=True)
    df.to_csv(os.path.join(out, "sweep.csv"), index=False)
    with open(os.path.join(out, "sweep.html"), "w") as f:
        f.write(html_page(df, f"lfslab sweep: {stem}", list(spec["grid"])))
    failed = int((df["error"] != "").sum()) if "error" in df else 0
    print(df.drop(columns=[c for c in ("error",) if c in df and failed == 0]).to_string(index=False))
    print(f"\n{len(df)} runs, {failed} failed | {out}/sweep.csv, {out}/sweep.html")
    return 1 if failed else 0
