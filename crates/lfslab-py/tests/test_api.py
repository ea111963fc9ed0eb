"""The Python API against the library and the CLI: results, DataFrames,
errors, overrides, interruption."""

import json
import signal
import subprocess

import pandas as pd
import pytest

import lfslab

SMALL = {
    "name": "py-small",
    "device": {"preset": "femu", "capacity_gib": 1, "channels": 4, "pages_per_block": 64},
    "fs": {"kind": "f2fs"},
    "job": [{"name": "w", "rw": "randwrite", "bs": "4k", "size": "50%", "runtime": "2s"}],
}


def test_run_builtin_gives_summary_report_and_frames():
    r = lfslab.run("default", seed=3)
    assert r.report["seed"] == 3
    assert r.summary["iops"] > 0 and r.summary["total_waf"] >= 1.0
    ts = r.timeseries
    assert {"t_s", "read_bytes", "write_bytes", "ios", "nand_write_slots", "gc_count", "ops"} <= set(ts.columns)
    assert ts["ios"].sum() > 0
    lat = r.latency
    assert list(lat["dir"]) == ["write"] and lat["p99_us"].iloc[0] >= lat["p50_us"].iloc[0] > 0


def test_values_equal_the_clis_json(cli, tmp_path):
    out = tmp_path / "r.json"
    subprocess.run([str(cli), "run", "default", "--seed", "5", "--quiet", "--json", str(out)], check=True,
                   stdout=subprocess.DEVNULL)
    want = json.loads(out.read_text())
    got = lfslab.run("default", seed=5)
    assert got.report["jobs"] == want["jobs"]
    assert got.report["ftl"] == want["ftl"]
    assert got.timeseries[["t_s", "ios", "write_bytes"]].equals(
        pd.DataFrame(want["timeseries"])[["t_s", "ios", "write_bytes"]])


def test_dict_scenarios_and_overrides():
    a = lfslab.run(SMALL)
    b = lfslab.run(SMALL, overrides={"device.op": 0.3})
    c = lfslab.run(SMALL, overrides=["device.op=0.3"])
    assert a.report["device"]["op"] < b.report["device"]["op"]
    assert b.report["jobs"] == c.report["jobs"]
    assert "op = 0.3" in lfslab.resolve(SMALL, overrides={"device.op": 0.3})


def test_a_bad_field_raises_scenario_error_naming_it():
    with pytest.raises(lfslab.ScenarioError) as e:
        lfslab.run(SMALL, overrides={"job.0.bs": "5k"})
    assert e.value.field == "job[0].bs" and e.value.value.strip("\"") == "5k"
    with pytest.raises(lfslab.ScenarioError) as e:
        lfslab.run({"device": {"chanels": 4}, "job": [{}]})
    assert "chanels" in str(e.value)
    with pytest.raises(lfslab.ScenarioError) as e:
        lfslab.run("no-such-builtin")
    assert e.value.field == "scenario"
    with pytest.raises(lfslab.ScenarioError):
        lfslab.compare(SMALL, designs=["f2fs", "nope"])


def test_a_failed_run_raises_run_error():
    with pytest.raises(lfslab.RunError):
        lfslab.run(SMALL, overrides={"limits.max_events": 10})


def test_compare_is_a_frame_with_each_result():
    df = lfslab.compare("fio-randwrite", designs=["f2fs", "d2fs"], scale=0.25)
    assert list(df["design"]) == ["f2fs", "d2fs"]
    assert {"iops", "steady_iops", "fs_waf", "ftl_waf", "total_waf", "ftl_memory_bytes", "stall_s"} <= set(df.columns)
    res = df.attrs["results"]
    assert set(res) == {"f2fs", "d2fs"}
    assert res["d2fs"].report["d2fs"]["vop_regular"] == pytest.approx(1.4, abs=0.01)
    assert df.loc[df["design"] == "f2fs", "iops"].iloc[0] == pytest.approx(res["f2fs"].summary["iops"])


def test_ctrl_c_interrupts_a_long_run():
    # The kernel's interval timer sends SIGALRM, whose handler is Ctrl-C's
    # (it raises KeyboardInterrupt), 0.3 s in. A Python timer thread that
    # sends SIGINT needs the GIL to run, and once failed to within a run of
    # minutes on a loaded machine; the run's check for pending signals is
    # the same either way.
    previous = signal.signal(signal.SIGALRM, signal.default_int_handler)
    signal.setitimer(signal.ITIMER_REAL, 0.3)
    try:
        with pytest.raises(KeyboardInterrupt):
            lfslab.run("fio-randwrite", overrides={"job.0.runtime": "3000s"})
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def test_designs_and_builtins_are_listed():
    assert {"f2fs", "d2fs", "csgc"} <= set(lfslab.designs()["design"])
    assert "default" in lfslab.builtins()
