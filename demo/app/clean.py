"""Nothing to report here."""


def double(x: int) -> int:
    return x * 2
