"""The JSON editor's JSON5 mode against its JSONC mode on the same large file: load, one set, dump.

The JSON5 mask is built by a Python loop over the tokens JSON does not have (unquoted keys,
single quotes), with JSON's own syntax passed over in long regex runs; JSONC's is one regex in C.
Two files of the same shape: one with quoted keys (what OpenClaw writes itself), one with every
key unquoted (the worst case for JSON5). Prints the median times and the ratios.
Run alone: ``.venv/bin/python bench/json5.py [--members N] [--runs N]``.
"""

from __future__ import annotations

import argparse
import statistics
import time

from gwconf.formats.json import load


def make(members: int, quoted: bool) -> str:
    lines = ["// a large settings file", "{"]
    for i in range(members):
        key = f'"key{i}"' if quoted else f"key{i}"
        lines.append(f"  {key}: {{ name: 'n{i}', size: {i}, on: true, tags: ['a', 'b'], }}, // note {i}")
    lines.append("}")
    text = "\n".join(lines) + "\n"
    return (
        text
        if not quoted
        else text.replace("name:", '"name":')
        .replace("size:", '"size":')
        .replace("on:", '"on":')
        .replace("tags:", '"tags":')
        .replace("'", '"')
    )


def best(fmt: str, text: str, runs: int) -> float:
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        doc = load(text, "bench", fmt=fmt)
        doc.set(("key0", "name"), "changed")
        doc.dump()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--members", type=int, default=20000)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    quoted = make(args.members, quoted=True)
    unquoted = make(args.members, quoted=False)
    jsonc = best("jsonc", quoted, args.runs)
    j5_quoted = best("json5", quoted, args.runs)
    j5_unquoted = best("json5", unquoted, args.runs)
    print(f"file: {args.members} members, {len(quoted) / 1e6:.1f} MB (quoted) / {len(unquoted) / 1e6:.1f} MB")
    print(f"jsonc, quoted keys:   {jsonc * 1000:8.1f} ms")
    print(f"json5, quoted keys:   {j5_quoted * 1000:8.1f} ms  ({j5_quoted / jsonc:.1f}x jsonc)")
    print(f"json5, unquoted keys: {j5_unquoted * 1000:8.1f} ms  ({j5_unquoted / jsonc:.1f}x jsonc)")


if __name__ == "__main__":
    main()
