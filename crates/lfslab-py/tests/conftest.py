import os
import pathlib

import pytest

REPO = pathlib.Path(__file__).resolve().parents[3]


@pytest.fixture(scope="session")
def cli():
    """The lfslab CLI built by the Rust tests (LFSLAB_BIN overrides)."""
    path = pathlib.Path(os.environ.get("LFSLAB_BIN", REPO / "target" / "release" / "lfslab"))
    assert path.exists(), f"{path} not built: run `cargo build --release` first (or set LFSLAB_BIN)"
    return path
