"""Serve one scripted model API by hand, to try a host CLI outside the tests:

    cd tests && python -m hosts_e2e.servers anthropic|openai|gemini \\
        --port 18089 --script turns.json --log-dir /tmp/reqs
"""

from __future__ import annotations

import sys

from . import AnthropicApi, GeminiApi, OpenAIResponsesApi
from .base import serve_main

APIS = {"anthropic": AnthropicApi, "openai": OpenAIResponsesApi, "gemini": GeminiApi}

if __name__ == "__main__":
    if len(sys.argv) < 2 or sys.argv[1] not in APIS:
        sys.exit(
            f"usage: python -m hosts_e2e.servers {{{'|'.join(APIS)}}} --port P --script F --log-dir D"
        )
    serve_main(APIS[sys.argv[1]](), sys.argv[2:])
