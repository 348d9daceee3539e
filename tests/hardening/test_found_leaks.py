"""Credentials in users' files that outputs printed whole, found by planting fake secrets into
real public dotfiles and running every command over them (the fifteenth round's sweep).

- A password in an address's user part (``https://alice:pw@host``): ``status``, ``doctor``,
  ``verify``, every diff and ``profile add --from`` showed the base address as it was written.
- A key or password that starts with ``*`` or ``!``, unquoted in YAML: PyYAML's parse error
  quotes it as an alias or a tag, and the error named the file, the line and the whole token.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gwconf.secrets import redact, redact_data
from tests.conftest import invoke

PASSWORD = "S3cretGatewayPw-0123tag5"
PROFILE = 'base_url = "https://gw.example.com/v1"\nmodel = "m"\nkey = "sk-gwconf-example-0000"\n'


def test_a_password_in_a_base_address_is_masked_in_every_output(home: Path, tmp_path: Path) -> None:
    (home / ".claude").mkdir()
    address = f"https://alice:{PASSWORD}@gw.corp.example/anthropic"
    (home / ".claude" / "settings.json").write_text(json.dumps({"env": {"ANTHROPIC_BASE_URL": address}}))
    profile = tmp_path / "p.toml"
    profile.write_text(PROFILE)
    outputs = [
        invoke("status").output,
        invoke("status", "--json").output,
        invoke("apply", "claude-code", "--profile", str(profile), "--dry-run").output,
        invoke("profile", "add", "mine", "--from", "claude-code").output,
    ]
    assert "https://alice:…tag5@gw.corp.example/anthropic" in outputs[0]  # masked, not dropped
    assert not [text for text in outputs if PASSWORD[:-4] in text]


def test_a_yaml_parse_error_does_not_quote_a_secret(home: Path, tmp_path: Path) -> None:
    profile = tmp_path / "p.toml"
    profile.write_text(PROFILE)
    alias, tag = "adq7v2mz9xw4p8rqsztagU", "Z9adq7v2mz9xw4p8rqtagV"
    (home / ".aider.conf.yml").write_text(f"model: gpt-4\nopenai-api-key: *{alias}\n")
    (home / ".config" / "aichat").mkdir(parents=True)
    (home / ".config" / "aichat" / "config.yaml").write_text(
        f"clients:\n  - type: openai\n    api_key: !{tag}\n"
    )
    dry = ("--profile", str(profile), "--dry-run")
    for args in (("status",), ("apply", "aider", *dry), ("apply", "aichat", *dry)):
        text = invoke(*args).output
        assert alias[:-4] not in text and tag[:-4] not in text, (args, text)
    text = invoke("apply", "aider", *dry).output
    assert "~/.aider.conf.yml:2:17: found undefined alias *…tagU" in text
    anchor = "bq8w3na0yz5x9p2rtagA"  # an unquoted value starting with & is an anchor: twice is an error
    (home / ".aider.conf.yml").write_text(f"openai-api-key: &{anchor} x\nother: &{anchor} y\n")
    text = invoke("apply", "aider", *dry).output
    assert "found duplicate anchor &…tagA" in text and anchor[:-4] not in text


def test_every_key_in_llms_key_store_is_masked_in_its_diff(home: Path, tmp_path: Path) -> None:
    """llm's keys.json holds a key per provider; the diff showed those beside gwconf's entry as
    context, and keys of no known shape (Hugging Face's letters-only ``hf_``, Cerebras, Fireworks)
    whole."""
    profile = tmp_path / "p.toml"
    profile.write_text(PROFILE)
    folder = home / ".config" / "io.datasette.llm"
    folder.mkdir(parents=True)
    stored = {"hf": "hf_pLIixMEOLeMaEqJomTEIJEzOjoOjHyq", "cerebras": "csk-abcdefgh12345678ijklmnop9876"}
    (folder / "keys.json").write_text(json.dumps({"// Note": "Do not share!", **stored}, indent=2) + "\n")
    outputs = [
        invoke("apply", "llm", "--profile", str(profile), "--dry-run", *extra).output
        for extra in ((), ("--json",))
    ]
    assert invoke("apply", "llm", "--profile", str(profile)).exit_code == 0
    outputs += [invoke("restore", "llm", "--dry-run", *extra).output for extra in ((), ("--json",))]
    assert '"hf": "…jHyq"' in outputs[0]  # masked, not dropped
    assert not [(n, text) for n, text in enumerate(outputs) for key in stored.values() if key[3:-4] in text]


def test_a_secret_in_a_toml_triple_quoted_string_or_a_yaml_list_item_is_masked(
    home: Path, tmp_path: Path
) -> None:
    """TOML's '''x''' was read as the empty '' and then x; a YAML list item's ``- NAME=x`` (aider's
    ``set-env``) or ``- NAME: x`` (Continue's request headers) was not at a line's start."""
    from gwconf.secrets import redact

    secret = "abcdEFGH1234ijklMNOP"
    lines = {
        f"-experimental_bearer_token = '''{secret}tagD'''": "-experimental_bearer_token = '''…tagD'''",
        f' "Authorization" = """Bearer {secret}tagM"""': ' "Authorization" = """Bearer …tagM"""',
        f"-  - MISTRAL_API_KEY={secret}tagX": "-  - MISTRAL_API_KEY=…tagX",
        f"        - X-Api-Key: {secret}tagZ": "        - X-Api-Key: …tagZ",
    }
    for line, masked in lines.items():
        assert redact(line) == masked
    for kept in ("- key: $OPENAI_KEY", "  - name: gpt-4", "token = ''''''", 'x = """multi'):
        assert redact(kept) == kept
    profile = tmp_path / "p.toml"
    profile.write_text(PROFILE)
    (home / ".aider.conf.yml").write_text(
        f"# mine\nset-env:\n  - MISTRAL_API_KEY={secret}tagX\nmodel: gpt-4\n"
    )
    text = invoke("apply", "aider", "--profile", str(profile), "--dry-run").output
    assert "  - MISTRAL_API_KEY=…tagX" in text and secret not in text


def test_a_key_the_file_splits_over_two_lines_is_masked_in_both_diffs(home: Path, tmp_path: Path) -> None:
    """aider's key continued with a backslash: the diff's second line held the rest of the key,
    which no spelling of the whole key and no pattern meets (apply and restore dry runs)."""
    profile = tmp_path / "p.toml"
    profile.write_text(PROFILE)
    first, rest = "sk-proj-Ab3dEf6hIj9kLm2nOp5q", "RsTuVwXyZ0123456789tag7"
    (home / ".aider.conf.yml").write_text(
        f'model: gpt-4\nopenai-api-key: "{first}\\\n  {rest}"\ndark: true\n'
    )
    outputs = [
        invoke("apply", "aider", "--profile", str(profile), "--dry-run", *extra).output
        for extra in ((), ("--json",))
    ]
    assert invoke("apply", "aider", "--profile", str(profile)).exit_code == 0
    outputs += [invoke("restore", "aider", "--dry-run", *extra).output for extra in ((), ("--json",))]
    assert '-openai-api-key: "…\\\n-  …"' in outputs[0] and '+openai-api-key: "…\\\n+  …"' in outputs[2]
    assert not [n for n, text in enumerate(outputs) if rest[:-4] in text or first[3:] in text]
    assert invoke("restore", "aider").exit_code == 0
    assert rest in (home / ".aider.conf.yml").read_text()  # masked in what is shown, not in the file


def test_two_secrets_sharing_a_piece_are_masked_whole_in_either_order() -> None:
    """The old key and the new share ``-0123456789abcd``: masking a piece of one inside the other
    made the plain path's output differ from click's (the order of a set)."""
    from gwconf.secrets import mask_fragments

    old, new = "sk-test-0123456789abcdefWXYZ", "sk-second-0123456789abcdQRST"
    text = f'-  "KEY": "{old}",\n+  "KEY": "{new}",\n'
    expected = '-  "KEY": "sk-…WXYZ",\n+  "KEY": "sk-…QRST",\n'
    assert mask_fragments(text, [old, new]) == mask_fragments(text, [new, old]) == expected


def test_secrets_behind_a_tag_an_option_or_a_header_string_are_masked_as_context(
    home: Path, tmp_path: Path
) -> None:
    """Three shapes the fifteenth round left printed: a YAML value behind a tag (``!!str``), an
    option's value in an argument list or a command line, a header written inside one string.
    Each stands next to what gwconf changes, so the diff shows it as context."""
    option, header, command, tagged = (
        "Opt0ption5ecretValue9a",
        "Hdr0header5ecretValue9b",
        "Cmd0command5ecretValu9c",
        "Tag0tagged5ecretValue9d",
    )
    profile = tmp_path / "p.toml"
    profile.write_text(PROFILE)
    (home / ".claude").mkdir()
    (home / ".claude" / "settings.json").write_text(
        '{\n  "env": {\n    "FOO": "1"\n  },\n'
        f'  "mcpServers": {{"x": {{"command": "tool", "args": ["--api-key", "{option}"],\n'
        f'    "headers": ["x-api-key: {header}"], "shell": "tool --token={command} -v"}}}}\n}}\n'
    )
    (home / ".aider.conf.yml").write_text(
        f"openai-api-base: https://old.example/v1\napi_key: !!str {tagged}\n"
    )
    dry = ("--profile", str(profile), "--dry-run")
    outputs = [invoke("apply", client, *dry).output for client in ("claude-code", "aider")]
    outputs += [invoke("apply", client, *dry, "--json").output for client in ("claude-code", "aider")]
    assert '"args": ["--api-key", "…ue9a"]' in outputs[0] and "api_key: !!str …ue9d" in outputs[1]
    for secret in (option, header, command, tagged):
        assert not [text for text in outputs if secret[:-4] in text], secret


@pytest.mark.parametrize(
    ("line", "masked"),
    [
        ("api_key: !!str abcdefghij0123456789", "api_key: !!str …6789"),
        ('  token: !secret "abcdefghij0123456789"', '  token: !secret "…6789"'),
        ("- token: !!str 'abcdefghij0123456789'  # c", "- token: !!str '…6789'  # c"),
        ('"token": !!str abcdefghij0123456789', '"token": !!str …6789'),
        ("PASSWORD=!Passw0rd123456", "PASSWORD=…3456"),  # no tag: a value starting with "!"
        ('args = ["--api-key", "abcdefghij0123456789"]', 'args = ["--api-key", "…6789"]'),
        (
            '"x": "aider --openai-api-key abcdefghij0123456789 --model m"',
            '"x": "aider --openai-api-key …6789 --model m"',
        ),
        ('cmd = "tool --token=abcdefghij0123456789"', 'cmd = "tool --token=…6789"'),
        ('"headers": ["x-api-key: abcdefghij0123456789"]', '"headers": ["x-api-key: …6789"]'),
        ('"h": "Authorization: Bearer abcdefghij0123456789"', '"h": "Authorization: Bearer …6789"'),
        # left as they are: references, the next option, a number, prose, a value not secret
        ('"h": "Authorization: Bearer ${TOKEN}"', None),
        ('args = ["--api-key", "$KEY"]', None),
        ('args = ["--no-auth", "--verbose"]', None),
        ('args = ["--token-limit", "100"]', None),
        ('"description": "Token: use the gateway"', None),
        ("model: !!str gpt-4o", None),
        ("(the key is masked; add --show-key to print it in full)", None),  # gwconf's own hints
        ("Read the key from standard input: --key-stdin to read it", None),
    ],
)
def test_the_three_shapes_are_masked_and_their_look_alikes_left(line: str, masked: str | None) -> None:
    assert redact(line) == (line if masked is None else masked)


@pytest.mark.parametrize(
    "line",
    [
        '  "security": { "auth": { "selectedType": "qwen-oauth" } },',  # Qwen Code's settings.json
        '  "gateway": { "auth": { "mode": "token" } },',  # OpenClaw's
        "credentials: [",
    ],
)
def test_the_opening_of_an_object_under_a_secret_name_is_shown(line: str) -> None:
    """Found over real files: a diff showed ``"auth": … "selectedType"``, braces unbalanced,
    a line the file does not hold; the values inside are masked by their own names."""
    assert redact(line) == line
    assert redact('"auth": { "token": "abcdefghijklmnop1234" }') == '"auth": { "token": "…1234" }'


@pytest.mark.parametrize(
    ("line", "masked"),
    [
        ('  "apiKeyHelper": "echo abcdefghij0123456789",', '  "apiKeyHelper": "echo …6789",'),
        ("apiKeyHelper: echo abcdefghij0123456789", "apiKeyHelper: echo …6789"),
        ("api-key-cmd = \"printf '%s' abcdefghij0123456789\"", "api-key-cmd = \"printf '%s' …6789\""),
        (
            '"apiKeyHelper": "sh -c \'echo -n abcdefghij0123456789\'"',
            '"apiKeyHelper": "sh -c \'echo -n …6789\'"',
        ),
        ('"apiKeyHelper": "echo \\"abcdefghij0123456789\\""', '"apiKeyHelper": "echo \\"…6789\\""'),
        ('"u": "https://acct.blob.core.windows.net/c?sv=2024&sig=abcDEF0123456789xyz%3D"', None),
        ("X-Amz-Signature=abcdef0123456789abcdef", "X-Amz-Signature=…cdef"),
        # left as they are: the command is no secret, nor what a setting of another name echoes
        ('"apiKeyHelper": "cat ~/.config/keys/anthropic"', "same"),
        ('"apiKeyHelper": "echo $ANTHROPIC_KEY"', "same"),
        ('"apiKeyHelper": "op read op://vault/gw/key"', "same"),
        ('"command": "echo hello-world-greeting"', "same"),
        ("signature_version: v4", "same"),
    ],
)
def test_a_secret_a_command_prints_and_a_signature_are_masked(line: str, masked: str | None) -> None:
    """Claude Code's ``apiKeyHelper`` (and mods' ``api-key-cmd``) hold a command whose output is
    the key: ``echo <secret>`` puts the secret in the file; a signed address's ``sig=`` is its
    credential. The sixteenth round's note left both printed as a diff's context."""
    shown = redact(line)
    if masked == "same":
        assert shown == line
    elif masked is None:
        assert "abcDEF0123456789xyz" not in shown and "sv=2024&sig=…" in shown
    else:
        assert shown == masked


def test_json_output_masks_what_a_key_command_echoes() -> None:
    data = {
        "apiKeyHelper": "echo abcdefghij0123456789",
        "mcp": {"token_command": "printf %s abcdefghij0123456789"},
    }
    shown = redact_data(data)
    assert shown == {"apiKeyHelper": "echo …6789", "mcp": {"token_command": "printf %s …6789"}}
    assert redact_data({"command": "echo hello-world-greeting"}) == {"command": "echo hello-world-greeting"}


def test_a_key_helper_and_a_signed_address_beside_the_change_are_masked_as_context(
    home: Path, tmp_path: Path
) -> None:
    """The diff of Claude Code's settings.json shows the lines around the env block it changes:
    an ``apiKeyHelper`` that echoes a secret, an MCP server's signed address."""
    echoed, signed = "Echo0helper5ecretValue9e", "Sig0signature5ecretVal9f"
    profile = tmp_path / "p.toml"
    profile.write_text(PROFILE)
    (home / ".claude").mkdir()
    (home / ".claude" / "settings.json").write_text(
        '{\n  "apiKeyHelper": "echo ' + echoed + '",\n  "env": {\n    "FOO": "1"\n  },\n'
        '  "feed": "https://acct.blob.core.windows.net/c?sv=2024&sig=' + signed + '"\n}\n'
    )
    dry = ("--profile", str(profile), "--dry-run")
    outputs = [
        invoke("apply", "claude-code", *dry).output,
        invoke("apply", "claude-code", *dry, "--json").output,
    ]
    assert '"apiKeyHelper": "echo …ue9e"' in outputs[0]
    for secret in (echoed, signed):
        assert not [text for text in outputs if secret[:-4] in text], secret


def test_a_dry_run_of_a_client_set_up_in_its_app_keeps_its_own_hint_whole(home: Path, tmp_path: Path) -> None:
    """The option pattern read "--show-key to" as a flag and its value: every dry run with
    Cursor (or another client set up in the app) said "add --show-key … print it in full"."""
    profile = tmp_path / "p.toml"
    profile.write_text(PROFILE)
    shown = invoke("apply", "cursor", "--profile", str(profile), "--dry-run").output
    assert "(the key is masked; add --show-key to print it in full)" in shown


# -- the thirty-eighth round's sweep: secrets in the shapes users write them ------------------------

_SECRET = "Zq7mPw4XrT9vLk2Nab"  # no known shape: only a name or the data can tell


@pytest.mark.parametrize(
    ("line", "shown"),
    [
        # a dotted TOML key named by its last part (Codex's http_headers)
        (f'http_headers.Authorization = "Bearer {_SECRET}"', 'http_headers.Authorization = "Bearer …2Nab"'),
        # shell: a second assignment, declare/typeset, an alias's, pieces joined, fish, csh, PowerShell
        (f"export EDITOR=vim HF_TOKEN={_SECRET}", "export EDITOR=vim HF_TOKEN=…2Nab"),
        (f"declare -x ANTHROPIC_API_KEY={_SECRET}", "declare -x ANTHROPIC_API_KEY=…2Nab"),
        (f'alias ai="OPENAI_API_KEY={_SECRET} aider"', 'alias ai="OPENAI_API_KEY=…2Nab aider"'),
        (f"export OPENAI_API_KEY=\"{_SECRET[:4]}\"'{_SECRET[4:]}'", 'export OPENAI_API_KEY="…2Nab"'),
        (f"set -Ux OPENAI_API_KEY {_SECRET}", "set -Ux OPENAI_API_KEY …2Nab"),
        (f"setenv OPENAI_API_KEY {_SECRET}", "setenv OPENAI_API_KEY …2Nab"),
        (
            f'[Environment]::SetEnvironmentVariable("X_KEY", "{_SECRET}", "User")',
            '[Environment]::SetEnvironmentVariable("X_KEY", "…2Nab", "User")',
        ),
        # a line commented out keeps its old key
        (f"#openai-api-key: {_SECRET}", "#openai-api-key: …2Nab"),
        (f"# GEMINI_API_KEY={_SECRET}", "# GEMINI_API_KEY=…2Nab"),
        (f"; api_key = {_SECRET}", "; api_key = …2Nab"),
        # headers inside one string: after a \n escape, and as name=value (OpenTelemetry's)
        (
            f'"ANTHROPIC_CUSTOM_HEADERS": "X-Team: a\\nAuthorization: Bearer {_SECRET}"',
            '"ANTHROPIC_CUSTOM_HEADERS": "X-Team: a\\nAuthorization: Bearer …2Nab"',
        ),
        (
            f'"OTEL_EXPORTER_OTLP_HEADERS": "x=y,Authorization=Bearer {_SECRET}"',
            '"OTEL_EXPORTER_OTLP_HEADERS": "x=y,Authorization=Bearer …2Nab"',
        ),
        # an address's user part: a token alone, a password holding a raw "@"
        (f"https://{_SECRET}@gw.corp.example/v1", "https://…2Nab@gw.corp.example/v1"),
        (f"https://bob:p@{_SECRET}@gw.corp.example/v1", "https://bob:…2Nab@gw.corp.example/v1"),
        # a cookie and a JWT by name
        (f'"Cookie": "sess={_SECRET}"', '"Cookie": "…2Nab"'),
        # left as they are: references, prose, a plain user name
        ("export GWCONF_API_KEY=$MY_KEY", "export GWCONF_API_KEY=$MY_KEY"),
        ("# key: the key you got from the gateway", "# key: the key you got from the gateway"),
        ("ssh://git@github.com/o/r", "ssh://git@github.com/o/r"),
    ],
)
def test_a_secret_written_the_way_users_write_it_is_masked(line: str, shown: str) -> None:
    assert redact(line) == shown


def test_whatever_a_file_holds_under_a_secrets_name_is_masked_in_its_diff(home: Path, tmp_path: Path) -> None:
    """aider's own ``api-key`` list (``- huggingface=hf_...``) and Codex's ``http_headers`` as a
    dotted key: a diff shows them as context, and neither has a shape a pattern knows."""
    profile = tmp_path / "p.toml"
    profile.write_text(PROFILE)
    hf, fw, bearer = "hf_pLIixMEOLeMaEqJomTEIJEzOjoOjHyq", "fw_3ZqWm8kPtLx9aRbVc2", "Qm9vLk2NzX8wPq4RtYe"
    (home / ".aider.conf.yml").write_text(
        f"model: gpt-4\napi-key:\n  - huggingface={hf}\n  - fireworks={fw}\n"
    )
    (home / ".codex").mkdir()
    (home / ".codex" / "config.toml").write_text(
        f'model = "o3"\nhttp_headers.Authorization = "Bearer {bearer}"\n'
    )
    outputs = [
        invoke("apply", client, "--profile", str(profile), "--dry-run", *extra).output
        for client in ("aider", "codex")
        for extra in ((), ("--json",))
    ]
    assert " - …jHyq\n" in outputs[0] and " - …bVc2\n" in outputs[0]  # masked, not dropped
    assert not [(n, s) for n, text in enumerate(outputs) for s in (hf, fw, bearer) if s[3:-4] in text]


def test_a_key_command_that_prints_a_literal_key_is_shown_masked_and_not_exported(
    home: Path, tmp_path: Path
) -> None:
    literal = "Zq7mPw4XrT9vLk2NcmdZ"
    added = invoke(
        "profile", "add", "k", "--base-url", "https://gw.example.com/v1", "--model", "m",
        "--key-cmd", f"echo {literal}", "--use",
    )  # fmt: skip
    assert added.exit_code == 0, added
    outputs = [
        invoke(*args)
        for args in (
            ("profile", "list"),
            ("profile", "list", "--json"),
            ("profile", "show", "k"),
            ("profile", "show", "k", "--json"),
            ("profile", "export", "k"),
            ("profile", "export", "k", "-o", str(tmp_path / "team.toml")),
        )
    ]
    assert "key=cmd:echo …cmdZ" in outputs[0].output
    assert "key_cmd left out" in outputs[4].stderr and "key_cmd" not in outputs[4].stdout
    assert not [n for n, result in enumerate(outputs) if literal[:-4] in result.output]
    assert literal not in (tmp_path / "team.toml").read_text()
    assert "key_cmd = " in invoke("profile", "export", "k", "--include-key").stdout  # asked for


def test_a_json5_number_that_may_be_a_key_is_not_quoted_in_the_error(home: Path, tmp_path: Path) -> None:
    profile = tmp_path / "p.toml"
    profile.write_text(PROFILE)
    (home / ".openclaw").mkdir()
    (home / ".openclaw" / "openclaw.json").write_text('{ "apiKey": 12Zq7mPw4XrT9vLk2N }\n')
    result = invoke("apply", "openclaw", "--profile", str(profile), "--dry-run")
    assert "~/.openclaw/openclaw.json:1:13: the number 12Zq… is JSON5 only" in result.output
    assert "q7mPw4XrT9vLk2N" not in result.output


@pytest.mark.parametrize("tag", ["!!bool", "!!timestamp", "!!int", "!!float"])
def test_a_yaml_value_its_tag_cannot_build_is_a_parse_error_not_a_crash(
    home: Path, tmp_path: Path, tag: str
) -> None:
    """PyYAML raises Python's own errors for ``!!bool x`` (a KeyError holding the value,
    lowercased) and ``!!timestamp x`` (an AttributeError): reported as a bug in gwconf, with
    ``--debug`` printing the value whole."""
    profile = tmp_path / "p.toml"
    profile.write_text(PROFILE)
    (home / ".aider.conf.yml").write_text(f"model: gpt-4\nopenai-api-key: {tag} Zq7mPw4X-rT9vLk2N\n")
    for args in (("apply", "aider", "--profile", str(profile), "--dry-run"), ("status", "aider")):
        result = invoke(*args)
        assert "this is a bug" not in result.output and "unexpected error" not in result.output, result
        assert f"~/.aider.conf.yml:2:17: the value tagged {tag} cannot be read as one" in result.output
        assert "rt9vlk2n" not in result.output.lower()
    assert invoke("apply", "aider", "--profile", str(profile)).exit_code == 1


def test_a_secret_of_several_lines_is_masked_line_by_line_in_a_diff() -> None:
    """A YAML block scalar or a multi-line .env value under a secret's name: masked whole, the
    diff's lines were joined into one the file does not hold (the secrets sweep)."""
    from gwconf.secrets import mask_fragments

    secret = "Zq7mPw4XrT9vLk2Nab\nQm9vLk2NzX8wPq4RtY\n"
    diff = "-key: |\n-  Zq7mPw4XrT9vLk2Nab\n-  Qm9vLk2NzX8wPq4RtY\n+model: x"
    assert mask_fragments(diff, [secret]) == "-key: |\n-  …2Nab\n-  …4RtY\n+model: x"


@pytest.mark.parametrize(
    ("text", "walked"),
    [
        ("api-key:\n  - huggingface=hf_x\n", True),  # a YAML block under a secret's name
        ('{"headers": {"a": 1}, "auth": {"token": "x"}}', True),
        ('model = "o3"\n[secrets]\nhf = "x"\n', True),  # a TOML table named so
        ('{"apiKey": "sk-x", "theme": {"dark": true}}', False),  # a value on its line: the patterns'
        ("[tui]\nnotifications = true\n", False),
    ],
)
def test_the_data_walk_runs_only_for_a_secrets_list_or_table(text: str, walked: bool) -> None:
    """The walk over a file's data (every string under a secret's name) cost 12 ms of a dry run
    over the bench home when run for every file: it runs where a secret's name holds a list or a
    table, which a line's pattern cannot see whole."""
    from gwconf.secrets import names_a_secret_container

    fmt = "toml" if "[secrets]" in text or "[tui]" in text else "yaml"
    assert names_a_secret_container(text, fmt) is walked
