"""D2FS Fig. 10 through the Python API: FIO throughput as the regular
region's virtual overprovisioning p_regular goes from 1.0 to 2.0
(d2fs.txt §8.2), on the D2FS paper's FIO workload at 1/16 of its size.

    python examples/d2fs_fig10_sweep.py            # local process pool
    python examples/d2fs_fig10_sweep.py --ray      # a local Ray instance
    python examples/d2fs_fig10_sweep.py --ray ADDRESS

Writes d2fs_fig10_sweep.csv and d2fs_fig10_sweep.png beside this file.
"""

import argparse
import os

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

import lfslab

HERE = os.path.dirname(os.path.abspath(__file__))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--ray", nargs="?", const="", default=None, metavar="ADDRESS")
    ap.add_argument("--scale", type=float, default=1.0, help="1 = 1/16 of the paper (16 GiB, 75 s)")
    a = ap.parse_args()
    df = lfslab.sweep(
        "fio-randwrite",
        grid={"fs.vop_regular": [1.0, 1.2, 1.4, 1.6, 1.8, 2.0]},
        designs=["d2fs"],
        scale=a.scale,
        backend="ray" if a.ray is not None else "local",
        address=a.ray or None,
    )
    df.to_csv(os.path.join(HERE, "d2fs_fig10_sweep.csv"), index=False)
    ref = df.loc[df["fs.vop_regular"] == 1.4, "steady_iops"].iloc[0]
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10, 3.8))
    ax1.plot(df["fs.vop_regular"], df["steady_iops"] / ref, marker="o")
    ax1.set_xlabel("p_regular")
    ax1.set_ylabel("steady throughput (p_regular 1.4 = 1)")
    ax1.set_title("D2FS Fig. 10: throughput by p_regular")
    ax1.grid(alpha=0.3)
    ax2.bar(df["fs.vop_regular"].astype(str), df["stall_s"])
    ax2.set_xlabel("p_regular")
    ax2.set_ylabel("s")
    ax2.set_title("time writers stalled on free sections")
    fig.tight_layout()
    fig.savefig(os.path.join(HERE, "d2fs_fig10_sweep.png"), dpi=100)
    print(df[["fs.vop_regular", "iops", "steady_iops", "total_waf", "stall_s", "error"]].to_string(index=False))


if __name__ == "__main__":
    main()
