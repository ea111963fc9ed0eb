"""lfslab.plot draws the report's figures from the DataFrames."""

import matplotlib

matplotlib.use("Agg")

import lfslab


def test_every_figure_draws():
    df = lfslab.compare("fio-randwrite", designs=["f2fs", "d2fs"], scale=0.25)
    for draw, arg in [(lfslab.plot.throughput, df), (lfslab.plot.latency_tail, df), (lfslab.plot.waf, df),
                      (lfslab.plot.ftl_memory, df), (lfslab.plot.region_use, df)]:
        ax = draw(arg)
        assert ax.has_data(), draw.__name__
