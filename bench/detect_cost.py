"""Cost of language detection per file: `python bench/detect_cost.py DIR...`.

Reads each file's first HEAD_BYTES (as selection does), then times
`detect_language` over all of them (best of 5 passes) and the one-off import of
identify (taken only when a name is unknown to the manifest). Prints one line per DIR.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from orchestrator.model import languages


def heads(root: Path) -> list[tuple[str, bytes]]:
    out = []
    for p in sorted(root.rglob("*")):
        if p.is_file() and not {".git", "__pycache__"} & set(p.parts):
            with open(p, "rb") as fh:
                out.append((p.relative_to(root).as_posix(), fh.read(languages.HEAD_BYTES)))
    return out


def main(dirs: list[str]) -> None:
    t0 = time.perf_counter()
    import identify.identify  # noqa: F401 - the lazy import, timed once

    print(f"identify import: {(time.perf_counter() - t0) * 1000:.1f} ms")
    languages.manifest()
    for d in dirs:
        files = heads(Path(d))
        best = float("inf")
        for _ in range(5):
            t = time.perf_counter()
            for path, head in files:
                languages.detect_language(path, head)
            best = min(best, time.perf_counter() - t)
        per = best / max(len(files), 1) * 1e6
        print(f"{d}: {len(files)} files, {best * 1000:.2f} ms total, {per:.1f} us/file")


if __name__ == "__main__":
    main(sys.argv[1:])
