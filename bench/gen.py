"""Large configuration files for the scale benchmark, grown to an exact size class.

- JSONC: a VS Code ``settings.json`` (tabs, ``//`` and ``/* */`` comments, trailing commas,
  nested objects, arrays, URLs with ``//`` inside strings) grown with comments and entries.
- YAML: a Continue ``config.yaml`` grown with model entries, comments and folded text.
- TOML: a Codex ``config.toml`` grown with profiles, MCP servers and comments.
"""

from __future__ import annotations

MB = 1 << 20

JSONC_HEAD = """// VS Code user settings, grown for gwconf's benchmark.
// Place your settings in this file to overwrite the default settings.
{
\t"editor.fontSize": 14,
\t"workbench.colorTheme": "Default Dark Modern", // the usual
\t/* Proxy settings: the company proxy, with a path that contains // */
\t"http.proxy": "https://proxy.example.com//corp",
"""

JSONC_BLOCK = """\t// ---- block {i}: settings for project {i} ----
\t"[lang-{i}]": {{
\t\t"editor.tabSize": {tab},
\t\t"editor.rulers": [80, 100, 120,],
\t\t"editor.defaultFormatter": "acme.formatter-{i}", // team formatter
\t}},
\t/* files excluded from search in project {i}:
\t   generated code and "vendored" folders */
\t"files.exclude.{i}": {{ "**/.git": true, "**/node_modules": true, "**/dist-{i}": true, }},
\t"terminal.integrated.env.linux.{i}": {{ "PATH": "${{env:PATH}}:/opt/tool-{i}/bin", "URL": "https://svc-{i}.example.com/api//v1" }},
\t"python.analysis.extraPaths.{i}": ["./src", "./lib/{i}", "C:\\\\tools\\\\{i}",],
\t"cSpell.words.{i}": ["gwconf", "jsonc", "tomlkit", "word{i}", "\\u00e9t\\u00e9", "日本"],
"""

JSONC_TAIL = """\t"telemetry.telemetryLevel": "off",
}
"""

YAML_HEAD = """# Continue config, grown for gwconf's benchmark.
name: Local Assistant
version: 1.0.0
schema: v1
models:
"""

YAML_BLOCK = """  # model {i}: tried for project {i}
  - name: model-{i}
    provider: openai
    model: gpt-4o-mini-{i}  # the small one
    apiBase: https://api-{i}.example.com/v1
    roles:
      - chat
      - edit
    defaultCompletionOptions:
      temperature: 0.{t}
      maxTokens: {tokens}
    requestOptions:
      headers:
        X-Project: "project {i}: keep"
"""

YAML_TAIL = """context:
  - provider: code
  - provider: docs
rules:
  - Always answer in English  # comment
"""

TOML_HEAD = """# Codex settings, grown for gwconf's benchmark -- hand-edited, keep the comments.
model = "gpt-5.4"            # the default I like
model_reasoning_effort = "high"
approval_policy = "on-request"
notify = ["notify-send", "Codex"]

[features]
web_search = true
"""

TOML_BLOCK = """
# profile {i}: tried for project {i}, kept for later
[profiles.p{i}]
model = "model-{i}"  # comment {i}
approval_policy = "on-request"
sandbox_mode = "workspace-write"

[mcp_servers.s{i}]
command = "npx"
args = ["-y", "@acme/tool-{i}", "--port", "{port}"]
env = {{ "TOKEN_{i}" = "t-{i}", LEVEL = 'debug' }}

[projects."/home/me/src/project-{i}"]
trust_level = "trusted"
"""

TOML_TAIL = """
[windows]
sandbox = "elevated"
"""

SHAPES = {
    "jsonc": (JSONC_HEAD, JSONC_BLOCK, JSONC_TAIL),
    "yaml": (YAML_HEAD, YAML_BLOCK, YAML_TAIL),
    "toml": (TOML_HEAD, TOML_BLOCK, TOML_TAIL),
}

# the key set in each format: a new nested entry, as gwconf adds a provider
KEY_PATHS = {
    "jsonc": ("gwconf.provider", "baseURL"),
    "yaml": ("gwconf", "apiBase"),
    "toml": ("model_providers", "gwconf", "base_url"),
}
VALUE = "http://127.0.0.1:8080/v1"

# format -> (client, its file under HOME): whose file each shape is, for ``gwconf apply CLIENT``
CLIENTS = {
    "jsonc": ("zed", (".config", "zed", "settings.json")),
    "yaml": ("continue", (".continue", "config.yaml")),
    "toml": ("codex", (".codex", "config.toml")),
}


def make(fmt: str, size: int) -> str:
    """A file of ``fmt`` holding about ``size`` bytes (UTF-8), never less."""
    head, block, tail = SHAPES[fmt]
    parts = [head]
    total = len(head.encode()) + len(tail.encode())
    i = 0
    while total < size:
        i += 1
        text = block.format(i=i, tab=2 + i % 3, t=i % 10, tokens=1000 + i, port=8000 + i % 1000)
        parts.append(text)
        total += len(text.encode())
    parts.append(tail)
    return "".join(parts)
