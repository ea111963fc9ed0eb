"""Sweeps: the grid, failed points as rows, the local and Ray backends
giving the same rows, the CLI form writing CSV and HTML."""

import subprocess
import sys

import pandas as pd
import pytest

import lfslab

GRID = {"fs.vop_regular": [1.2, 1.4]}


def _cmp(df):
    return df.drop(columns=["wall_s"]).reset_index(drop=True)


def test_sweep_rows_follow_the_grid():
    df = lfslab.sweep("fio-randwrite", grid=GRID, designs=["d2fs"], seeds=[1, 2], scale=0.25, progress=False)
    assert len(df) == 4
    assert list(df["fs.vop_regular"]) == [1.2, 1.2, 1.4, 1.4] and list(df["seed"]) == [1, 2, 1, 2]
    assert (df["error"] == "").all() and (df["iops"] > 0).all()
    # Each row is the comparison's own figure for that point.
    one = lfslab.compare("fio-randwrite", designs=["d2fs"], scale=0.25, seed=2, overrides={"fs.vop_regular": 1.4})
    assert df.iloc[3]["iops"] == pytest.approx(one["iops"].iloc[0])


def test_a_failed_point_is_a_row_not_a_failed_sweep():
    df = lfslab.sweep("fio-randwrite", grid={"fs.vop_regular": [1.4, -3.0]}, designs=["d2fs"], scale=0.25, progress=False)
    assert df.iloc[0]["error"] == ""
    assert df.iloc[1]["error"].startswith("ScenarioError") and "fs.vop_regular" in df.iloc[1]["error"]


def test_ray_gives_the_local_backends_rows():
    ray = pytest.importorskip("ray")
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        r = lfslab.sweep("fio-randwrite", grid=GRID, designs=["d2fs", "f2fs"], scale=0.25, backend="ray", progress=False)
    finally:
        ray.shutdown()
    local = lfslab.sweep("fio-randwrite", grid=GRID, designs=["d2fs", "f2fs"], scale=0.25, backend="local", progress=False)
    pd.testing.assert_frame_equal(_cmp(r), _cmp(local))


def test_sweep_file_from_the_command_line(tmp_path):
    f = tmp_path / "s.toml"
    f.write_text('base = "fio-randwrite"\ndesigns = ["d2fs"]\nscale = 0.25\n[grid]\n"fs.vop_regular" = [1.2, 1.4]\n')
    out = tmp_path / "out"
    p = subprocess.run([sys.executable, "-m", "lfslab", "sweep", str(f), "--out", str(out), "--workers", "2"],
                       capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    df = pd.read_csv(out / "sweep.csv")
    assert list(df["fs.vop_regular"]) == [1.2, 1.4]
    assert "<img src='data:image/png;base64," in (out / "sweep.html").read_text()
    bad = tmp_path / "bad.toml"
    bad.write_text('base = "fio-randwrite"\ngird = {}\n')
    p = subprocess.run([sys.executable, "-m", "lfslab", "sweep", str(bad)], capture_output=True, text=True)
    assert p.returncode == 2 and "gird" in p.stderr


def test_the_rust_cli_runs_the_same_sweep(cli, tmp_path):
    f = tmp_path / "s.toml"
    f.write_text('base = "fio-randwrite"\ndesigns = ["d2fs"]\nscale = 0.25\n[grid]\n"fs.vop_regular" = [1.2, 1.4]\n')
    out = tmp_path / "out"
    p = subprocess.run([str(cli), "sweep", str(f), "--out", str(out)], capture_output=True, text=True,
                       env=dict(__import__("os").environ, LFSLAB_PYTHON=sys.executable))
    assert p.returncode == 0, p.stderr
    api = lfslab.sweep("fio-randwrite", grid=GRID, designs=["d2fs"], scale=0.25, progress=False)
    assert list(pd.read_csv(out / "sweep.csv")["iops"]) == pytest.approx(list(api["iops"]))
