import sys


def classify(command: list[str]) -> str:
    match command:
        case ["go", direction] if direction in {"north", "south"}:
            return f"moving {direction}"
        case ["quit" | "exit"]:
            return "bye"
        case [first, *rest]:
            return f"{first} with {len(rest)} args"
        case _:
            return "nothing"


with open(__file__, encoding="utf-8") as fh, open(__file__) as fh2:
    lines = [line.rstrip() for line in fh if line.strip()]

try:
    value = int(sys.argv[1]) if len(sys.argv) > 1 else 0
except (ValueError, IndexError) as exc:
    print(exc, file=sys.stderr)
else:
    print(value ** 2, *lines[:1], sep="\n")
finally:
    squares = {n: n * n for n in range(5) if (m := n) % 2 == 0}

global_counter = 0
lambda_fn = lambda *a, **kw: (a, kw)  # noqa: E731
