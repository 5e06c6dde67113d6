"""A run's report rows kept on disk, read back in report order: bounded memory at scale.

At 100,000 files the report's scopes and findings, held as models, took about half a
gigabyte. A big run writes each row, as it is made, into a `Spool`: a private SQLite
file in the user's cache folder, unlinked as soon as it is open (on POSIX), so nothing
is left behind when the run ends, fails or is killed. The report then holds
`SpooledRows` in place of its two lists: a read-only sequence that yields the rows
one at a time, sorted exactly as `report.normalize` sorts a list (the sort key in an
order-preserving byte form, then the order the rows were made in, as a stable sort
keeps ties). A row is stored as its model's JSON and validated again when it is read.
"""

from __future__ import annotations

import contextlib
import os
import struct
import tempfile
import threading
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any, Generic, TypeVar, overload

from pydantic import BaseModel

M = TypeVar("M", bound=BaseModel)

#: Rows read from the file per fetch.
_FETCH = 256


def sort_bytes(key: Iterable[str | int]) -> bytes:
    """`key` (strings and non-negative ints) as bytes whose order is the tuple's order:
    a string is its UTF-8 (code point order; lone surrogates as themselves) with NUL as
    00 FF, ended by 00 00; an int is 8 bytes big-endian."""
    out = bytearray()
    for part in key:
        if isinstance(part, int):
            out += struct.pack(">Q", part)
        else:
            out += part.encode("utf-8", "surrogatepass").replace(b"\x00", b"\x00\xff")
            out += b"\x00\x00"
    return bytes(out)


class Spool:
    """One run's rows in a private SQLite file under `folder`. `add` may be called from
    several threads; reading starts after the last `add`."""

    def __init__(self, folder: Path) -> None:
        import sqlite3  # only a big run spools: a small one never loads SQLite

        folder.mkdir(parents=True, exist_ok=True)
        fd, name = tempfile.mkstemp(prefix="rows-", suffix=".sqlite", dir=folder)
        os.close(fd)
        self._name: str | None = name
        self._lock = threading.Lock()
        self._seq = 0
        try:
            db = sqlite3.connect(name, check_same_thread=False, isolation_level=None)
            db.execute("PRAGMA journal_mode=OFF")
            db.execute("PRAGMA synchronous=OFF")
            db.execute("PRAGMA locking_mode=EXCLUSIVE")
            db.execute("CREATE TABLE rows (kind INTEGER, key BLOB, seq INTEGER, row BLOB)")
            # Rows are read in index order: no sort, and no temporary file elsewhere.
            db.execute("CREATE INDEX ordered ON rows (kind, key, seq)")
            db.execute("BEGIN")
        except BaseException:
            self._unlink()
            raise
        self._db = db
        self._unlink()  # open: the file needs no name any more (POSIX)

    def _unlink(self) -> None:
        if self._name is not None:
            with contextlib.suppress(OSError):
                os.unlink(self._name)
                self._name = None

    def add(self, kind: int, key: bytes, row: BaseModel) -> None:
        """Keep `row` (its JSON) under `kind`, to be read back in `key` order, ties in
        the order they were added."""
        data = row.__pydantic_serializer__.to_json(row)
        with self._lock:
            self._seq += 1
            self._db.execute("INSERT INTO rows VALUES (?, ?, ?, ?)", (kind, key, self._seq, data))

    def finish(self) -> None:
        """End writing (readers may start)."""
        with self._lock:
            if self._db.in_transaction:
                self._db.execute("COMMIT")

    def read(self, kind: int, offset: int = 0, limit: int = -1) -> Iterator[tuple[int, bytes]]:
        """The (seq, JSON) rows of `kind` in order, from `offset`, at most `limit`."""
        self.finish()
        cur = self._db.execute(
            "SELECT seq, row FROM rows WHERE kind = ? ORDER BY key, seq LIMIT ? OFFSET ?",
            (kind, limit, offset),
        )
        while batch := cur.fetchmany(_FETCH):
            yield from batch

    def close(self) -> None:
        """Close the file (and delete it where it still has a name)."""
        import sqlite3

        with contextlib.suppress(sqlite3.Error):
            self._db.close()
        self._unlink()


class SpooledRows(Sequence[M], Generic[M]):
    """The rows of one kind in a `Spool`, as a read-only sequence of models in report
    order, less the rows `without` dropped. Each pass reads the file again."""

    #: Rows come out sorted as `report.normalize` sorts them (by path first).
    path_ordered = True

    def __init__(
        self,
        spool: Spool,
        kind: int,
        model: type[M],
        count: int,
        dropped: frozenset[int] = frozenset(),
    ) -> None:
        self._spool = spool
        self._kind = kind
        self._model = model
        self._count = count
        self._dropped = dropped

    def __len__(self) -> int:
        return self._count - len(self._dropped)

    def _pairs(self) -> Iterator[tuple[int, M]]:
        validate = self._model.model_validate_json
        for seq, data in self._spool.read(self._kind):
            if seq not in self._dropped:
                yield seq, validate(data)

    def __iter__(self) -> Iterator[M]:
        for _seq, row in self._pairs():
            yield row

    @overload
    def __getitem__(self, index: int) -> M: ...
    @overload
    def __getitem__(self, index: slice) -> list[M]: ...
    def __getitem__(self, index: int | slice) -> M | list[M]:
        if isinstance(index, slice):
            return list(self)[index] if index.step or self._dropped else self._slice(index)
        n = len(self)
        i = index + n if index < 0 else index
        if not 0 <= i < n:
            raise IndexError(index)
        if self._dropped:
            return next(row for j, row in enumerate(self) if j == i)
        return self._model.model_validate_json(next(self._spool.read(self._kind, i, 1))[1])

    def _slice(self, index: slice) -> list[M]:
        start, stop, _ = index.indices(len(self))
        if stop <= start:
            return []
        read = self._spool.read(self._kind, start, stop - start)
        return [self._model.model_validate_json(data) for _seq, data in read]

    def without(self, positions: Iterable[int]) -> SpooledRows[M]:
        """These rows less those at `positions` (0-based, in iteration order)."""
        wanted = set(positions)
        seqs = {seq for i, (seq, _row) in enumerate(self._pairs()) if i in wanted}
        return SpooledRows(self._spool, self._kind, self._model, self._count, self._dropped | seqs)

    def __repr__(self) -> str:
        return f"SpooledRows({self._model.__name__}, {len(self)} rows)"


def without(rows: Sequence[Any], positions: Iterable[int]) -> Sequence[Any]:
    """`rows` less the rows at `positions` (a list, or spooled rows kept on disk)."""
    if isinstance(rows, SpooledRows):
        return rows.without(positions)
    drop = set(positions)
    return [row for i, row in enumerate(rows) if i not in drop]


__all__ = ["Spool", "SpooledRows", "sort_bytes", "without"]
