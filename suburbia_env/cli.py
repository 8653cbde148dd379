"""`python -m suburbia_env.cli` of earlier releases: the command lives in apps/cli.py."""

import sys
import warnings

from .apps.cli import main

if __name__ == "__main__":
    sys.exit(main())
warnings.warn("suburbia_env.cli moved to suburbia_env.apps.cli; import it from there",
              DeprecationWarning, stacklevel=2)
