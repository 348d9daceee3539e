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
