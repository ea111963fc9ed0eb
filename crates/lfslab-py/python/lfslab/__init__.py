"""lfslab from Python: runs, comparisons and sweeps of the deterministic
full-stack simulator of log-structured filesystems on flash.

    >>> import lfslab
    >>> r = lfslab.run("default", seed=1)
    >>> r.summary["steady_iops"], r.timeseries.head()
    >>> df = lfslab.compare("fio-randwrite", designs=["f2fs", "d2fs"])
    >>> sw = lfslab.sweep("fio-randwrite", grid={"fs.vop_regular": [1.2, 1.4]}, designs=["d2fs"])

Every call is deterministic: the same scenario, overrides and seed give the
same numbers, here, on the CLI and on a Ray cluster.
"""

from ._lfslab import __version__
from .api import (
    Result,
    RunError,
    ScenarioError,
    builtins,
    compare,
    designs,
    resolve,
    run,
)
from .sweep import sweep
from . import plot

__all__ = [
    "__version__",
    "Result",
    "RunError",
    "ScenarioError",
    "builtins",
    "compare",
    "designs",
    "plot",
    "resolve",
    "run",
    "sweep",
]
