"""``gwconf hook bash|zsh|fish``: a prompt hook, in the way direnv and mise do it.

The hook runs ``gwconf current --hook SHELL`` before each prompt. That prints nothing while the
folder's binding is the one already exported (the common case: it reads one small file and
imports only ``gwconf.binding`` and ``gwconf.dirs``). On entering a folder bound by a ``.gwconf.toml`` it prints the
shell code that exports ``GWCONF_PROFILE`` and the variables ``gwconf run shell`` sets (the
shell client's launch environment: ``OPENAI_BASE_URL``, ``OPENAI_API_BASE``, ``OPENAI_API_KEY``,
and the Anthropic/Gemini pairs a profile sets explicitly), after saving the values they had; on
leaving it puts those values back (or unsets them).

The address and the key come from the saved profile the file names, never from the file (which
may only hold ``profile = "NAME"``: ``gwconf.binding``). A ``GWCONF_PROFILE`` the user set
beats the folder (the order every command follows), so the hook then does nothing.

State lives in two variables of the shell: ``_GWCONF_HOOK`` (``NAME|FILE``, or ``!|FILE`` /
``!NAME|FILE`` after a refusal, so the error is printed once, not at every prompt) and
``_GWCONF_HOOK_PREV`` (each variable's earlier value, hex-encoded, or its name alone when it was
unset).
"""

from __future__ import annotations

import os
import sys

from gwconf import binding
from gwconf.dirs import home_folder

STATE = "_GWCONF_HOOK"
PREVIOUS = "_GWCONF_HOOK_PREV"
SHELLS = ("bash", "zsh", "fish")


def script(shell: str, program: str | None = None) -> str:
    """The text ``gwconf hook SHELL`` prints, for ``eval "$(gwconf hook bash)"`` in an rc file."""
    command = _quote(program or _program(), shell)
    if shell == "bash":
        return f"""_gwconf_hook() {{
  local previous_exit_status=$?
  trap -- '' SIGINT
  eval "$({command} current --hook bash)"
  trap - SIGINT
  return $previous_exit_status
}}
if [[ ";${{PROMPT_COMMAND[*]:-}};" != *";_gwconf_hook;"* ]]; then
  if [[ "$(declare -p PROMPT_COMMAND 2>&1)" == "declare -a"* ]]; then
    PROMPT_COMMAND=(_gwconf_hook "${{PROMPT_COMMAND[@]}}")
  else
    PROMPT_COMMAND="_gwconf_hook${{PROMPT_COMMAND:+;$PROMPT_COMMAND}}"
  fi
fi
"""
    if shell == "zsh":
        return f"""_gwconf_hook() {{
  trap -- '' SIGINT
  eval "$({command} current --hook zsh)"
  trap - SIGINT
}}
typeset -ag precmd_functions
if (( ! ${{precmd_functions[(I)_gwconf_hook]}} )); then
  precmd_functions=(_gwconf_hook $precmd_functions)
fi
typeset -ag chpwd_functions
if (( ! ${{chpwd_functions[(I)_gwconf_hook]}} )); then
  chpwd_functions=(_gwconf_hook $chpwd_functions)
fi
"""
    return f"""function __gwconf_hook --on-event fish_prompt
    {command} current --hook fish | source
end
function __gwconf_hook_cd --on-variable PWD
    status --is-command-substitution; and return
    {command} current --hook fish | source
end
"""


def _program() -> str:
    """The gwconf running now, when it is a gwconf executable (the hook keeps working when PATH
    changes, as direnv's does); else ``gwconf``."""
    path = sys.argv[0] if sys.argv else ""
    if os.path.basename(path).startswith("gwconf") and os.path.isfile(path):
        return os.path.abspath(path)
    return "gwconf"


def _quote(value: str, shell: str) -> str:
    if shell == "fish":
        return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"
    return "'" + value.replace("'", "'\\''") + "'"


def _export(name: str, value: str, shell: str) -> str:
    if shell == "fish":
        return f"set -gx {name} {_quote(value, shell)};"
    return f"export {name}={_quote(value, shell)};"


def _unset(name: str, shell: str) -> str:
    return f"set -e {name};" if shell == "fish" else f"unset {name};"


def _encode(values: dict[str, str | None]) -> str:
    return ",".join(
        name if value is None else f"{name}={value.encode().hex()}" for name, value in values.items()
    )


def _decode(text: str) -> dict[str, str | None]:
    values: dict[str, str | None] = {}
    for item in filter(None, text.split(",")):
        name, equals, value = item.partition("=")
        try:
            values[name] = bytes.fromhex(value).decode() if equals else None
        except ValueError:
            continue
    return values


def export(shell: str) -> int:
    """``gwconf current --hook SHELL``: the shell code for the folder the shell is in now (often none)."""
    environ = os.environ
    state = environ.get(STATE) or ""
    if not state and environ.get(binding.ENV_VAR):
        return 0  # the user's own GWCONF_PROFILE wins over any folder
    home = home_folder(environ, sys.platform)
    try:
        file = binding.find_file(os.getcwd(), home)
    except OSError:  # the folder was removed under the shell
        file = None
    error: binding.BindingError | Exception | None = None
    name = None
    if file is not None:
        try:
            name = binding.read_file(file)
        except binding.BindingError as exc:
            error = exc
    wanted = f"{name}|{file}" if name else (f"!|{file}" if file else "")
    if wanted == state or (name and state == f"!{name}|{file}"):
        return 0  # nothing changed (or the same refusal, already said once)
    lines: list[str] = []
    view = dict(environ)
    old_name = state.partition("|")[0]
    if state and not old_name.startswith("!"):  # leaving (or switching): put back what was there before
        for var, value in _decode(environ.get(PREVIOUS, "")).items():
            if var == binding.ENV_VAR and environ.get(var) != old_name:
                continue  # changed by the user since: theirs
            if value is None:
                lines.append(_unset(var, shell))
                view.pop(var, None)
            else:
                lines.append(_export(var, value, shell))
                view[var] = value
        lines.append(_unset(PREVIOUS, shell))
    if name:
        try:
            values = _variables(name)
        except Exception as exc:  # a missing profile, a key command that failed: said once
            error = exc
            wanted = f"!{name}|{file}"
        else:
            saved = {var: view.get(var) for var in values}
            lines += [_export(var, value, shell) for var, value in values.items()]
            lines.append(_export(PREVIOUS, _encode(saved), shell))
    lines.append(_export(STATE, wanted, shell) if wanted else _unset(STATE, shell))
    if error is not None:
        message = getattr(error, "message", str(error))
        hint = getattr(error, "hint", None)
        sys.stderr.write(f"gwconf: error: {message}\n" + (f"hint: {hint}\n" if hint else ""))
    try:
        sys.stdout.write("\n".join(lines) + "\n")
        sys.stdout.flush()
    except BrokenPipeError:
        pass
    return 0


def _variables(name: str) -> dict[str, str]:
    """``GWCONF_PROFILE`` and the shell client's launch variables for the saved profile ``name``."""
    from gwconf import registry
    from gwconf.paths import Env
    from gwconf.profiles import ProfileStore

    env = Env.current()
    profile = ProfileStore(env).load(name)  # a name checked by binding: never a path
    client = registry.get("shell")
    spec = client.launch(client.target(profile, env), env, [])
    values = {binding.ENV_VAR: profile.name}
    if spec is not None:
        values.update({var: str(value) for var, value in spec.env.items()})
    return values
