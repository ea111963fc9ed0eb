"""``python -m lfslab sweep sweep.toml [--ray ADDRESS]``."""

import sys

from .sweep import main

if __name__ == "__main__":
    args = sys.argv[1:]
    if not args or args[0] != "sweep":
        print("usage: python -m lfslab sweep SWEEP.toml [--ray [ADDRESS]] [--out DIR] [--workers N]", file=sys.stderr)
        sys.exit(2)
    sys.exit(main(args[1:]))
