"""A small service module."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Iterator


@dataclass(frozen=True)
class User:
    id: int
    name: str
    tags: tuple[str, ...] = field(default_factory=tuple)


class Repo:
    def __init__(self) -> None:
        self._users: dict[int, User] = {}

    def add(self, user: User) -> None:
        if user.id in self._users:
            raise KeyError(f"duplicate {user.id!r}")
        self._users[user.id] = user

    def __iter__(self) -> Iterator[User]:
        yield from sorted(self._users.values(), key=lambda u: u.name)


async def fetch_all(ids: list[int]) -> list[int]:
    async def one(i: int) -> int:
        await asyncio.sleep(0)
        return i * 2

    return list(await asyncio.gather(*(one(i) for i in ids)))
