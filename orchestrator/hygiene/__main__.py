"""`python -m orchestrator.hygiene check|clean|report validate`."""

import sys

from orchestrator.hygiene.commands import main

sys.exit(main())
