"""YAML editor: splice new text into the original at node positions (ruamel round trips rewrote lines).

A full load-and-dump rewrites unrelated lines (quotes, indentation, comments, folding), so this
editor never does one. It composes the text into PyYAML nodes with exact start/end offsets (from
libyaml's event stream when PyYAML has it), changes only the spans an edit needs, and composes again
before the next edit. The composer is our own (``_composer``: a function per parser event, no
recursion) rather than ``yaml.compose``: that one recurses per nesting level (the C version crashes
the interpreter on deep input), mutates nodes for merge keys, and cannot tell an alias occurrence
from the node it refers to. With libyaml the parser calls the composer's functions in place of its
event classes (no event object per node); PyYAML's pure-Python parser feeds them its events' fields.

New strings are written plain only when both YAML 1.1 (PyYAML: aider, llm) and YAML 1.2 (Continue)
read the plain text back as that same string; otherwise as JSON-style double-quoted scalars.
"""

from __future__ import annotations

import bisect
import itertools
import math
import re
from collections import deque
from collections.abc import Iterator
from contextlib import contextmanager

import yaml
from yaml import events
from yaml.constructor import BaseConstructor, ConstructorError, SafeConstructor
from yaml.events import (
    AliasEvent,
    MappingStartEvent,
    ScalarEvent,
    SequenceStartEvent,
)
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode
from yaml.resolver import Resolver

from gwconf.errors import ParseError, WriteRefused
from gwconf.formats import replay
from gwconf.formats._base import (
    MISSING,
    Edit,
    KeyPath,
    Op,
    after_comment,
    changed_regions,
    comment_line_above,
    copied,
    detect_eol,
    ignore_pristine,
    lazy,
    line_in,
    paused_gc,
    put_before_as_put_back,
    reread_from_scratch,
    same_run,
    same_shared,
    same_value,
    trimmed_edit,
)
from gwconf.records import record

TYPE_CHECKING = False  # typing costs about 3 ms to import (issue 15): annotations only
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any, NoReturn

__all__ = ["MAX_DEPTH", "YamlDocument", "load"]

# libyaml's parser when PyYAML was built with it (30x faster); tests swap in the pure-Python one.
LOADER: type = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

# Deeper documents are refused: verify_edit's deepcopy and == recurse once or twice per level.
MAX_DEPTH = 200
# A document whose aliases, read whole, make more values than this (or than it has characters,
# if more) is refused: a few lines of aliases of aliases would be billions (``_expands_past``).
MAX_EXPANDED = 100_000

_STR = "tag:yaml.org,2002:str"
_NULL = "tag:yaml.org,2002:null"
_MERGE = "tag:yaml.org,2002:merge"
_VALUE = "tag:yaml.org,2002:value"

_BUG_HINT = "This is a gwconf bug: please report it with the file (keys removed)."
_HAND_HINT = "Edit that part of the file by hand, then run gwconf again."


class _Constructor(SafeConstructor):  # type: ignore[misc]  # PyYAML ships no types
    """SafeConstructor that leaves the composed nodes alone.

    PyYAML's ``flatten_mapping`` rewrites mappings with merge keys (``<<``) in place; the editor
    keeps using the nodes for positions, so merges are resolved on a copy of the pair list.
    """

    def construct_mapping(self, node: Any, deep: bool = False) -> Any:
        if isinstance(node, MappingNode) and any(k.tag in (_MERGE, _VALUE) for k, _ in node.value):
            node = MappingNode(node.tag, self._flattened(node), node.start_mark, node.end_mark)
        return BaseConstructor.construct_mapping(self, node, deep=deep)

    def _flattened(self, node: MappingNode) -> list[tuple[Node, Node]]:
        """The pairs ``flatten_mapping`` would leave in ``node.value``, without touching it."""
        merge: list[tuple[Node, Node]] = []
        pairs: list[tuple[Node, Node]] = []
        for key_node, value_node in node.value:
            if key_node.tag == _MERGE:
                if isinstance(value_node, MappingNode):
                    merge.extend(self._flattened(value_node))
                elif isinstance(value_node, SequenceNode):
                    parts = []
                    for sub in value_node.value:
                        if not isinstance(sub, MappingNode):
                            raise ConstructorError(
                                "while constructing a mapping",
                                node.start_mark,
                                f"expected a mapping for merging, but found {sub.id}",
                                sub.start_mark,
                            )
                        parts.append(self._flattened(sub))
                    for sub_pairs in reversed(parts):
                        merge.extend(sub_pairs)
                else:
                    raise ConstructorError(
                        "while constructing a mapping",
                        node.start_mark,
                        f"expected a mapping or list of mappings for merging, but found {value_node.id}",
                        value_node.start_mark,
                    )
            elif key_node.tag == _VALUE:
                str_key = ScalarNode(_STR, key_node.value, key_node.start_mark, key_node.end_mark)
                pairs.append((str_key, value_node))
            else:
                pairs.append((key_node, value_node))
        return merge + pairs


_KEY_CTOR = _Constructor()
_NO_KEY: Any = object()


def _key_value(node: Node) -> Any:
    """The Python value of a mapping key as safe_load builds it; _NO_KEY for merge/complex keys."""
    if not isinstance(node, ScalarNode) or node.tag in (_MERGE, _VALUE):
        return _NO_KEY
    if node.tag == _STR:
        return node.value
    try:
        return SafeConstructor.yaml_constructors.get(node.tag, SafeConstructor.construct_undefined)(
            _KEY_CTOR, node
        )
    except Exception:  # an unconstructible key: the data check reports it with its position
        return _NO_KEY


# ---------------------------------------------------------------------------------------------
# Scalars: what may be written plain, and the quoted forms.

_RESOLVER = Resolver()
# Plain text that some YAML 1.1 reader (the spec, not PyYAML) or the YAML 1.2 core schema would
# read as something other than a string.
_NOT_STR = lazy(
    r"[yYnN]"
    r"|~|null|Null|NULL|true|True|TRUE|false|False|FALSE"
    r"|[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+"
    r"|[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?"
    r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN)"
)
_PLAIN_FIRST_BAD = frozenset("-?:,[]{}#&*!|>'\"%@` \t.")
# YAML's printable characters are \x20-\x7e, \xa0-\ud7ff, \ue000-\ufffd and the astral planes; the
# rest is written as the small class it is (negating the big one cost 4-5 ms to compile at start)
_NON_PRINTABLE = r"\x00-\x1f\x7f-\x9f\ud800-\udfff\ufffe\uffff"
_PLAIN_BAD = lazy(rf": |:$| #|[\t\n\r\x85\u2028\u2029\ufeff{_NON_PRINTABLE}]")
_FLOW_BAD = lazy(r"[,\[\]{}:#]")
_DQ_ESCAPE = lazy('["\\\\\x00-\x1f\x7f-\x9f\u2028\u2029\ufeff\ud800-\udfff\ufffe\uffff]')
_DQ_NAMED = {'"': '\\"', "\\": "\\\\", "\n": "\\n", "\t": "\\t", "\r": "\\r"}
_SQ_BAD = lazy(rf"[\t\n\r\x85\u2028\u2029\ufeff{_NON_PRINTABLE}]")


def _plain_ok(text: str, *, flow: bool) -> bool:
    """True when ``text`` written plain reads back as this string under YAML 1.1 and 1.2."""
    if not text or text[0] in _PLAIN_FIRST_BAD or text[-1] in " \t":
        return False
    if _plain_bad(text) or (flow and _FLOW_BAD.search(text)):
        return False
    if _NOT_STR.fullmatch(text):
        return False
    tag: str = _RESOLVER.resolve(ScalarNode, text, (True, False))
    return tag == _STR


def _printable_ascii(text: str) -> bool:
    """Only \\x20-\\x7e: none of the classes below matches, so their patterns (each a 64K bitmap
    that ``re`` builds in Python, 0.4-0.6 ms apiece) need not be compiled for the usual value."""
    return text.isascii() and text.isprintable()


def _plain_bad(text: str) -> bool:
    """``_PLAIN_BAD.search(text)``, as str methods where the text is printable ASCII."""
    if _printable_ascii(text):
        return ": " in text or " #" in text or text.endswith(":")
    return _PLAIN_BAD.search(text) is not None


def _sq_bad(text: str) -> bool:
    return not _printable_ascii(text) and _SQ_BAD.search(text) is not None


def _double(text: str) -> str:
    """A JSON-style double-quoted scalar (also valid YAML): every string round-trips."""
    if _printable_ascii(text):  # only " and \\ need escapes
        return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return '"' + _DQ_ESCAPE.sub(lambda m: _DQ_NAMED.get(m.group(), f"\\u{ord(m.group()):04x}"), text) + '"'


def _float_text(value: float) -> str:
    if math.isnan(value):
        return ".nan"
    if math.isinf(value):
        return ".inf" if value > 0 else "-.inf"
    text = repr(value).lower()
    if "." not in text and "e" in text:  # YAML 1.1 floats need a dot: 1e+20 would be a string
        text = text.replace("e", ".0e", 1)
    return text


def _scalar_text(value: Any, *, flow: bool, style: str | None = None) -> str:
    """Render a scalar; a string keeps the old scalar's quote style when it fits in it."""
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return _float_text(value)
    text: str = value  # the only scalar left
    if style == "'" and not _sq_bad(text):
        return "'" + text.replace("'", "''") + "'"
    if style != '"' and _plain_ok(text, flow=flow):
        return text
    return _double(text)


def _key_text(key: Any, *, flow: bool) -> str:
    if isinstance(key, str) and len(key) > 200:  # implicit keys are limited to 1024 characters
        return _double(key)
    return _scalar_text(key, flow=flow)


