"""`python -m orchestrator.hygiene check|clean|report validate`."""

import sys

from orchestrator.cli.hygiene import main

sys.exit(main())
