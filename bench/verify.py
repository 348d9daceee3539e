"""Verify: ``gwconf verify --profile P`` against a local gateway on 127.0.0.1, against ``curl``
doing the same POST (the spec's chat request with the profile's base address, key and model).

The gateway is tests/gateway_server.py's ``GatewayServer`` (a real HTTP server on 127.0.0.1,
in this process, on a thread) when it exists, else bench/_gateway.py's tiny stdlib server.
When ``gwconf verify`` does not exist yet the row is skipped with the reason.
Run alone: ``.venv/bin/python bench/verify.py [--runs N]``.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys

sys.path.insert(0, os.path.dirname(__file__))

from _util import (
    REPO,
    Case,
    Row,
    Sandbox,
    floor_case,
    gwconf_command,
    interleave,
    ms,
    notes,
    print_table,
    verdict,
)

EXTRA_TARGET_S = 0.300
PROFILE, MODEL = "gw", "bench-model"


def start_gateway():  # type: ignore[no-untyped-def]
    """(server, key, origin): the project's test gateway if present, else the bench's own."""
    if (REPO / "tests" / "gateway_server.py").exists():
        sys.path.insert(0, str(REPO))
        from tests.gateway_server import VALID_KEY, GatewayServer

        server = GatewayServer(keys=(VALID_KEY,)).start()
        return server, VALID_KEY, "tests/gateway_server.py"
    from _gateway import KEY, TinyGateway

    return TinyGateway().start(), KEY, "bench/_gateway.py"


def skip_reason(box: Sandbox) -> str | None:
    result = box.run([*gwconf_command(), "verify", "--help"], check=False)
    if result.returncode != 0:
        return "`gwconf verify` is not there yet: " + (result.stderr.strip().splitlines() or ["?"])[-1]
    if "--profile" not in result.stdout:
        return "`gwconf verify` has no --profile option yet"
    return None


def run(runs: int = 10) -> list[Row]:
    curl = shutil.which("curl")
    with Sandbox("gwconf-bench-verify") as box:
        reason = skip_reason(box)
        if reason:
            return [Row("verify", "gwconf verify --profile", "", "", "", "skip", reason)]
        server, key, origin = start_gateway()
        try:
            base = server.base_url
            box.run(
                [
                    *gwconf_command(),
                    "profile",
                    "add",
                    PROFILE,
                    "--base-url",
                    base,
                    "--model",
                    MODEL,
                    "--key-stdin",
                    "--use",
                ],
                input=key + "\n",
            )
            env = box.environ()
            floor = floor_case(env, box.work)
            gw = Case(
                f"gwconf verify --profile {PROFILE}",
                [*gwconf_command(), "verify", "--profile", PROFILE],
                env,
                box.work,
            )
            cases = [floor, gw]
            body = json.dumps(
                {"model": MODEL, "messages": [{"role": "user", "content": "Reply with the single word: ok"}]}
            )
            if curl:
                cases.append(
                    Case(
                        "curl (the same POST)",
                        [
                            curl,
                            "-sS",
                            "--fail",
                            "-o",
                            "/dev/null",
                            "--noproxy",
                            "*",
                            "-X",
                            "POST",
                            f"{base}/chat/completions",
                            "-H",
                            f"Authorization: Bearer {key}",
                            "-H",
                            "Content-Type: application/json",
                            "-H",
                            "Accept: application/json",
                            "-d",
                            body,
                        ],
                        env,
                        box.work,
                    )
                )
            interleave(cases, runs)
            requests = len(getattr(server, "requests", []))
        finally:
            server.stop()
    rows = [
        Row(
            "verify",
            floor.name,
            ms(floor.median),
            "1.00x",
            "",
            "",
            f"n={runs}; gateway {origin}, {requests} requests",
        ),
        Row(
            "verify",
            gw.name,
            ms(gw.median),
            f"{gw.median / floor.median:.2f}x floor",
            "",
            "",
            notes(gw, floor),
        ),
    ]
    if curl:
        c = cases[2]
        extra = gw.median - c.median
        rows.append(
            Row(
                "verify",
                c.name,
                ms(c.median),
                f"{c.median / floor.median:.2f}x floor",
                "",
                "",
                notes(c, floor),
            )
        )
        rows.append(
            Row(
                "verify",
                "gwconf verify - curl",
                f"+{ms(extra)}",
                f"{gw.median / c.median:.1f}x curl",
                f"<= +{EXTRA_TARGET_S * 1000:.0f} ms",
                verdict(extra <= EXTRA_TARGET_S),
                "difference of the medians",
            )
        )
    else:
        rows.append(Row("verify", "curl", "", "", "", "skip", "curl is not on PATH"))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10)
    args = parser.parse_args()
    print_table(run(args.runs))


if __name__ == "__main__":
    main()