def _flow_text(value: Any) -> str:
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_key_text(k, flow=True)}: {_flow_text(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(_flow_text(v) for v in value) + "]"
    return _scalar_text(value, flow=True)


def _is_inline(value: Any) -> bool:
    """Values written on the key's own line in block context: scalars and empty collections."""
    return not isinstance(value, (dict, list)) or not value


def _inline_text(value: Any) -> str:
    """A scalar or an empty collection as written after ``key: `` or ``- `` in block context."""
    return _flow_text(value) if isinstance(value, (dict, list)) else _scalar_text(value, flow=False)


def _check_value(value: Any, depth: int = 0) -> None:
    if value is None or isinstance(value, (str, bool, int, float)):
        return
    if depth >= MAX_DEPTH:
        raise ValueError(f"value nested deeper than {MAX_DEPTH} levels")
    if isinstance(value, dict):
        for key, item in value.items():
            if not (key is None or isinstance(key, (str, int, float, bool))):
                raise TypeError(f"gwconf writes YAML keys as scalars, not {type(key).__name__}")
            _check_value(item, depth + 1)
    elif isinstance(value, list):
        for item in value:
            _check_value(item, depth + 1)
    else:
        raise TypeError(f"gwconf cannot write a {type(value).__name__} to YAML")


def _fmt_path(path: KeyPath) -> str:
    if not path:
        return "the top level"
    out = ""
    for part in path:
        if isinstance(part, int) and not isinstance(part, bool):
            out += f"[{part}]"
        else:
            out += ("." if out else "") + str(part)
    return out


def _nest(path: KeyPath, value: Any) -> Any:
    for part in reversed(path):
        value = {part: value}
    return value


# ---------------------------------------------------------------------------------------------
# Composing: events -> nodes with integer offsets, without recursion.


@record
class _Tree:
    root: Node | None
    aliases: dict[int, dict[Any, tuple[int, int]]]  # id(collection) -> slot -> span of the alias text
    referenced: dict[int, str]  # id(node) -> anchor name, for anchors that some alias uses
    ref_starts: list[tuple[int, str]]  # sorted (start offset, anchor name) of those nodes
    anchored: bool = False  # some node has an anchor (used or not)
    # safe_load's value, built while composing when asked (``_compose(build=True)``) and the
    # shapes allow (``_construct_directly``'s); else _UNBUILT
    data: Any = None
    built: bool = False


def _line_col(text: str, index: int) -> tuple[int, int]:
    index = max(0, min(index, len(text)))
    return text.count("\n", 0, index) + 1, index - (text.rfind("\n", 0, index) + 1) + 1


def _mark_pos(text: str, mark: Any) -> tuple[int | None, int | None]:
    if mark is None:
        return None, None
    if isinstance(mark, int):
        return _line_col(text, mark)
    return mark.line + 1, mark.column + 1


def _likely(problem: str, char: str) -> str | None:
    """What a person most likely wrote where PyYAML (libyaml's words, or the Python reader's)
    stopped with ``problem`` at ``char``."""
    if char == "\t" and ("tab" in problem or "cannot start any token" in problem):
        return "a tab in the indentation (YAML indents with spaces)"
    if problem.startswith("mapping values are not allowed"):
        return (
            "a ': ' YAML did not expect: a value holding ': ' needs quotes, or the line is indented too deep"
        )
    if problem.startswith("found unexpected end of stream") or problem.startswith("found end of stream"):
        return "a quote that never closes"
    if problem.startswith("could not find expected ':'"):
        return "a line among keys that has no ':' after a name (or a quote that never closes)"
    if problem.startswith("did not find expected key") or problem.startswith("expected <block end>"):
        return "a line indented differently from the keys around it, or a '- ' item among keys"
    if problem.startswith(("block sequence entries are not allowed", "sequence entries are not allowed")):
        return "a '- ' item where a value was expected: give the list its own lines, indented under its key"
    return None


def _parse_error(exc: BaseException, text: str, source: str) -> ParseError:
    """A PyYAML error as gwconf's ParseError: 1-based line/column, no '<unicode string>'."""
    line: int | None
    column: int | None
    if isinstance(exc, yaml.MarkedYAMLError):
        message = exc.problem or exc.context or "invalid YAML"
        if "nesting depth" in message:  # PyYAML >= 6.0.3 stops at its own limit, above gwconf's
            message = f"nesting deeper than {MAX_DEPTH} levels; gwconf does not edit such files"
        elif exc.problem and exc.context:
            cline, ccol = _mark_pos(text, exc.context_mark)
            where = f" at line {cline}, column {ccol}" if cline is not None else ""
            message = f"{exc.problem} ({exc.context}{where})"
        at = exc.problem_mark
        offset = at if isinstance(at, int) else getattr(at, "index", None)
        likely = _likely(exc.problem or "", text[offset : offset + 1] if isinstance(offset, int) else "")
        if likely:
            message = f"{likely}; PyYAML says: {message}"
        line, column = _mark_pos(text, exc.problem_mark or exc.context_mark)
    elif isinstance(exc, yaml.reader.ReaderError):
        char = exc.character if isinstance(exc.character, int) else ord(exc.character or "\0")
        message = f"unacceptable character #x{char:04x}: {exc.reason}"
        line, column = _line_col(text, exc.position)
    else:
        message, line, column = str(exc), None, None
    message = re.sub(r'\s*in "<[^>]*>",[^\n]*', "", message).strip()
    return ParseError(source, hide_tokens(message), line, column)


_QUOTED_TOKEN = lazy(r"(?<=[*!&'])[^\s']{12,}")


def hide_tokens(message: str) -> str:
    """A parse error's message with the file's long tokens masked: PyYAML quotes an unquoted
    value it cannot read (``*...`` as an alias, ``!...`` as a tag, ``&...`` as an anchor twice),
    and a key or password that starts with one was printed whole (found over real dotfiles).
    Line and column still say where."""
    from gwconf.secrets import mask

    return _QUOTED_TOKEN.sub(lambda m: mask(m.group()), message)


def _compose(text: str, source: str, build: bool = False) -> _Tree:
    """The text's nodes; with ``build`` also its data where ``_construct_directly`` would build it
    (a second walk over a 4 MB file's nodes was a quarter of reading it)."""
    loader = None
    try:
        loader = LOADER(text)  # the pure-Python reader checks the characters here
        with paused_gc():
            callbacks, finish = _composer(loader, text, source, build)
            module = _callbacks_usable(loader)
            if module is not None:
                _feed_by_callbacks(module, loader, callbacks)
            else:
                _feed_events(loader, callbacks)
            return finish()
    except yaml.YAMLError as exc:
        raise _parse_error(exc, text, source) from None
    except UnicodeError:
        raise ParseError(source, "not valid Unicode text") from None
    finally:
        if loader is not None:
            loader.dispose()


def _feed_by_callbacks(module: Any, loader: Any, callbacks: dict[str, Any]) -> None:
    """libyaml's parser calls ``callbacks`` in place of its event classes, to the end of the
    stream or to the first callback that answers None (an error it keeps), all in C.

    PyYAML's C parser makes each event by calling the class its module holds under the event's
    name; while this runs those names hold the composer's functions, and ``iter(get_event,
    None)`` drives the parser. An event object (a Python ``__init__`` for all but scalars) and a
    turn of a Python loop to take it apart were a tenth of composing and 6% of ``gwconf apply
    continue`` on 4 MB (issue 15, callgrind). The names are put back after, error or not."""
    for name, function in callbacks.items():
        setattr(module, name, function)
    try:
        deque(iter(loader.get_event, None), maxlen=0)  # the loop in C, not a turn of ceval's each
    finally:
        for name in _EVENT_NAMES:
            setattr(module, name, getattr(events, name))


def _feed_events(loader: Any, callbacks: dict[str, Any]) -> None:
    """The same calls from the parser's event objects, one at a time: for PyYAML's pure-Python
    parser, and for libyaml's when ``_callbacks_read_alike`` refused it."""
    get = loader.get_event
    while (event := get()) is not None:
        fields = _event_fields(event)
        if callbacks[fields[0]](*fields[1:]) is None:
            return


# the event classes PyYAML's C parser makes its events with, by their names in its module
_EVENT_NAMES = (
    "StreamStartEvent",
    "StreamEndEvent",
    "DocumentStartEvent",
    "DocumentEndEvent",
    "AliasEvent",
    "ScalarEvent",
    "SequenceStartEvent",
    "SequenceEndEvent",
    "MappingStartEvent",
    "MappingEndEvent",
)
# whether libyaml's parser calls each of those names with its class's fields in their order
# (None: not looked at yet)
_CALLBACKS_OK: list[bool | None] = [None]


def _callbacks_usable(loader: Any) -> Any:
    """PyYAML's C module, when ``_feed_by_callbacks`` can drive ``loader``: libyaml's parser,
    event names still PyYAML's own, and (checked once per process) called with the fields
    ``_callbacks_read_alike`` expects; else None."""
    module = getattr(yaml, "_yaml", None)
    if module is None or not isinstance(loader, getattr(module, "CParser", ())):
        return None
    if _CALLBACKS_OK[0] is None:
        _CALLBACKS_OK[0] = False
        _CALLBACKS_OK[0] = _callbacks_read_alike(module)
    if not _CALLBACKS_OK[0] or any(getattr(module, n) is not getattr(events, n) for n in _EVENT_NAMES):
        return None
    return module


def _event_fields(event: Any) -> tuple[Any, ...]:
    """An event object's class name, then its fields in the order the class takes them: what
    libyaml's parser passes to the callback under that name (``_feed_events``)."""
    kind = type(event)
    if kind is ScalarEvent:
        return (
            "ScalarEvent",
            event.anchor,
            event.tag,
            event.implicit,
            event.value,
            event.start_mark,
            event.end_mark,
            event.style,
        )
    if kind is SequenceStartEvent or kind is MappingStartEvent:
        head = (kind.__name__, event.anchor, event.tag, event.implicit)
        return (*head, event.start_mark, event.end_mark, event.flow_style)
    if kind is AliasEvent:
        return ("AliasEvent", event.anchor, event.start_mark, event.end_mark)
    marks = (kind.__name__, event.start_mark, event.end_mark)
    if kind is events.StreamStartEvent:
        return (*marks, event.encoding)
    if kind is events.DocumentStartEvent:
        return (*marks, event.explicit, event.version, event.tags)
    if kind is events.DocumentEndEvent:
        return (*marks, event.explicit)
    return marks


def _callbacks_read_alike(module: Any) -> bool:
    """Whether libyaml's parser, given functions under its event classes' names, calls each with
    the fields (in order) that ``_event_fields`` takes from the class's object, on a document
    with every kind of event."""
    sample = "%YAML 1.1\n--- &r\nk: &a !t 'v'\nn: [1, *a]\nm: {x: \"y\"}\ns:\n- |\n  b\n...\n"

    def plain(fields: Any) -> tuple[Any, ...]:  # marks as what the composer reads of them
        return tuple((f.index, f.line, f.column) if type(f) is module.Mark else f for f in fields)

    def recorder(name: str) -> Any:
        def record_fields(*fields: Any) -> tuple[Any, ...]:
            return (name, *plain(fields))

        return record_fields

    def read(patched: bool) -> list[tuple[Any, ...]]:
        loader = LOADER(sample)
        try:
            if patched:
                for name in _EVENT_NAMES:
                    setattr(module, name, recorder(name))
            got = []
            while (event := loader.get_event()) is not None:
                got.append(event if patched else plain(_event_fields(event)))
            return got
        finally:
            for name in _EVENT_NAMES:
                setattr(module, name, getattr(events, name))
            loader.dispose()

    try:
        expected = read(False)
        return len(expected) == 22 and read(True) == expected
    except Exception:  # any other layout: the events stay objects
        return False


_INT = "tag:yaml.org,2002:int"


def _digit_patterns(resolvers: Any) -> Any:
    """The (tag, pattern) pairs tried for a plain scalar starting with each digit, if the same
    for all ten, else None."""
    try:
        found = {tuple((tag, regexp.pattern) for tag, regexp in resolvers.get(d, ())) for d in "0123456789"}
    except Exception:  # resolvers of another shape
        return None
    return found.pop() if len(found) == 1 else None


# PyYAML's own: float (needs a "." or ":"), int, timestamp (needs a "-"), when unchanged; a
# plain run of ASCII digits without a leading zero is an int under them
_DEFAULT_DIGIT_PATTERNS = _digit_patterns(Resolver.yaml_implicit_resolvers)
if _DEFAULT_DIGIT_PATTERNS is None or tuple(t for t, _ in _DEFAULT_DIGIT_PATTERNS) != (
    "tag:yaml.org,2002:float",
    _INT,
    "tag:yaml.org,2002:timestamp",
):
    _DEFAULT_DIGIT_PATTERNS = None


# a node made without its class's Python ``__init__`` (the callbacks read module names: a
# function's own names from outside are copied into each call's frame)
_new_object = object.__new__


def _composer(loader: Any, text: str, source: str, build: bool) -> tuple[dict[str, Any], Callable[[], _Tree]]:
    """The one composer: a function per event name, called with that event's fields (by
    libyaml's parser itself, ``_feed_by_callbacks``, or from event objects, ``_feed_events``),
    and ``finish``, which gives the tree, or raises the first error a function found.

    It builds nodes with integer offsets (not Mark objects: smaller nodes), and with ``build``
    the data as ``_construct_directly`` makes it (each value as its node is made, added to its
    parent's value at once); anything that would send that walk to PyYAML's constructor stops
    the building, and the tree says the data was not built. No recursion: a stack of frames.
    A function that finds an error keeps it and answers None, which ends the feeding (no
    exception passes through the parser). tests/formats/test_yaml.py holds both feeders to the
    same trees, data, bookkeeping and errors."""
    resolve = loader.resolve
    plain_tags = _PLAIN_TAGS
    if len(plain_tags) > 20_000:  # a bound, for processes that read many big files
        plain_tags.clear()
    anchors: dict[str, Node] = {}
    aliases: dict[int, dict[Any, tuple[int, int]]] = {}
    referenced: dict[int, str] = {}
    open_ids: set[int] = set()
    # frame: [collection node, pending key node, pending key alias span, the keys met,
    #         its data (when building), the pending key's data]; the keys met (a mapping's; None
    #         for a sequence) are its data dict while building (its keys are the keys' values:
    #         one dict fewer per mapping and one store fewer per entry), else {key value: offset}
    stack: list[list[Any]] = []
    root: Node | None = None
    data: Any = None
    values: dict[int, Any] = {}  # id(anchored node) -> its data: an alias gives the same object
    # text -> value for the tags whose value is the plain text's alone (ints, floats, booleans)
    scalar_values: dict[str, dict[str, Any]] = {tag: {} for tag in _PURE_TAGS}
    no_paths = not getattr(loader, "yaml_path_resolvers", None)
    implicit_resolvers: dict[Any, Any] = getattr(loader, "yaml_implicit_resolvers", {None: None})
    # the first characters some implicit resolver is tried for (all of them when one is tried
    # for any first character, or when path resolvers could answer first)
    firsts: Any = (
        _EVERY_CHARACTER if None in implicit_resolvers or not no_paths else frozenset(implicit_resolvers)
    )
    # a plain decimal int (most distinct numbers in a config: ports, token counts) gets its tag
    # and value here, not from ``resolve`` (three patterns) and PyYAML's ``construct_yaml_int``;
    # only under PyYAML's own resolvers for digits. tests/formats/test_yaml.py holds it to both
    digit_ints = _DEFAULT_DIGIT_PATTERNS is not None and (
        _digit_patterns(implicit_resolvers) == _DEFAULT_DIGIT_PATTERNS
    )
    int_values = scalar_values[_INT]
    # the innermost open collection's frame, its node's list and whether that node is a sequence:
    # kept apart from ``stack`` for the scalars' own path (most events), changed on push and pop
    top: list[Any] | None = None
    top_items: list[Any] = []
    top_seq = False
    documents = 0
    failure: list[ParseError] = []

    def fail(message: str, mark: Any) -> None:
        failure.append(ParseError(source, hide_tokens(message), mark.line + 1, mark.column + 1))

    def attach(node: Node, anchor: Any, mark: Any, alias_span: Any, value: Any, opens: bool) -> Any:
        """Register ``node``'s anchor and add it to its parent (or make it the root), opening
        its frame when ``opens``: the path of every node that is not the usual one (the
        callbacks inline that one). True, or None after ``fail``."""
        nonlocal root, data, build, top, top_items, top_seq
        if alias_span is None and anchor is not None:
            if anchor in anchors:
                return fail(f"found duplicate anchor &{anchor}", mark)
            anchors[anchor] = node
            if build:
                values[id(node)] = value
        if not stack:
            root = node
            data = value
        else:
            frame = stack[-1]
            parent = frame[0]
            if type(parent) is SequenceNode:
                if alias_span is not None:
                    aliases.setdefault(id(parent), {})[len(parent.value)] = alias_span
                parent.value.append(node)
                if build:
                    frame[4].append(value)
            elif frame[1] is None:
                frame[1] = node
                frame[2] = alias_span
                if build:
                    if type(value) is dict or type(value) is list:
                        build = False  # unhashable: PyYAML's constructor says so
                    frame[5] = value
            else:
                key = frame[1]
                if (
                    alias_span is None
                    and frame[2] is None
                    and type(key) is ScalarNode
                    and key.tag == _STR
                    and key.value not in frame[3]
                ):
                    parent.value.append((key, node))
                    frame[1] = None
                    frame[3][key.value] = key.start_mark
                else:
                    try:
                        _add_entry(frame, node, alias_span, aliases, text, source, build)
                    except ParseError as exc:
                        failure.append(exc)
                        return None
                if build:
                    frame[4][frame[5]] = value
        if opens:
            top_seq = type(node) is SequenceNode
            top = [node, None, None, None if top_seq else value if build else {}, value, None]
            stack.append(top)
            top_items = node.value
            if anchor is not None:  # only an anchored node can be an alias's target
                open_ids.add(id(node))
            if len(stack) > MAX_DEPTH:
                return fail(f"nesting deeper than {MAX_DEPTH} levels; gwconf does not edit such files", mark)
        return True

    def scalar(
        anchor: Any, tag: Any, implicit: Any, text_value: str, mark: Any, end_mark: Any, style: Any
    ) -> Any:
        nonlocal build
        if tag is None or tag == "!":
            if implicit[0]:
                if text_value and text_value[0] not in firsts:  # no implicit resolver for it
                    tag = _STR
                else:
                    tag = plain_tags.get(text_value)
                    if tag is None:
                        if (
                            digit_ints
                            and len(text_value) < 16
                            and text_value.isdigit()
                            and text_value.isascii()
                            and (text_value[0] != "0" or len(text_value) == 1)
                        ):
                            tag = _INT  # what the patterns answer; its value for the build
                            int_values[text_value] = int(text_value)
                        else:
                            tag = plain_tags[text_value] = resolve(ScalarNode, text_value, implicit)
            else:
                tag = _STR
        node = _new_object(ScalarNode)  # ``ScalarNode(...)`` without its Python ``__init__``
        node.tag, node.value, node.start_mark = tag, text_value, mark.index
        node.end_mark, node.style = end_mark.index, style or None
        value = None
        if build:
            if tag == _STR:
                value = text_value
            else:
                known = scalar_values.get(tag)
                value = _UNBUILT if known is None else known.get(text_value, _UNBUILT)
                if value is _UNBUILT:
                    function = _SCALAR_CTORS.get(tag)
                    try:
                        value = function(_KEY_CTOR, node)  # type: ignore[misc]
                    except Exception:  # no such tag (None), or a bad scalar: PyYAML's to say
                        build = False
                    else:
                        if known is not None:
                            known[text_value] = value
        if top is not None and anchor is None:  # the usual scalar: its own short path
            if top_seq:
                top_items.append(node)
                if build:
                    top[4].append(value)
                return True
            key = top[1]
            if key is None:
                top[1] = node  # a scalar key: its data is hashable
                top[5] = value
                return True
            if top[2] is None and type(key) is ScalarNode and key.tag == _STR and key.value not in top[3]:
                top_items.append((key, node))  # a string key met once: ``_add_entry`` inlined
                top[1] = None
                if build:  # the data is the keys met (``_composer``'s frames)
                    top[4][key.value] = value
                else:
                    top[3][key.value] = key.start_mark
                return True
        return attach(node, anchor, mark, None, value, False)

    def opener(cls: Any, default_tag: str) -> Any:
        """The callback for a sequence's or a mapping's start: its node, its data, and (the usual
        case: no anchor, an item or a string key's value, not too deep) its place, else
        ``attach``'s."""
        seq = cls is SequenceNode

        def started(anchor: Any, tag: Any, implicit: Any, mark: Any, end_mark: Any, flow_style: Any) -> Any:
            nonlocal build, top, top_items, top_seq
            if tag is None or tag == "!":  # what ``resolve`` answers for a collection, given no
                tag = default_tag if no_paths else resolve(cls, None, implicit)  # path resolvers
            node = _new_object(cls)
            node.tag, node.value, node.start_mark = tag, [], mark.index
            node.end_mark, node.flow_style = None, flow_style is True  # True, False or None
            value: Any = None
            if build:
                if tag == default_tag:
                    value = [] if seq else {}
                else:
                    build = False
            if top is None or anchor is not None or len(stack) >= MAX_DEPTH:
                return attach(node, anchor, mark, None, value, True)
            if top_seq:
                top_items.append(node)
                if build:
                    top[4].append(value)
            else:
                key = top[1]
                if (
                    key is None
                    or top[2] is not None
                    or type(key) is not ScalarNode
                    or key.tag != _STR
                    or key.value in top[3]
                ):
                    return attach(node, anchor, mark, None, value, True)
                top_items.append((key, node))  # a string key met once: as ``attach`` does
                top[1] = None
                if build:
                    top[4][key.value] = value
                else:
                    top[3][key.value] = key.start_mark
            top = [node, None, None, None if seq else value if build else {}, value, None]
            stack.append(top)
            top_items = node.value
            top_seq = seq
            return True

        return started

    def collection_end(mark: Any, end_mark: Any) -> Any:
        nonlocal top, top_items, top_seq
        frame = stack.pop()
        frame[0].end_mark = end_mark.index
        if open_ids:
            open_ids.discard(id(frame[0]))
        if stack:
            top = stack[-1]
            top_items = top[0].value
            top_seq = type(top[0]) is SequenceNode
        else:
            top = None
        return True

    def alias(anchor: Any, mark: Any, end_mark: Any) -> Any:
        nonlocal build
        target = anchors.get(anchor)
        if target is None:
            return fail(f"found undefined alias *{anchor}", mark)
        if id(target) in open_ids:
            return fail(f"alias *{anchor} is inside its own anchor (recursive YAML)", mark)
        referenced[id(target)] = anchor
        value = None
        if build:
            value = values.get(id(target), _UNBUILT)
            build = value is not _UNBUILT
        return attach(target, None, mark, (mark.index, end_mark.index), value, False)

    def document_start(mark: Any, end_mark: Any, *rest: Any) -> Any:
        nonlocal documents
        documents += 1
        if documents > 1:
            return fail("gwconf edits single-document YAML only (found a second document)", mark)
        return True

    def other(*fields: Any) -> Any:
        return True

    callbacks = {
        "StreamStartEvent": other,
        "StreamEndEvent": other,
        "DocumentStartEvent": document_start,
        "DocumentEndEvent": other,
        "AliasEvent": alias,
        "ScalarEvent": scalar,
        "SequenceStartEvent": opener(SequenceNode, _SEQ),
        "SequenceEndEvent": collection_end,
        "MappingStartEvent": opener(MappingNode, _MAP),
        "MappingEndEvent": collection_end,
    }

    def finish() -> _Tree:
        if failure:
            raise failure[0]
        if root is None:
            return _Tree(None, {}, {}, [])
        if referenced:
            limit = max(MAX_EXPANDED, len(text))
            too_big = _expands_past(root, limit)
            if too_big is not None:
                line, column = _line_col(text, too_big.start_mark)
                raise ParseError(
                    source,
                    f"aliases make this value more than {limit:,} values "
                    "when read whole; gwconf does not edit such files",
                    line,
                    column,
                )
        ref_starts = sorted((n.start_mark, name) for n, name in _referenced_nodes(root, referenced))
        return _Tree(root, aliases, referenced, ref_starts, bool(anchors), data if build else None, build)

    return callbacks, finish


# plain scalar text -> its implicit tag (the resolver's regexes, once per distinct text)
_PLAIN_TAGS: dict[str, str] = {}


def _add_entry(
    frame: list[Any],
    node: Node,
    alias_span: tuple[int, int] | None,
    aliases: dict[int, dict[Any, tuple[int, int]]],
    text: str,
    source: str,
    building: bool,
) -> None:
    """Add the mapping entry (pending key, ``node``) to ``frame``; a duplicate key is refused, since
    an edit could not tell which of the two the client reads. ``building``: the keys met are the
    frame's data, and the caller adds this key's."""
    parent, key, key_alias = frame[0], frame[1], frame[2]
    j = len(parent.value)
    parent.value.append((key, node))
    if key_alias is not None:
        aliases.setdefault(id(parent), {})[(j, 0)] = key_alias
    if alias_span is not None:
        aliases.setdefault(id(parent), {})[(j, 1)] = alias_span
    frame[1] = frame[2] = None
    identity = _key_value(key)
    if identity is not _NO_KEY:
        if identity in frame[3]:  # the first such key, as the dict finds it (``is``, then ``==``)
            # a key written as an alias is where the alias stands, not where its anchor does
            spans = aliases.get(id(parent), {})
            first = next(
                (
                    spans.get((i, 0), (k.start_mark,))[0]
                    for i, (k, _) in enumerate(parent.value)
                    if _key_value(k) in (identity,)
                ),
                key.start_mark,
            )
            line, column = _line_col(text, key.start_mark if key_alias is None else key_alias[0])
            raise ParseError(
                source,
                f"duplicate key {identity!r} (first at line {_line_col(text, first)[0]}); "
                "gwconf refuses to edit a mapping with duplicate keys",
                line,
                column,
            )
        if not building:
            frame[3][identity] = key.start_mark


def _expands_past(root: Node, cap: int) -> Node | None:
    """The first node (children first) whose value, its aliases read whole, holds more than
    ``cap`` nodes; None if none does.

    An alias is the very object its anchor is, so the data stays small, but everything that
    walks it as a tree (the write gate's marshal and comparison, the ledger's records, PyYAML's
    own dump) walks each alias whole: ``a1: &a1 [*a0, *a0]``, ``a2: &a2 [*a1, *a1]``... doubles
    per line, and 30 lines are a billion values. Counted once per node, children first
    (post-order, no recursion): linear in the tree."""
    sizes: dict[int, int] = {}
    todo: list[tuple[Node, bool]] = [(root, False)]
    while todo:
        node, children_done = todo.pop()
        if id(node) in sizes:
            continue
        children = _node_children(node)
        if not children:
            sizes[id(node)] = 1
            continue
        if not children_done:
            todo.append((node, True))
            todo.extend((child, False) for child in children if id(child) not in sizes)
            continue
        size = 1 + sum(sizes[id(child)] for child in children)
        if size > cap:
            return node
        sizes[id(node)] = size
    return None


def _referenced_nodes(root: Node | None, referenced: dict[int, str]) -> list[tuple[Node, str]]:
    if not referenced or root is None:
        return []
    found: list[tuple[Node, str]] = []
    seen: set[int] = set()
    todo = [root]
    while todo:
        node = todo.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        name = referenced.get(id(node))
        if name is not None:
            found.append((node, name))
        todo.extend(_node_children(node))
    return found


def _node_children(node: Node) -> list[Node]:
    """A collection's nodes (a mapping's keys and values, in order); none for a scalar."""
    if isinstance(node, SequenceNode):
        return node.value  # type: ignore[no-any-return]
    if isinstance(node, MappingNode):
        return [part for pair in node.value for part in pair]
    return []


_SEQ = "tag:yaml.org,2002:seq"
_MAP = "tag:yaml.org,2002:map"


class _Every:
    def __contains__(self, item: object) -> bool:
        return True


_EVERY_CHARACTER = _Every()
# scalar tags whose value depends on the scalar's text alone (timestamps and binary make new objects)
_PURE_TAGS = (
    "tag:yaml.org,2002:null",
    "tag:yaml.org,2002:bool",
    "tag:yaml.org,2002:int",
    "tag:yaml.org,2002:float",
)
# scalar tags whose SafeConstructor function needs nothing but the node (no state, no recursion)
_SCALAR_CTORS = {
    tag: function
    for tag, function in SafeConstructor.yaml_constructors.items()
    if tag
    in (
        "tag:yaml.org,2002:null",
        "tag:yaml.org,2002:bool",
        "tag:yaml.org,2002:int",
        "tag:yaml.org,2002:float",
        "tag:yaml.org,2002:binary",
        "tag:yaml.org,2002:timestamp",
    )
}


class _Unusual(Exception):
    """A node the direct construction leaves to PyYAML's constructor."""


_UNBUILT: Any = object()


def _construct_directly(root: Node) -> Any:
    """safe_load's value for the common shapes (plain mappings, lists and the standard scalar
    tags), built in one walk; PyYAML's constructor, with its generators and per-node bookkeeping,
    took as long as composing. Anything else (merge keys, sets, other tags, unhashable keys)
    raises ``_Unusual`` and goes to that constructor; a property test holds the two equal."""
    built: dict[int, Any] = {}  # id(node) -> value: an alias gives the same object, as safe_load

    def build(node: Node) -> Any:
        done = built.get(id(node), _UNBUILT)
        if done is not _UNBUILT:
            return done
        kind = type(node)
        if kind is ScalarNode:
            if node.tag == _STR:
                value: Any = node.value
            else:
                function = _SCALAR_CTORS.get(node.tag)
                if function is None:
                    raise _Unusual
                value = function(_KEY_CTOR, node)
        elif kind is MappingNode and node.tag == _MAP:
            value = built[id(node)] = {}
            for key_node, value_node in node.value:
                if key_node.tag in (_MERGE, _VALUE):
                    raise _Unusual
                key = build(key_node)
                if isinstance(key, (dict, list)):
                    raise _Unusual  # unhashable: PyYAML's constructor says so, with the position
                value[key] = build(value_node)
        elif kind is SequenceNode and node.tag == _SEQ:
            value = built[id(node)] = []
            for item in node.value:
                value.append(build(item))
        else:
            raise _Unusual
        built[id(node)] = value
        return value

    return build(root)


def _construct(tree: _Tree, text: str, source: str) -> Any:
    return _construct_how(tree, text, source)[0]


def _construct_how(tree: _Tree, text: str, source: str) -> tuple[Any, bool]:
    """The data, and whether it was built directly (no merge key, no unusual tag anywhere)."""
    root = tree.root
    if root is None or (isinstance(root, ScalarNode) and root.tag == _NULL):
        return {}, False
    if tree.built:
        return tree.data, True
    try:
        with paused_gc():
            try:
                return _construct_directly(root), True
            except Exception:  # _Unusual, or a bad scalar: PyYAML's constructor, and its error
                pass
            return _Constructor().construct_document(root), False
    except yaml.YAMLError as exc:
        raise _parse_error(exc, text, source) from None
    except Exception as exc:  # ``!!int abc`` (ValueError), ``!!bool x`` (KeyError), ``!!timestamp x``
        raise _unreadable_value(root, text, source, exc) from None


def _unreadable_value(root: Node, text: str, source: str, exc: Exception) -> ParseError:
    """The error for a value whose tag's constructor fails on it: PyYAML raises Python's own
    errors there (a ``KeyError`` holding the value lowercased for ``!!bool``, an
    ``AttributeError`` for ``!!timestamp``), which were reported as gwconf's bug. The error names
    the first such value's line and tag, never the value (it may be a key)."""
    stack = [root]
    seen: set[int] = set()
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if type(node) is ScalarNode:
            function = SafeConstructor.yaml_constructors.get(node.tag)
            if function is None or node.tag == _STR:
                continue
            try:
                function(_KEY_CTOR, node)
            except Exception:
                line, column = _line_col(text, node.start_mark)
                tag = node.tag.replace("tag:yaml.org,2002:", "!!")
                return ParseError(source, f"the value tagged {tag} cannot be read as one", line, column)
        elif type(node) is MappingNode:
            stack.extend(part for pair in reversed(node.value) for part in reversed(pair))
        elif type(node) is SequenceNode:
            stack.extend(reversed(node.value))
    return ParseError(source, hide_tokens(f"value cannot be read: {type(exc).__name__}"))


# ---------------------------------------------------------------------------------------------
# Reading an edited text back from the lines that changed.

_DOCUMENT_LINE = lazy(r"^(?:---|\.\.\.|%)", re.M)
_BLOCK_HEADER = lazy(r"[^|>]*[|>]([-+0-9]*)")  # a block scalar's indicator and chomping
_DASH = lazy(r"- +")
_TRAILING_COMMENT = lazy(r"[ \t]*#[^\r\n]*")


def _line_of(text: str, pos: int) -> int:
    return text.rfind("\n", 0, pos) + 1


def _entry_token(text: str, node: Node, k: int) -> int | None:
    """Where entry ``k`` of a block collection starts (its key, or its ``-``), when that is the
    first thing on its line; else None (an explicit ``? key``, ``- - x``, a tab)."""
    if isinstance(node, MappingNode):
        pos = node.value[k][0].start_mark
    else:
        pos = node.value[k].start_mark - 1
        while pos >= 0 and text[pos] == " ":
            pos -= 1
        if pos < 0 or text[pos] != "-":
            return None
    line = _line_of(text, pos)
    return pos if text.count(" ", line, pos) == pos - line else None


def _window(
    text: str, root: Node, old_start: int, old_end: int, column: int
) -> tuple[Node, int, int, int, int, list[int]] | None:
    """The smallest run of whole entries of one block collection whose lines hold every change:
    (collection, first entry, entry after the last, start of the first's line, start of the
    line after the run, the entry indices down to the collection). Its entries sit at ``column``
    or left of it (every changed line is indented that far), each entry's first line starts
    with its own ``-`` or key, and the changes start after that token's second character."""
    import bisect

    found = None
    node: Node = root
    path: list[int] = []
    while isinstance(node, (MappingNode, SequenceNode)) and not node.flow_style and node.value:
        first = _entry_token(text, node, 0)
        if first is None or first - _line_of(text, first) > column:
            break
        starts = (
            [k.start_mark for k, _ in node.value]
            if isinstance(node, MappingNode)
            else [item.start_mark for item in node.value]
        )
        i = bisect.bisect_left(starts, old_start)
        token = None
        while i > 0:
            i -= 1
            token = _entry_token(text, node, i)
            if token is None or token + 1 < old_start:
                break
        if token is None or token + 1 >= old_start:
            break
        count = len(node.value)
        j = max(i + 1, bisect.bisect_left(starts, old_end))
        while j < count:
            after = _entry_token(text, node, j)
            if after is None:
                return found
            if _line_of(text, after) >= old_end:
                break
            j += 1
        if j < count:
            stop = _line_of(text, _entry_token(text, node, j) or 0)
        else:
            end = min(node.end_mark, len(text))
            stop = _line_of(text, end)
            if text.count(" ", stop, end) != end - stop:
                break
        if stop < old_end:
            break
        found = (node, i, j, _line_of(text, token), stop, [*path])
        if j != i + 1:
            break
        path.append(i)
        node = node.value[i][1] if isinstance(node, MappingNode) else node.value[i]
    return found


def _changed_window(
    base: str, root: Node, new: str, edits: list[Edit]
) -> tuple[Node, int, int, int, int, list[int], int] | None:
    """``_window`` of the change ``edits`` made to ``base`` (whose root node is ``root``), and where
    the changed text ends in ``base``; None when there is none, or it is most of the file (reading
    the whole costs the same then), or its new text holds a document marker."""
    regions = changed_regions(edits)
    if not regions:
        return None
    old_start, old_end, new_start, new_end = regions[0][0], regions[-1][1], regions[0][2], regions[-1][3]
    if (
        old_start != new_start
        or len(base) - old_end != len(new) - new_end
        or not same_run(base, 0, new, 0, old_start)
        or not same_run(base, old_end, new, new_end, len(base) - old_end)
    ):
        return None
    lines = new[_line_of(new, new_start) : new_end].splitlines()
    column = min(
        (
            len(line) - len(line.lstrip(" "))
            for line in lines
            if line.strip() and not line.lstrip().startswith("#")
        ),
        default=len(new),
    )
    found = _window(base, root, old_start, old_end, column)
    if found is None:
        return None
    node, i, j, start, stop, path = found
    if stop - start > len(base) // 2 + 4096:
        return None
    end = stop + len(new) - len(base)
    if end < len(new) and new[end - 1] != "\n":
        return None  # new text without a line break at its end runs on into the line after it
    if _DOCUMENT_LINE.search(new, start, end):
        return None
    return node, i, j, start, stop, path, old_end


def _grafted(tree: _Tree, base: str, new: str, edits: list[Edit], source: str) -> _Tree | None:
    """What ``_compose(new)`` gives, made from ``tree`` (``base``'s, with no anchor and no alias)
    and the window of whole entries that holds every change (``_changed_window``) composed alone;
    None when that cannot be shown (the caller composes the whole text). Between one key of a
    client's and the next the whole file was composed again: 32 composes for 10 files in one
    ``apply --all --dry-run`` (issue 15). A property test holds this to the whole compose.

    The text outside the window is unchanged, so its nodes are too, those after the change
    moved by the change in length (copied, never changed: the trees share the nodes before the
    change, the tree as loaded among them, which the write gate reads). In the window's own document its block collections that reach its end close at the
    end of the text; in the whole text at the next token after the window (entry ``j``'s, or
    where the collection itself ends): marks there are moved to that token. A block scalar's end
    at the window's end is not that token's, so windows with ``|`` or ``>`` are composed whole."""
    root = tree.root
    if root is None or tree.anchored or tree.aliases:
        return None
    found = _changed_window(base, root, new, edits)
    if found is None:
        return None
    node, i, j, start, stop, path, old_end = found
    delta = len(new) - len(base)
    window = new[start : stop + delta]
    if "|" in window or ">" in window:
        return None
    try:
        own_tree = _compose(window, source)
    except ParseError:
        return None
    own = own_tree.root
    token = _entry_token(base, node, i)
    if (
        own is None
        or token is None
        or own_tree.anchored
        or own_tree.aliases
        or type(own) is not type(node)
        or own.flow_style
        or own.tag != node.tag
        or own.start_mark != token - start
    ):
        return None
    if type(node) is MappingNode:  # a key the window and the rest both have: the whole compose refuses it
        inside = [k for k, _ in own.value]
        outside = [k for k, _ in node.value[:i]] + [k for k, _ in node.value[j:]]
        if any(type(k) is not ScalarNode or k.tag != _STR for k in inside + outside):
            return None
        if {k.value for k in inside} & {k.value for k in outside}:
            return None
    after = _entry_token(base, node, j) if j < len(node.value) else node.end_mark
    if after is None:
        return None
    closing, size = after + delta, len(window)

    def placed(n: Node, depth: int) -> int:  # the window's own nodes, in the whole text's offsets
        n.start_mark = closing if n.start_mark == size else n.start_mark + start
        n.end_mark = closing if n.end_mark == size else n.end_mark + start
        deepest = depth
        if type(n) is MappingNode:
            for k, v in n.value:
                deepest = max(deepest, placed(k, depth + 1), placed(v, depth + 1))
        elif type(n) is SequenceNode:
            for v in n.value:
                deepest = max(deepest, placed(v, depth + 1))
        return deepest

    def moved(n: Node) -> Node:  # a node outside the window: shared when the change is after it
        if n.end_mark < old_end:
            return n
        first = n.start_mark + delta if n.start_mark >= old_end else n.start_mark
        if type(n) is ScalarNode:
            return ScalarNode(n.tag, n.value, first, n.end_mark + delta, n.style)
        if type(n) is MappingNode:
            pairs = [(moved(k), moved(v)) for k, v in n.value]
            return MappingNode(n.tag, pairs, first, n.end_mark + delta, n.flow_style)
        return SequenceNode(n.tag, [moved(v) for v in n.value], first, n.end_mark + delta, n.flow_style)

    entries = own.value
    deepest = 0
    for entry in entries:
        for part in entry if type(own) is MappingNode else (entry,):
            deepest = max(deepest, placed(part, len(path) + 2))
    if deepest >= MAX_DEPTH:  # the whole compose counts the levels above the window too
        return None
    chain = [root]  # the collections from the top down to the window's
    for k in path:
        above = chain[-1]
        chain.append(above.value[k][1] if type(above) is MappingNode else above.value[k])
    rest = [moved(k) if type(k) is not tuple else (moved(k[0]), moved(k[1])) for k in node.value[j:]]
    now: Node = type(node)(
        node.tag, [*node.value[:i], *entries, *rest], node.start_mark, node.end_mark + delta, False
    )
    for depth in range(len(path) - 1, -1, -1):  # copied up to the top, the rest shared or moved
        above, k = chain[depth], path[depth]
        if type(above) is MappingNode:
            items: list[Any] = [
                (key, value) if n < k else (moved(key), now if n == k else moved(value))
                for n, (key, value) in enumerate(above.value)
            ]
        else:
            items = [
                value if n < k else (now if n == k else moved(value)) for n, value in enumerate(above.value)
            ]
        first = above.start_mark + delta if above.start_mark >= old_end else above.start_mark
        now = type(above)(above.tag, items, first, above.end_mark + delta, above.flow_style)
    return _Tree(now, {}, {}, [])


def _read_window(base: str, root: Node, base_data: Any, new: str, edits: list[Edit], source: str) -> Any:
    """What ``new`` (``base`` with ``edits`` made) reads as, shown by reading only a window of it;
    MISSING when it cannot be shown that way. ``root`` and ``base_data`` are what ``base`` reads
    as: no anchor anywhere, built without PyYAML's constructor (no merge key, no unusual tag).

    The window is a run of whole entries of one block collection at indent c (``_window``),
    read alone as a document of its own: a block collection at that indent that takes all of
    it, no anchors, no document markers. Its first line's indentation and token are unchanged,
    and what follows it is unchanged text that starts at column c or left of it, so the lines
    before it end as they did and the lines after it start as they did: the whole text reads
    as ``base_data`` with those entries replaced by the window's. A key that an entry outside
    the window also has is refused (the whole read refuses a duplicate key)."""
    found = _changed_window(base, root, new, edits)
    if found is None:
        return MISSING
    node, i, j, start, stop, path, _ = found
    window = new[start : stop + len(new) - len(base)]
    tree = _compose(window, source, build=True)
    own = tree.root
    if (
        own is None
        or tree.anchored
        or type(own) is not type(node)
        or own.flow_style
        or own.tag != node.tag
        or own.start_mark != _entry_token(base, node, i) - start  # type: ignore[operator]
    ):
        return MISSING
    if not tree.built:
        return MISSING  # PyYAML's constructor would be needed: the whole read is
    entries = tree.data
    chain = [base_data]  # the containers from the top down to the collection
    for k in path:
        chain.append(_nth(chain[-1], k))
    old = chain[-1]
    if isinstance(old, dict):
        keys = list(old)
        if any(key in entries for key in keys[:i] + keys[j:]):
            return MISSING
        now: Any = {k: old[k] for k in keys[:i]}
        now.update(entries)
        now.update((k, old[k]) for k in keys[j:])
    else:
        now = [*old[:i], *entries, *old[j:]]
    for depth in range(len(path) - 1, -1, -1):  # copied up to the top, the rest shared
        above = chain[depth]
        if isinstance(above, dict):
            key = list(above)[path[depth]]
            now = {k: (now if k == key else v) for k, v in above.items()}
        else:
            now = [*above[: path[depth]], now, *above[path[depth] + 1 :]]
    return now


def _nth(container: Any, k: int) -> Any:
    if isinstance(container, dict):
        return next(itertools.islice(container.values(), k, None))
    return container[k]


# ---------------------------------------------------------------------------------------------
# The document.


@record
class _Step:
    """One node on the way down a path: where it sits in its parent and whether via an alias."""

    parent: Node | None
    slot: Any  # (pair index, 1) in a mapping, item index in a sequence, None for the root
    node: Node
    alias: bool


class YamlDocument:
    """A YAML file edited by splicing; see the module docstring."""

    reread = reread_from_scratch

    def __init__(self, text: str, source: str, fmt: str = "yaml") -> None:
        self.source = source
        self.fmt = fmt
        self.eol = detect_eol(text)
        self.ops: list[Op] = []
        self.original = text
        self.edits: list[Edit] = []
        self._text = text
        self._tree: _Tree | None = _compose(text, source, build=True)
        # Built now so a file safe_load cannot read is refused before any edit.
        self._cache, direct = _construct_how(self._tree, text, source)
        self._style_cache: tuple[int, int, str] | None = None
        # the last tree composed, its text and how many edits that had: the next tree is grafted
        # from it and the window the edits since changed (``_grafted``)
        self._graft_base: tuple[_Tree, str, int] | None = None
        # the text as loaded, read whole: the write gate reads an edited text back from the lines
        # that changed when that can be shown (``reads_as``), if its data was built directly
        self._loaded = (self._tree, self._cache) if direct and not self._tree.anchored else None

    # -- Document protocol ----------------------------------------------------------------

    def data(self) -> Any:
        """Plain value as PyYAML's safe_load reads it; {} for an empty document. Cached, like the
        other editors' data: callers must not change it (``get`` hands out copies of parts)."""
        return self._plain()

    def get(self, path: KeyPath, default: Any = MISSING) -> Any:
        value = self._peek(path, default)
        return value if value is default else copied(value)

    def _peek(self, path: KeyPath, default: Any = MISSING) -> Any:
        """The value at ``path`` as held (no copy: never to be changed or handed out): the edits
        only ask what is there (copying Continue's 4 MB model list to learn its length was a
        fifth of ``gwconf apply continue``)."""
        value = self._plain()
        for part in tuple(path):
            if isinstance(value, dict):
                try:
                    value = value[part]
                except (KeyError, TypeError):
                    return default
            elif isinstance(value, list) and isinstance(part, int) and not isinstance(part, bool):
                try:
                    value = value[part]
                except IndexError:
                    return default
            else:
                return default
        return value

    def set(self, path: KeyPath, value: Any) -> None:
        path = tuple(path)
        _check_value(value)
        with self._atomic():
            changed = self._set(path, value)
        if changed:
            self._record(Op("set", path, copied(value)))

    def delete(self, path: KeyPath) -> bool:
        path = tuple(path)
        if not path:
            self._refuse("gwconf does not delete whole documents")
        if self._peek(path) is MISSING:
            return False
        with self._atomic():
            self._delete(path)
        self._record(Op("delete", path))
        return True

    def append(self, path: KeyPath, value: Any) -> int:
        path = tuple(path)
        _check_value(value)
        current = self._peek(path)
        with self._atomic():
            if current is MISSING or current is None or (not path and current == {} and self._empty()):
                self._set(path, [value])
                index = 0
            elif isinstance(current, list):
                chain, rest = self._walk(path)
                if rest:
                    self._refuse(f"{_fmt_path(path)} comes from a merge key (<<); gwconf cannot append to it")
                self._guard_inside(chain[-1], path)
                self._append_item(chain[-1], value)
                index = len(current)
            else:
                self._refuse(
                    f"{_fmt_path(path)} is a {_kind(current)}, not a list; gwconf cannot append to it"
                )
        self._record(Op("append", path, copied(value)))
        return index

    def spelling(self, path: KeyPath) -> str | None:
        """A scalar's text as written, quotes, escapes, tag and block header included
        (``"gpt\\x2d5"``, ``>-`` and its lines); None for a collection, an alias, the top level,
        or a path the file does not hold."""
        try:
            chain, rest = self._walk(tuple(path))
        except WriteRefused:
            return None
        step = chain[-1] if chain else None
        if rest or step is None or step.parent is None or step.alias or not isinstance(step.node, ScalarNode):
            return None
        start, _ = self._span(step.parent, step.slot, step.node)
        return self._text[start : self._end(step.parent, step.slot, step.node)]

    def put_back(self, path: KeyPath, value: Any, spelling: str) -> None:
        """``set``, with the scalar gwconf wrote at ``path`` replaced by ``spelling`` where the
        whole text then reads as ``set`` would leave it (checked here by reading it again: a
        restore is rare, and a spelling that reads otherwise where it now stands, a block scalar
        before a comment the user added, say, must fall back to ``set``, not refuse the write)."""
        path = tuple(path)
        try:
            with self._atomic():
                if self._spell(path, value, spelling):
                    self._record(Op("set", path, copied(value)))
                return
        except WriteRefused:
            pass
        self.set(path, value)

    restoring_from = ignore_pristine

    def comment_above(self, path: KeyPath) -> str | None:
        path = tuple(path)
        if not path or not isinstance(path[-1], str):
            return None
        try:
            chain, rest = self._walk(path[:-1])
        except WriteRefused:
            return None
        node = chain[-1].node if chain and not rest else None
        if not isinstance(node, MappingNode) or node.flow_style:
            return None
        for j, (key, _) in enumerate(node.value):
            if isinstance(key, ScalarNode) and key.value == path[-1]:
                anchor = self._key_anchor(node, j)
                line = self._line_start(anchor)
                if self._text[line:anchor].strip(" \t"):
                    return None
                return comment_line_above(self._text, line, ("#",))
        return None

    def key_line(self, path: KeyPath) -> str | None:
        """A block mapping's entry whose key starts its line and whose scalar value ends on it, as
        written from the key to the line's end (``key:  v  # why``). A key gwconf takes out
        leaves with its whole line; put back as ``set`` writes it, the user's comment was lost."""
        path = tuple(path)
        if not path or not isinstance(path[-1], str):
            return None
        try:
            chain, rest = self._walk(path)
        except WriteRefused:
            return None
        step = chain[-1] if chain else None
        if rest or step is None or step.alias or not isinstance(step.node, ScalarNode):
            return None
        parent = step.parent
        if not isinstance(parent, MappingNode) or parent.flow_style or not isinstance(step.slot, tuple):
            return None
        anchor = self._key_anchor(parent, step.slot[0])
        text = self._text
        if text[self._line_start(anchor) : anchor].strip(" \t"):
            return None  # after "- " or "? ": not the key's own line
        end = self._entry_end(parent, step.slot[0])
        line_end = text.find("\n", anchor)
        line_end = len(text) if line_end < 0 else line_end
        if end > line_end:
            return None
        return text[anchor:line_end].rstrip("\r")

    def put_before(
        self,
        path: KeyPath,
        value: Any,
        spelling: str | None,
        following: str,
        above: str | None = None,
        line: str | None = None,
    ) -> None:
        """The missing key ``path`` of a block mapping goes back right before its key
        ``following``: on the line after the entry before that one (comments above
        ``following`` stay with it), else right above it; its value written as ``spelling``
        where that reads as ``value`` there. Checked by reading the text again (a restore is
        rare); anything else (a flow mapping, ``following`` after a dash, an alias) is
        ``put_back``'s or ``set``'s."""
        path = tuple(path)
        for own_line in [line, None] if line is not None else [None]:  # the user's line, else ours
            try:
                with self._atomic():
                    if self._place_before(path, value, spelling, following, above, own_line):
                        self._record(Op("set", path, copied(value)))
                        return
            except WriteRefused:
                continue
            break  # not placeable there: no line makes it so
        put_before_as_put_back(self, path, value, spelling, following)

    def _place_before(
        self,
        path: KeyPath,
        value: Any,
        spelling: str | None,
        following: str,
        above: str | None,
        own_line: str | None = None,
    ) -> bool:
        if not path or not isinstance(path[-1], str) or self._peek(path) is not MISSING:
            return False
        chain, rest = self._walk(path[:-1])
        if rest or not chain or chain[-1].alias:
            return False
        node = chain[-1].node
        if not isinstance(node, MappingNode) or node.flow_style:
            return False
        keys = [
            k.value if isinstance(k, ScalarNode) and k.tag.endswith(":str") else None for k, _ in node.value
        ]
        if keys.count(following) != 1:
            return False
        j = keys.index(following)
        anchor = self._key_anchor(node, j)
        line = self._line_start(anchor)
        pad = self._text[line:anchor]
        if pad.strip(" \t"):
            return False  # ``following`` sits after "- " or "? ": its line is not the key's own
        pos = line
        if j > 0:
            after = self._after_line(self._entry_end(node, j - 1))
            if after <= line:
                pos = after_comment(self._text, after, line, above)
        if own_line is not None and not isinstance(value, (dict, list)) and "\n" not in own_line:
            lines = [f"{pad}{own_line}"]  # read back below as the key holding ``value``, or refused
        elif spelling is not None and not isinstance(value, (dict, list)) and "\n" not in spelling:
            lines = [f"{pad}{_key_text(path[-1], flow=False)}: {spelling}"]
        else:
            lines = self._entry_lines(path[-1], value, pad)
        self._splice(pos, pos, "".join(entry + self.eol for entry in lines))
        self._read_back_as_set(path, value, "the key")
        return True

    def _read_back_as_set(self, path: KeyPath, value: Any, what: str) -> None:
        """Refuse (``_atomic`` puts the text back) unless the whole text reads as ``set`` would
        leave it: for a restore's placed key or spelling, which ``set`` itself never writes."""
        intended = replay(self._plain(), [Op("set", path, value)])
        try:
            now = _construct(_compose(self._text, self.source, build=True), self._text, self.source)
        except (ParseError, RecursionError):
            self._refuse(f"{what} does not parse here")
        if not same_value(now, intended):
            self._refuse(f"{what} reads otherwise here")

    def _spell(self, path: KeyPath, value: Any, spelling: str) -> bool:
        """Splice ``spelling`` over the one-line scalar at ``path``; False when that changes
        nothing, WriteRefused (the text put back by ``_atomic``) when it cannot be done."""
        current = self._peek(path)
        if current is MISSING or isinstance(current, (dict, list)) or isinstance(value, (dict, list)):
            self._refuse("no scalar to spell")
        chain, rest = self._walk(path)
        step = chain[-1] if chain else None
        if (
            rest
            or step is None
            or step.parent is None
            or step.alias
            or not isinstance(step.node, ScalarNode)
            or step.node.style in ("|", ">")
        ):
            self._refuse("no scalar to spell")
        start, end = self._span(step.parent, step.slot, step.node)
        if start == end or "\n" in self._text[start:end]:
            self._refuse("no one-line scalar to spell")
        if self._text[start:end] == spelling and same_value(current, value):
            return False
        self._guard_span(start, end, path)
        self._splice(start, end, spelling)
        self._read_back_as_set(path, value, "the spelling")
        return True

    def dump(self) -> str:
        return self._text

    gate_text = dump  # the same coordinates as ``original`` and ``edits``

    def reads_as(self, intended: Any) -> bool:
        """True when the text as edited reads as ``intended``, shown from its changed lines alone
        (``_read_window``); False sends the write gate to read the whole text again."""
        if self._loaded is None or not self.edits:
            return False
        tree, data = self._loaded
        assert tree.root is not None  # an empty document's data is not built directly
        try:
            now = _read_window(self.original, tree.root, data, self._text, self.edits, self.source)
        except (ParseError, WriteRefused, _Unusual, RecursionError):
            return False
        return now is not MISSING and same_shared(now, intended)

    # -- state ------------------------------------------------------------------------------

    def _tree_now(self) -> _Tree:
        if self._tree is None and self._graft_base is not None:
            tree, text, count = self._graft_base
            self._graft_base = None
            if count <= len(self.edits):
                self._tree = _grafted(tree, text, self._text, self.edits[count:], self.source)
        if self._tree is None:
            try:
                self._tree = _compose(self._text, self.source)
            except ParseError as exc:
                raise WriteRefused(
                    f"{self.source}: gwconf's edit would not parse ({exc.reason}); nothing was written.",
                    _BUG_HINT,
                ) from None
        return self._tree

    def _plain(self) -> Any:
        """The data: read from the file at load, then what each finished edit intends."""
        return self._cache

    @contextmanager
    def _atomic(self) -> Iterator[None]:
        """One public edit is all or nothing: a refusal halfway (say, in a key-by-key mapping
        update) puts the text back, so ``ops`` always describes the text."""
        before, done = self._text, len(self.edits)
        try:
            yield
        except BaseException:
            if self._text is not before:
                self._text, self._tree, self._style_cache, self._graft_base = before, None, None, None
                del self.edits[done:]
            raise

    def _record(self, op: Op) -> None:
        """Note a finished public edit. The data becomes what the edit intends (the data before
        it, ``replay``ed) instead of a fresh read of the text: clients read between edits, and
        constructing the file again after each one was most of a YAML plan. The text is still
        read back before anything is written: ``verify_edit`` re-parses it and compares it with
        the same intended data."""
        self.ops.append(op)
        self._cache = replay(self._plain(), [op])

    def _splice(self, start: int, end: int, new: str) -> None:
        """Change the text; its node positions are composed again when next needed. The data
        stays as it was until the public edit finishes (``_record``): within one edit, reads
        ask for keys that edit has not touched yet. The write gate holds the bytes around each
        splice unchanged (its claim is the splice: the YAML editor declares no node claims yet)."""
        if self._tree is not None:
            self._graft_base = (self._tree, self._text, len(self.edits))
        self.edits.append(trimmed_edit(self._text, start, end, new))
        self._text = self._text[:start] + new + self._text[end:]
        self._tree = None

    def _empty(self) -> bool:
        root = self._tree_now().root
        return root is None or (isinstance(root, ScalarNode) and root.tag == _NULL and root.value == "")

    def _refuse(self, message: str, hint: str = _HAND_HINT, at: int | None = None) -> NoReturn:
        """``at``: where in the text now the value refused starts, said as its line in the file."""
        where = "" if at is None else line_in(self.original, self.edits, at)
        raise WriteRefused(f"{self.source}{where}: {message}", hint)

    # -- text geometry ----------------------------------------------------------------------

    def _line_start(self, i: int) -> int:
        return self._text.rfind("\n", 0, i) + 1

    def _col(self, i: int) -> int:
        return i - self._line_start(i)

    def _after_line(self, i: int) -> int:
        """Start of the line after the one holding the character before ``i``."""
        text = self._text
        if i > 0 and text[i - 1] == "\n":
            return i
        j = text.find("\n", i)
        return len(text) if j < 0 else j + 1

    def _alias_span(self, parent: Node | None, slot: Any) -> tuple[int, int] | None:
        if parent is None:
            return None
        table = self._tree_now().aliases.get(id(parent))
        return table.get(slot) if table else None

    def _span(self, parent: Node | None, slot: Any, node: Node) -> tuple[int, int]:
        return self._alias_span(parent, slot) or (node.start_mark, node.end_mark)

    def _key_span(self, mapping: MappingNode, j: int) -> tuple[int, int]:
        key = mapping.value[j][0]
        return self._alias_span(mapping, (j, 0)) or (key.start_mark, key.end_mark)

    def _end(self, parent: Node | None, slot: Any, node: Node, *, trim: bool = False) -> int:
        """Offset just past the last character of the node's own text (not trailing comments).

        Block collections end where the next token starts, past blank and comment lines that may
        belong to what follows, so this descends to the last leaf instead. ``trim`` also drops the
        trailing line breaks of a keep-chomping block scalar (``|+``).
        """
        text = self._text
        while True:
            span = self._alias_span(parent, slot)
            if span is not None:
                return span[1]
            end: int = node.end_mark  # an offset: the composer stores offsets in the marks
            if isinstance(node, ScalarNode):
                if node.style in ("|", ">") and (trim or not self._keeps(node)):
                    while end > node.start_mark and text[end - 1] in " \t\r\n":
                        end -= 1
                return end
            if node.flow_style or not node.value:
                return end
            parent = node
            if isinstance(node, MappingNode):
                slot = (len(node.value) - 1, 1)
                node = node.value[-1][1]
            else:
                slot = len(node.value) - 1
                node = node.value[-1]

    def _after_block(self, parent: Node | None, slot: Any, node: Node, *, empty_too: bool = False) -> int:
        """Where a new entry after ``node`` goes: the line after its text, and past any blank
        lines holding spaces that still belong to a block scalar ending it (in ``|`` or ``>``
        such a line may be content: the new entry must not cut it off). ``empty_too``: past the
        empty ones as well (a deleted scalar's: left behind, a keep scalar above would take them)."""
        text = self._text
        pos = self._after_line(self._end(parent, slot, node))
        node = self._last_leaf(parent, slot, node)
        if node is None:
            return pos
        best, i = pos, pos
        while i < node.end_mark:
            j = text.find("\n", i)
            j = len(text) if j < 0 else j + 1
            line = text[i:j]
            if line.strip():
                break
            if empty_too or line.strip("\r\n"):
                best = j
            i = j
        return best

    def _last_leaf(self, parent: Node | None, slot: Any, node: Node) -> ScalarNode | None:
        """The block scalar that ends ``node``'s text, or None."""
        while isinstance(node, (MappingNode, SequenceNode)) and not node.flow_style and node.value:
            if self._alias_span(parent, slot) is not None:
                return None
            parent = node
            if isinstance(node, MappingNode):
                slot, node = (len(node.value) - 1, 1), node.value[-1][1]
            else:
                slot, node = len(node.value) - 1, node.value[-1]
        if self._alias_span(parent, slot) is not None:
            return None
        return node if isinstance(node, ScalarNode) and node.style in ("|", ">") else None

    def _keeps(self, node: ScalarNode) -> bool:
        header = self._text[node.start_mark : self._after_line(node.start_mark + 1)]
        match = _BLOCK_HEADER.match(header)
        return bool(match and "+" in match.group(1))

    def _dash(self, seq: SequenceNode, k: int) -> int:
        """Offset of the ``-`` that introduces item ``k`` of a block sequence."""
        text = self._text
        start, _ = self._span(seq, k, seq.value[k])
        i = start - 1
        while i >= 0 and text[i] in " \t":
            i -= 1
        if i >= 0 and text[i] == "-":
            return i
        line = self._line_start(start)
        while line > 0:  # the item starts below its dash: ``-  # note`` then the item
            prev = self._line_start(line - 1)
            content = text[prev:line].strip()
            if content.startswith("-"):
                return prev + len(text[prev:line]) - len(text[prev:line].lstrip(" \t"))
            if content and not content.startswith("#"):
                break
            line = prev
        return self._refuse("cannot find the '-' of a list item", _BUG_HINT)

    def _body_start(self, node: Node) -> int:
        """First key (or its ``?``) or first dash of a block collection, after any anchor or tag."""
        if isinstance(node, MappingNode):
            return self._key_anchor(node, 0)
        return self._dash(node, 0)

    def _key_anchor(self, mapping: MappingNode, j: int) -> int:
        """Where entry ``j`` of a block mapping starts: its key, or the ``?`` of an explicit key."""
        start = self._key_span(mapping, j)[0]
        i = start - 1
        while i >= 0 and self._text[i] in " \t":
            i -= 1
        return i if i >= 0 and self._text[i] == "?" else start

    def _colon_end(self, mapping: MappingNode, j: int) -> int:
        text = self._text
        _, key_end = self._key_span(mapping, j)
        i = key_end
        while i < len(text) and text[i] in " \t":
            i += 1
        if i < len(text) and text[i] == ":":
            return i + 1
        value_start, _ = self._span(mapping, (j, 1), mapping.value[j][1])
        colon = text.rfind(":", key_end, max(value_start, key_end))
        if colon < 0:
            self._refuse("cannot find the ':' after a key", _BUG_HINT)
        return colon + 1

    # -- style of the file ------------------------------------------------------------------

    def _style(self) -> tuple[int, int, str]:
        """(mapping indent step, sequence indent under a key, dash text) as the file writes them.
        Kept across gwconf's own splices, which write in this style: each block gwconf inserts
        walked the tree again (a whole walk when the file has no block list, 0.5 ms of a 6 KB
        file), and a block gwconf removed can no longer change the style of the next."""
        if self._style_cache is not None:
            return self._style_cache
        tree = self._tree_now()
        step: int | None = None
        seq_indent: int | None = None
        dash: str | None = None
        todo: deque[Node] = deque([tree.root] if tree.root is not None else [])
        seen: set[int] = set()
        budget = 5000
        while todo and budget and (step is None or seq_indent is None or dash is None):
            node = todo.popleft()
            budget -= 1
            if id(node) in seen or not isinstance(node, (MappingNode, SequenceNode)) or node.flow_style:
                continue
            seen.add(id(node))
            table = tree.aliases.get(id(node), {})
            if isinstance(node, MappingNode):
                for j, (_, value) in enumerate(node.value):
                    if (j, 1) in table or not isinstance(value, (MappingNode, SequenceNode)):
                        continue
                    if value.flow_style:
                        continue
                    key_col = self._col(self._key_anchor(node, j))
                    offset = self._col(self._body_start(value)) - key_col
                    if isinstance(value, MappingNode) and step is None and offset > 0:
                        step = offset
                    elif isinstance(value, SequenceNode) and seq_indent is None and offset >= 0:
                        seq_indent = offset
                    todo.append(value)
            else:
                for k, item in enumerate(node.value):
                    if k in table:
                        continue
                    if dash is None and not (
                        isinstance(item, (MappingNode, SequenceNode)) and item.flow_style
                    ):
                        between = self._text[self._dash(node, k) : item.start_mark]
                        if _DASH.fullmatch(between):
                            dash = between
                    todo.append(item)
        self._style_cache = (step or 2, 2 if seq_indent is None else seq_indent, dash or "- ")
        return self._style_cache

    # -- rendering --------------------------------------------------------------------------

    def _entry_lines(self, key: Any, value: Any, pad: str) -> list[str]:
        head = f"{pad}{_key_text(key, flow=False)}:"
        if _is_inline(value):
            return [f"{head} {_inline_text(value)}"]
        step, seq_indent, _ = self._style()
        indent = step if isinstance(value, dict) else seq_indent
        return [head, *self._block_lines(value, pad + " " * indent)]

    def _item_lines(self, value: Any, pad: str, dash: str) -> list[str]:
        if _is_inline(value):
            return [f"{pad}{dash}{_inline_text(value)}"]
        inner = pad + " " * len(dash)
        lines = self._block_lines(value, inner)
        lines[0] = pad + dash + lines[0][len(inner) :]
        return lines

    def _block_lines(self, value: Any, pad: str, dash: str | None = None) -> list[str]:
        """A non-empty dict or list as block lines at column ``len(pad)``."""
        if isinstance(value, dict):
            return [line for k, v in value.items() for line in self._entry_lines(k, v, pad)]
        dash = dash or self._style()[2]
        return [line for item in value for line in self._item_lines(item, pad, dash)]

    def _insert_lines(self, pos: int, lines: list[str]) -> None:
        eol = self.eol
        if pos == len(self._text) and self._text and not self._text.endswith("\n"):
            self._splice(pos, pos, eol + eol.join(lines))  # the file keeps having no final newline
        else:
            self._splice(pos, pos, "".join(line + eol for line in lines))

    # -- walking ----------------------------------------------------------------------------

    def _walk(self, path: KeyPath) -> tuple[list[_Step], KeyPath]:
        """Nodes along ``path`` and the part of it that does not exist yet.

        Refuses to go inside an alias or an anchored node some alias reuses: an edit there would
        change every place that refers to it.
        """
        tree = self._tree_now()
        if self._empty():
            return [], path
        assert tree.root is not None
        chain = [_Step(None, None, tree.root, False)]
        for i, part in enumerate(path):
            step = chain[-1]
            node = step.node
            if isinstance(node, ScalarNode) and node.tag == _NULL:
                return chain, path[i:]
            where = _fmt_path(path[:i])
            if step.alias:
                self._refuse(
                    f"{where} is an alias (*{tree.referenced.get(id(node), '?')}); gwconf does not edit "
                    "inside aliased YAML, because the change would show up in every place that uses it"
                )
            name = tree.referenced.get(id(node))
            if name is not None:
                self._refuse(
                    f"{where} is the anchored node &{name} that aliases reuse; gwconf does not edit "
                    "inside it, because the change would show up in every place that uses it"
                )
            if isinstance(node, MappingNode):
                j = self._find_key(node, part)
                if j is None:
                    if i < len(path) - 1 and self._merged_has(node, part):
                        self._refuse(
                            f"{_fmt_path(path[: i + 1])} comes from a merge key (<<); gwconf cannot edit inside it"
                        )
                    return chain, path[i:]
                slot = (j, 1)
                chain.append(_Step(node, slot, node.value[j][1], self._alias_span(node, slot) is not None))
            elif isinstance(node, SequenceNode):
                if not isinstance(part, int) or isinstance(part, bool):
                    self._refuse(
                        f"{where} is a list, not a mapping; gwconf cannot use key {part!r} in it",
                        at=node.start_mark,
                    )
                n = len(node.value)
                k = part + n if part < 0 else part
                if not 0 <= k < n:
                    self._refuse(f"{where} has {n} items; there is no item {part}")
                chain.append(_Step(node, k, node.value[k], self._alias_span(node, k) is not None))
            else:
                self._refuse(
                    f"{where} is a {_node_kind(node)}, not a mapping; gwconf cannot set {_fmt_path(path)}",
                    at=node.start_mark,
                )
        return chain, ()

    def _find_key(self, mapping: MappingNode, part: Any) -> int | None:
        for j, (key, _) in enumerate(mapping.value):
            value = _key_value(key)
            if value is not _NO_KEY and value == part and isinstance(value, bool) == isinstance(part, bool):
                return j
        return None

    def _merged_has(self, mapping: MappingNode, part: Any) -> bool:
        if not any(k.tag == _MERGE for k, _ in mapping.value):
            return False
        # only the merged-in pairs: a mapping of just the ``<<`` entries
        sources = [(k, v) for k, v in mapping.value if k.tag == _MERGE]
        merged = _Constructor().construct_document(
            MappingNode(mapping.tag, sources, mapping.start_mark, mapping.end_mark)
        )
        return isinstance(merged, dict) and part in merged

    def _guard_inside(self, step: _Step, path: KeyPath) -> None:
        """Refuse to change a collection in place when it is an alias or an aliased anchor."""
        tree = self._tree_now()
        if step.alias:
            self._refuse(f"{_fmt_path(path)} is an alias; gwconf does not edit inside aliased YAML")
        name = tree.referenced.get(id(step.node))
        if name is not None:
            self._refuse(
                f"{_fmt_path(path)} is the anchored node &{name} that aliases reuse; gwconf does not edit it"
            )

    def _guard_span(self, start: int, end: int, path: KeyPath) -> None:
        """Refuse to remove text that defines an anchor some alias still uses."""
        refs = self._tree_now().ref_starts
        i = bisect.bisect_left(refs, (start, ""))
        if i < len(refs) and refs[i][0] < end:
            self._refuse(
                f"changing {_fmt_path(path)} would remove the anchor &{refs[i][1]} that aliases use",
            )

    # -- edits ------------------------------------------------------------------------------

    def _set(self, path: KeyPath, value: Any) -> bool:
        current = self._peek(path)
        if current is not MISSING and same_value(current, value):
            return False
        if not path and not isinstance(value, (dict, list)):
            self._refuse("gwconf writes a mapping or a list at the top level of a YAML file")
        chain, rest = self._walk(path)
        if any(not isinstance(p, str) for p in rest):
            self._refuse(f"{_fmt_path(path)} does not exist; gwconf creates missing mappings, not list items")
        if not chain:
            self._insert_root(_nest(rest, value))
            return True
        step = chain[-1]
        node = step.node
        if rest:
            if isinstance(node, MappingNode):
                self._insert_key(step, rest[0], _nest(rest[1:], value))
            else:  # a null value becomes the mapping that holds the rest of the path
                self._replace(chain, _nest(rest, value), path[: len(path) - len(rest)])
            return True
        if (
            isinstance(value, dict)
            and value
            and isinstance(node, MappingNode)
            and not node.flow_style
            and not step.alias
            and id(node) not in self._tree_now().referenced
            and not any(k.tag == _MERGE for k, _ in node.value)
            and isinstance(current, dict)
        ):
            # Mapping over mapping: change key by key, so comments and untouched keys stay.
            for key, item in value.items():
                self._set((*path, key), item)
            for key in current:
                if key not in value:
                    self._delete((*path, key))
            return True
        self._replace(chain, value, path)
        return True

    def _delete(self, path: KeyPath) -> None:
        chain, rest = self._walk(path)
        if rest:
            self._refuse(f"{_fmt_path(path)} comes from a merge key (<<); gwconf cannot delete it")
        parent = chain[-1].parent
        if isinstance(parent, MappingNode) and self._merged_has(parent, path[-1]):
            self._refuse(f"{_fmt_path(path)} would still come from a merge key (<<) after deleting it")
        self._remove(chain, path)

    def _insert_root(self, value: Any) -> None:
        if _is_inline(value):
            self._refuse("gwconf writes a mapping or a list at the top level of a YAML file")
        lines = self._block_lines(value, "", "- ")
        root = self._tree_now().root
        pos = len(self._text) if root is None else self._after_line(root.start_mark)
        self._insert_lines(pos, lines)

    def _insert_key(self, step: _Step, key: Any, value: Any) -> None:
        node = step.node
        assert isinstance(node, MappingNode)
        if node.flow_style:
            text = _flow_text(value) if isinstance(value, (dict, list)) else _scalar_text(value, flow=True)
            self._flow_insert(node, f"{_key_text(key, flow=True)}: {text}")
            return
        key_start = self._key_anchor(node, len(node.value) - 1)
        pad = self._text[self._line_start(key_start) : key_start]
        if pad.strip(" \t"):  # the only key sits after "- " or "? ": indent to its column
            pad = " " * len(pad)
        pos = self._after_block(step.parent, step.slot, node)
        leaf = self._last_leaf(step.parent, step.slot, node)
        if pos == len(self._text) and not self._text.endswith("\n") and leaf is not None:
            # The file ends inside a block scalar without a final newline: a line after it would
            # give the scalar one ("end" would read "end\n"). The new key goes before the last.
            last = self._key_anchor(node, len(node.value) - 1)
            if not self._text[self._line_start(last) : last].strip(" \t"):
                pos = self._line_start(last)
                self._splice(
                    pos, pos, "".join(line + self.eol for line in self._entry_lines(key, value, pad))
                )
                return
        self._insert_lines(pos, self._entry_lines(key, value, pad))

    def _append_item(self, step: _Step, value: Any) -> None:
        node = step.node
        assert isinstance(node, SequenceNode)
        if node.flow_style:
            self._flow_insert(node, _flow_text(value))
            return
        last = len(node.value) - 1
        dash = self._dash(node, last)
        line = self._line_start(dash)
        pad = self._text[line:dash]
        if pad.strip(" \t"):  # a nested list on its parent's dash line: ``- - x``
            pad = " " * len(pad)
        item_start, _ = self._span(node, last, node.value[last])
        dash_text = self._text[dash:item_start]
        if not _DASH.fullmatch(dash_text):
            dash_text = "- "
        pos = self._after_block(step.parent, step.slot, node)
        self._insert_lines(pos, self._item_lines(value, pad, dash_text))

    def _flow_insert(self, node: Node, entry: str) -> None:
        if node.value:
            end = self._entry_end(node, len(node.value) - 1)
            self._splice(end, end, ", " + entry)
        else:
            opener = "{" if isinstance(node, MappingNode) else "["
            pos = self._text.find(opener, node.start_mark, node.end_mark)
            self._splice(pos + 1, pos + 1, entry)

    def _replace(self, chain: list[_Step], value: Any, path: KeyPath) -> None:
        """Replace the value at the end of ``chain`` with ``value``, rendered to fit its place."""
        step = chain[-1]
        node, parent, slot = step.node, step.parent, step.slot
        text = self._text
        start, end = self._span(parent, slot, node)
        trim_end = self._end(parent, slot, node, trim=True)
        self._guard_span(start, max(end, trim_end), path)
        is_coll = not step.alias and isinstance(node, (MappingNode, SequenceNode))
        block_coll = is_coll and not node.flow_style
        block_scalar = not step.alias and isinstance(node, ScalarNode) and node.style in ("|", ">")
        style = node.style if isinstance(node, ScalarNode) and not step.alias and not block_scalar else None
        space = " " if start == end and start > 0 and text[start - 1] not in " \t\n" else ""
        if (
            start == end
            and isinstance(parent, MappingNode)
            and parent.flow_style
            and ":" not in text[self._key_span(parent, slot[0])[1] : start]
        ):
            space = ": "  # ``{a, b: 1}``: the key ``a`` has no colon yet

        if parent is not None and parent.flow_style:
            new = (
                _flow_text(value)
                if isinstance(value, (dict, list))
                else _scalar_text(value, flow=True, style=style)
            )
            self._splice(start, end, space + new)
            return
        if not isinstance(value, (dict, list)) and not block_coll and not block_scalar:
            self._splice(start, end, space + _scalar_text(value, flow=False, style=style))
            return
        if isinstance(value, (dict, list)) and is_coll and node.flow_style:
            self._splice(start, end, _flow_text(value))  # a flow collection stays one
            return

        if _is_inline(value):
            new = _inline_text(value)
            if isinstance(parent, MappingNode) and block_coll:
                colon_end = self._colon_end(parent, slot[0])
                # a comment on the key's line stays there: ``k: new  # note``
                tail = _TRAILING_COMMENT.match(text[colon_end : self._after_line(colon_end)])
                self._splice(colon_end, trim_end, " " + new + (tail.group() if tail else ""))
            else:
                self._splice(start, trim_end if (block_coll or block_scalar) else end, space + new)
            return

        eol = self.eol
        if isinstance(parent, MappingNode):
            j = slot[0]
            colon_end = self._colon_end(parent, j)
            key_col = self._col(self._key_anchor(parent, j))
            map_step, seq_indent, _ = self._style()
            col = key_col + (map_step if isinstance(value, dict) else seq_indent)
            dash = None
            if block_coll and isinstance(value, dict) == isinstance(node, MappingNode):
                old_col = self._col(self._body_start(node))
                if isinstance(node, SequenceNode) or old_col > key_col:
                    col = old_col
                if isinstance(node, SequenceNode):
                    first = self._dash(node, 0)
                    dash_text = text[first : self._span(node, 0, node.value[0])[0]]
                    dash = dash_text if _DASH.fullmatch(dash_text) else None
            joined = eol.join(self._block_lines(value, " " * col, dash))
            if block_coll and start == self._body_start(node):
                self._splice(self._line_start(start), trim_end, joined)
            elif block_coll:  # an anchor or tag on the key's line goes with the old value
                self._splice(colon_end, trim_end, eol + joined)
            else:  # the old value sat on the key's line: keep that line's comment
                old_end = trim_end if block_scalar else end
                after = self._after_line(old_end)
                line_rest = text[old_end:after]
                new = line_rest + joined + eol if line_rest.endswith("\n") else line_rest + eol + joined
                self._splice(colon_end, after, new)
            return

        # a list item or the top level: the new block starts where the old value started
        col = self._col(start) + len(space)
        lines = self._block_lines(value, " " * col)
        lines[0] = lines[0][col:]
        self._splice(start, trim_end if (block_coll or block_scalar) else end, space + eol.join(lines))

    def _entry_start(self, parent: Node, j: int) -> int:
        """Where entry ``j`` of a collection starts: its key (or ``?``), its dash, or its text."""
        if isinstance(parent, MappingNode):
            return self._key_span(parent, j)[0] if parent.flow_style else self._key_anchor(parent, j)
        return self._span(parent, j, parent.value[j])[0] if parent.flow_style else self._dash(parent, j)

    def _entry_end(self, parent: Node, j: int) -> int:
        if isinstance(parent, MappingNode):
            return max(self._key_span(parent, j)[1], self._end(parent, (j, 1), parent.value[j][1]))
        return self._end(parent, j, parent.value[j])

    def _remove(self, chain: list[_Step], path: KeyPath) -> None:
        step = chain[-1]
        parent = step.parent
        assert parent is not None
        text = self._text
        j = step.slot[0] if isinstance(parent, MappingNode) else step.slot
        count = len(parent.value)
        elem_start, elem_end = self._entry_start(parent, j), self._entry_end(parent, j)
        next_start = self._entry_start(parent, j + 1) if j + 1 < count else None
        self._guard_span(elem_start, elem_end, path)

        if parent.flow_style:
            if next_start is not None:
                self._splice(elem_start, next_start, "")
            elif j > 0:  # the last entry takes the comma before it along
                self._splice(self._entry_end(parent, j - 1), elem_end, "")
            else:
                self._splice(elem_start, elem_end, "")
            return
        is_root = len(chain) == 2
        if count == 1 and not (is_root and isinstance(parent, MappingNode)):
            # the collection becomes empty: write it as {} or [] so it stays one
            self._replace(chain[:-1], {} if isinstance(parent, MappingNode) else [], path[:-1])
            return
        line = self._line_start(elem_start)
        if not text[line:elem_start].strip(" \t"):
            before = None
            if j > 0:  # a block scalar ends right before: its line breaks must stay as they are
                prev = (j - 1, 1) if isinstance(parent, MappingNode) else j - 1
                prev_node = parent.value[j - 1][1] if isinstance(parent, MappingNode) else parent.value[j - 1]
                before = self._last_leaf(parent, prev, prev_node)
            keeps = before is not None and self._keeps(before)
            slot, node = (
                (step.slot, parent.value[j][1]) if isinstance(parent, MappingNode) else (j, parent.value[j])
            )
            # with the blank lines (with spaces) that end its own block scalar; all blank lines
            # after it when a keep scalar (``|+``) comes before: they would join that one
            start = line
            end = max(self._after_line(elem_end), self._after_block(parent, slot, node, empty_too=keeps))
            if keeps:
                while end < len(text) and not text[end : self._after_line(end + 1)].strip():
                    end = self._after_line(end + 1)
            if end == len(text) and not text.endswith("\n") and before is None:
                # the last line of a file without a final newline: the line before becomes last
                if start > 0 and text[start - 1] == "\n":
                    start -= 1
                if start > 0 and text[start - 1] == "\r":
                    start -= 1
            self._splice(start, end, "")
        elif next_start is not None:  # first entry on a "- " line: the next one moves up
            self._splice(elem_start, next_start, "")
        else:  # pragma: no cover - a block collection's only entry is handled above
            self._refuse(f"cannot delete {_fmt_path(path)}", _BUG_HINT)


def _kind(value: Any) -> str:
    if isinstance(value, dict):
        return "mapping"
    if isinstance(value, bool):
        return "boolean"
    if value is None:
        return "null"
    return {str: "string", int: "number", float: "number", list: "list"}.get(
        type(value), type(value).__name__
    )


def _node_kind(node: Node) -> str:
    if isinstance(node, ScalarNode):
        return "string" if node.tag == _STR else "scalar"
    return "list" if isinstance(node, SequenceNode) else "mapping"


def load(text: str, source: str, *, fmt: str = "yaml") -> YamlDocument:
    """Parse YAML ``text`` (no BOM); raises ParseError naming ``source`` with line and column."""
    return YamlDocument(text, source, fmt)
