"""run, compare and resolve: the library's calls, their results as dicts and
pandas DataFrames, and errors as exceptions that name the field."""

from __future__ import annotations

import json
import os
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple, Union

import pandas as pd

from . import _lfslab

Scenario = Union[str, "os.PathLike[str]", Mapping[str, Any]]
Overrides = Union[None, Mapping[str, Any], Sequence[str]]


class ScenarioError(ValueError):
    """A scenario, an override or an argument has a bad value.

    ``field`` names it as the TOML schema does ("device.op", "job[0].bs"),
    ``value`` is what was given and ``reason`` why it is refused."""

    def __init__(self, message: str, field: str = "", value: str = "", reason: str = ""):
        super().__init__(message)
        self.field = field
        self.value = value
        self.reason = reason


class RunError(RuntimeError):
    """A simulation run failed (a limit was hit, the files do not fit, ...)."""


def _call(fn, *args, **kwargs):
    """Call into the library, raising this module's exceptions."""
    try:
        return fn(*args, **kwargs)
    except _lfslab.ScenarioError as e:
        field, value, reason, message = e.args[0] if len(e.args) == 1 else e.args
        raise ScenarioError(message, field=field, value=value, reason=reason) from None
    except _lfslab.RunError as e:
        raise RunError(str(e)) from None


def _source(scenario: Scenario) -> Tuple[str, str]:
    """(kind, text) for the binding: a dict goes as JSON, a str or path is
    a built-in name or a file (scenario TOML, fio job file, iolog)."""
    if isinstance(scenario, Mapping):
        return "json", json.dumps(scenario)
    if isinstance(scenario, (str, os.PathLike)):
        return "name", os.fspath(scenario)
    raise ScenarioError(
        f"scenario = {scenario!r}: expected a built-in name, a path or a dict",
        field="scenario",
        value=repr(scenario),
        reason="expected a built-in name, a path or a dict",
    )


def _value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return repr(v)
    if isinstance(v, str):
        return v
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(json.dumps(x) for x in v) + "]"
    raise ScenarioError(f"override value {v!r}: not a number, bool, string or list", value=repr(v))


def overrides_list(overrides: Overrides) -> List[str]:
    """`--set` strings from a dict {"device.op": 0.1} or a list of "key=value"."""
    if overrides is None:
        return []
    if isinstance(overrides, Mapping):
        return [f"{k}={_value(v)}" for k, v in overrides.items()]
    return [str(o) for o in overrides]


def _latency_row(job: str, direction: str, ios: int, lat: Optional[Dict[str, Any]]) -> Dict[str, Any]:
    """A latency summary (ns) as a row in µs, one column per percentile."""
    lat = lat or {}
    row = {"job": job, "dir": direction, "ios": ios, "mean_us": lat.get("mean", 0) / 1e3,
           "stddev_us": lat.get("stddev", 0) / 1e3, "max_us": lat.get("max", 0) / 1e3}
    for p, ns in (lat.get("percentile") or {}).items():
        row[f"p{float(p):g}_us"] = ns / 1e3
    return row


class Result:
    """One run: ``summary`` (the comparison table's row, a dict), ``report``
    (the JSON report as a dict), ``timeseries`` and ``latency`` (DataFrames)."""

    def __init__(self, summary: Dict[str, Any], report: Dict[str, Any]):
        self.summary = summary
        self.report = report

    @property
    def timeseries(self) -> pd.DataFrame:
        """One row per time bucket: t_s, read/write bytes, I/Os, NAND slots
        written, device GC victims, application operations."""
        df = pd.DataFrame(self.report.get("timeseries", []))
        if "ops" not in df.columns:
            df["ops"] = 0
        return df.fillna({"ops": 0})

    @property
    def latency(self) -> pd.DataFrame:
        """One row per job clone and direction with I/Os: mean, stddev, max
        and percentiles of the completion latency (fio's lat), in µs."""
        rows = []
        for j in self.report.get("jobs", []):
            for direction in ("read", "write", "trim"):
                d = j.get(direction) or {}
                if d.get("total_ios"):
                    rows.append(_latency_row(j["jobname"], direction, d["total_ios"], d.get("lat_ns")))
        for o in self.report.get("operations", []) + self.report.get("flowops", []):
            rows.append(_latency_row(o["name"], "op", o.get("ops", 0), o.get("lat_ns")))
        return pd.DataFrame(rows)

    def __repr__(self) -> str:
        s = self.summary
        return f"<lfslab.Result {s.get('design')}: {s.get('iops', 0):.0f} IOPS, total WAF {s.get('total_waf', 0):.3f}>"


def run(scenario: Scenario, seed: Optional[int] = None, overrides: Overrides = None) -> Result:
    """Run one scenario: a built-in name ("default", "fio-randwrite", ...), a
    path (scenario TOML, fio job file or iolog, as `lfslab run` takes) or a
    dict with the TOML schema. ``overrides`` are `--set`s: {"device.op":
    0.1} or ["device.op=0.1"]. The GIL is released while it runs; Ctrl-C
    stops it with KeyboardInterrupt."""
    kind, text = _source(scenario)
    out = json.loads(_call(_lfslab.run, kind, text, seed, overrides_list(overrides)))
    return Result(out["summary"], out["report"])


def resolve(scenario: Scenario, overrides: Overrides = None) -> str:
    """The scenario with every default filled in, as TOML (what a run uses)."""
    kind, text = _source(scenario)
    return _call(_lfslab.resolve, kind, text, overrides_list(overrides))


def designs() -> pd.DataFrame:
    """The designs `compare` knows: name and description."""
    return pd.DataFrame(_lfslab.designs(), columns=["design", "description"])


def builtins() -> List[str]:
    """The built-in scenario names."""
    return list(_lfslab.builtins())


DEFAULT_DESIGNS = ("f2fs", "zf2fs", "iplfs", "d2fs")


def compare(
    workload: Scenario = "fio-randwrite",
    designs: Iterable[str] = DEFAULT_DESIGNS,
    scale: float = 1.0,
    seed: Optional[int] = None,
    overrides: Overrides = None,
) -> pd.DataFrame:
    """Run ``workload`` on each design (`lfslab compare`): a DataFrame with
    one row per design and the summary table's columns. Each design's full
    `Result` is in ``df.attrs["results"][design]``."""
    kind, text = _source(workload)
    c = json.loads(_call(_lfslab.compare, kind, text, list(designs), float(scale), seed, overrides_list(overrides)))
    df = pd.DataFrame(c["summary"])
    df.attrs["results"] = {r["design"]: Result(row, r["report"]) for r, row in zip(c["runs"], c["summary"])}
    df.attrs["workload"] = c["workload"]
    df.attrs["scale"] = c["scale"]
    df.attrs["seed"] = c["seed"]
    return df
