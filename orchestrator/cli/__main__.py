"""`python -m orchestrator.cli ...`: the same entry as the `orchestrate` console script."""

import sys

from orchestrator.cli.main import main

sys.exit(main())
