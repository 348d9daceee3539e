"""``@record``: the part of ``dataclasses`` gwconf uses, at a fifth of the cost to define a class.

On CPython 3.11 ``@dataclass`` compiles each generated method with its own ``exec`` (about
0.7 ms a class, 1.1 ms frozen) and needs ``inspect`` (about 5 ms to import). gwconf defines 30-40
record classes in any command that reads client files: measured with ``bench/run.py``, that was
36 of the 145 ms ``gwconf clients`` took, a quarter of the command (issue 15). Here only
``__init__`` is compiled, once per class and only when its first instance is made, so building
an instance costs what a dataclass's does;
``__eq__``, ``__repr__``, ``__hash__`` and the frozen guard are shared functions that read the
field names from the class.

The semantics are dataclasses' for what gwconf uses, and ``tests/test_records.py`` holds each
behaviour against ``dataclasses`` itself: fields from annotations in definition order (a
subclass's after its bases'), defaults and ``field(default_factory=...)``, ``repr=False``,
``compare=False``, ``frozen=True`` (hashable by value, ``FrozenInstanceError``-like
``AttributeError`` on assignment), ``eq=False``, ``__post_init__``, ``fields()`` and
``replace()``. Type checkers see it through ``dataclass_transform`` (PEP 681).
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing itself costs about 3 ms to import: only type checkers read it here
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any, TypeVar, dataclass_transform

    _T = TypeVar("_T")
else:

    def dataclass_transform(**kwargs: object) -> object:
        return lambda function: function


__all__ = ["Field", "FrozenInstanceError", "field", "fields", "record", "replace"]


class _Missing:
    def __repr__(self) -> str:
        return "MISSING"


MISSING: Any = _Missing()


class FrozenInstanceError(AttributeError):
    """Assigning to a field of a frozen record (the name ``dataclasses`` uses)."""


class Field:
    """One field: its name, default or factory, and whether repr and ``==`` use it."""

    __slots__ = ("compare", "default", "default_factory", "name", "repr")

    def __init__(
        self, default: Any = MISSING, default_factory: Any = MISSING, repr: bool = True, compare: bool = True
    ) -> None:
        self.name = ""
        self.default = default
        self.default_factory = default_factory
        self.repr = repr
        self.compare = compare

    def __repr__(self) -> str:
        return f"Field(name={self.name!r})"


def field(
    *,
    default: Any = MISSING,
    default_factory: Callable[[], Any] | Any = MISSING,
    repr: bool = True,
    compare: bool = True,
) -> Any:
    if default is not MISSING and default_factory is not MISSING:
        raise ValueError("cannot specify both default and default_factory")
    return Field(default, default_factory, repr, compare)


def fields(cls_or_instance: Any) -> tuple[Field, ...]:
    try:
        return cls_or_instance.__record_fields__  # type: ignore[no-any-return]
    except AttributeError:
        raise TypeError("must be called with a record type or instance") from None


def replace(obj: _T, **changes: Any) -> _T:
    """A copy of ``obj`` with ``changes``: a new instance, so defaults and ``__post_init__`` run again."""
    for f in fields(obj):
        if f.name not in changes:
            changes[f.name] = getattr(obj, f.name)
    return type(obj)(**changes)


# -- the shared methods -------------------------------------------------------------------------
def _repr(self: Any) -> str:
    shown = ", ".join(f"{f.name}={getattr(self, f.name)!r}" for f in self.__record_fields__ if f.repr)
    return f"{type(self).__qualname__}({shown})"


def _key(self: Any) -> tuple[Any, ...]:
    return tuple(getattr(self, name) for name in self.__record_compared__)


def _eq(self: Any, other: Any) -> Any:
    if other.__class__ is self.__class__:
        return _key(self) == _key(other)
    return NotImplemented


def _hash(self: Any) -> int:
    return hash(_key(self))


def _frozen_setattr(self: Any, name: str, value: Any) -> None:
    if name in self.__record_names__:
        raise FrozenInstanceError(f"cannot assign to field {name!r}")
    object.__setattr__(self, name, value)


def _frozen_delattr(self: Any, name: str) -> None:
    if name in self.__record_names__:
        raise FrozenInstanceError(f"cannot delete field {name!r}")
    object.__delattr__(self, name)


def _init_source(
    all_fields: tuple[Field, ...], frozen: bool, post_init: bool
) -> tuple[str, dict[str, Any], tuple[Any, ...]]:
    """``__init__``'s text, the names its defaults and factories are bound to, and its defaults."""
    params, body, names = ["self"], [], {"MISSING": MISSING, "_setattr": object.__setattr__}
    defaults: list[Any] = []
    for index, f in enumerate(all_fields):  # their order was checked when the class was made
        if f.default is not MISSING:
            names[f"_d{index}"] = f.default
            params.append(f"{f.name}=_d{index}")
            defaults.append(f.default)
            value = f.name
        elif f.default_factory is not MISSING:
            names[f"_f{index}"] = f.default_factory
            params.append(f"{f.name}=MISSING")
            defaults.append(MISSING)
            value = f"_f{index}() if {f.name} is MISSING else {f.name}"
        else:
            params.append(f.name)
            value = f.name
        body.append(f"_setattr(self, {f.name!r}, {value})" if frozen else f"self.{f.name} = {value}")
    if post_init:
        body.append("self.__post_init__()")
    source = f"def __init__({', '.join(params)}):\n" + "".join(f" {line}\n" for line in body or ["pass"])
    return source, names, tuple(defaults)


def init_source(cls: Any) -> str:
    """The text of a record class's ``__init__`` (what scripts/gen-record-inits compiles)."""
    return _init_source(cls.__record_fields__, cls.__record_frozen__, hasattr(cls, "__post_init__"))[0]


_compiles = 0  # __init__s compiled in this process


def _compiled_init(source: str, names: dict[str, Any], defaults: tuple[Any, ...]) -> Any:
    """The function ``exec(source, names)`` defines. Parsing an ``__init__`` at run time costs
    about 0.5M instructions a class, nine classes in ``gwconf clients`` (issue 15), so from the
    second class a process compiles on, the code comes from ``gwconf._record_inits``, which
    holds every gwconf record class's ``__init__`` compiled with the package (its import costs
    about two parses: a command that compiles one class, as ``status`` does, parses it).
    scripts/gen-record-inits writes that module; tests/test_record_inits.py holds each of its
    functions to the text here, bytecode for bytecode. A text it lacks is parsed here."""
    global _compiles
    _compiles += 1
    code = None
    if _compiles > 1:
        from gwconf._record_inits import CODES

        code = CODES.get(source)
    if code is None:
        exec(source, names)  # one compile per class; dataclasses makes one per method
        return names["__init__"]
    from types import FunctionType

    return FunctionType(code, names, "__init__", defaults or None)


# instances a class makes through the shared ``__init__`` before it compiles its own. Compiling
# costs about as much as 60 instances made the shared way (0.7M instructions against 12K more
# each, callgrind); in a listing half the classes make under 8 instances and the rest 40-130
COMPILE_AFTER = 8


def _check_order(all_fields: tuple[Field, ...]) -> None:
    """A field without a default after one with is refused when the class is defined, as there."""
    seen_default = False
    for f in all_fields:
        if f.default is not MISSING or f.default_factory is not MISSING:
            seen_default = True
        elif seen_default:
            raise TypeError(f"non-default argument {f.name!r} follows default argument")


def _first_init(cls: Any, all_fields: tuple[Field, ...], frozen: bool, post_init: bool) -> Any:
    """An ``__init__`` that binds the arguments itself for a class's first instances, then
    compiles the class's own and hands over to it. A command defines about 40 record classes
    and makes instances of fewer than half, most of them a few: the compile (one ``exec`` per
    class) was most of what a listing spent on records (issue 15). A call that does not bind
    (a missing, unknown or repeated argument) goes to the compiled ``__init__`` at once, so
    its ``TypeError`` is Python's own."""
    count = len(all_fields)
    specs = tuple((f.name, f.default, f.default_factory) for f in all_fields)
    positions = {f.name: index for index, f in enumerate(all_fields)}
    required = tuple(
        (index, f.name)
        for index, f in enumerate(all_fields)
        if f.default is MISSING and f.default_factory is MISSING
    )
    put = object.__setattr__ if frozen else setattr
    made = 0

    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        nonlocal made
        init = cls.__dict__["__init__"]
        if init is __init__:  # not compiled yet (another instance may have done it meanwhile)
            given = len(args)
            if made < COMPILE_AFTER and given <= count and _binds(positions, required, given, kwargs):
                made += 1
                for index, (name, default, factory) in enumerate(specs):
                    value = args[index] if index < given else kwargs.get(name, default)
                    if value is MISSING and factory is not MISSING:
                        value = factory()
                    put(self, name, value)
                if post_init:
                    self.__post_init__()
                return
            init = _compiled_init(*_init_source(all_fields, frozen, post_init))
            init.__qualname__ = f"{cls.__qualname__}.__init__"
            cls.__init__ = init
        init(self, *args, **kwargs)

    __init__.__qualname__ = f"{cls.__qualname__}.__init__"
    return __init__


def _binds(
    positions: dict[str, int], required: tuple[tuple[int, str], ...], given: int, kwargs: dict[str, Any]
) -> bool:
    """Whether ``given`` positional arguments and ``kwargs`` bind to the fields as the compiled
    ``__init__`` would take them: every keyword a field not given by position, every field
    without a default given."""
    for name in kwargs:
        if positions.get(name, -1) < given:
            return False
    return all(index < given or name in kwargs for index, name in required)


def _own_fields(cls: Any) -> list[Field]:
    annotations = cls.__dict__.get("__annotations__", {})  # noqa: RUF063 (inspect costs 5 ms)
    found = []
    for name, annotation in annotations.items():
        if isinstance(annotation, str) and annotation.startswith(("ClassVar", "typing.ClassVar")):
            continue
        default = cls.__dict__.get(name, MISSING)
        spec = default if isinstance(default, Field) else Field(default)
        spec.name = name
        if isinstance(default, Field) or default is not MISSING:
            if spec.default is MISSING:
                delattr(cls, name)  # a factory, or field() without a default: no class attribute
            else:
                setattr(cls, name, spec.default)  # as dataclasses: the default stays a class attribute
        found.append(spec)
    return found


def _build(cls: Any, eq: bool, frozen: bool) -> Any:
    by_name: dict[str, Field] = {}
    for base in reversed(cls.__mro__[1:]):
        for f in base.__dict__.get("__record_fields__", ()):
            by_name[f.name] = f
    for f in _own_fields(cls):
        by_name[f.name] = f
    all_fields = tuple(by_name.values())
    post_init = hasattr(cls, "__post_init__")
    _check_order(all_fields)
    cls.__init__ = _first_init(cls, all_fields, frozen, post_init)
    cls.__record_fields__ = all_fields
    cls.__record_frozen__ = frozen
    cls.__record_names__ = frozenset(by_name)
    cls.__record_compared__ = tuple(f.name for f in all_fields if f.compare)
    if "__repr__" not in cls.__dict__:
        cls.__repr__ = _repr
    if eq and "__eq__" not in cls.__dict__:
        cls.__eq__ = _eq
        # as dataclasses: eq without frozen makes instances unhashable; frozen hashes the fields
        if "__hash__" not in cls.__dict__ or cls.__dict__["__hash__"] is None:
            cls.__hash__ = _hash if frozen else None
    if frozen:
        cls.__setattr__ = _frozen_setattr
        cls.__delattr__ = _frozen_delattr
    return cls


@dataclass_transform(field_specifiers=(field, Field))
def record(cls: Any = None, /, *, eq: bool = True, frozen: bool = False) -> Any:
    """``@record`` or ``@record(frozen=True)``: a class whose annotated names are its fields."""
    if cls is None:
        return lambda inner: _build(inner, eq, frozen)
    return _build(cls, eq, frozen)
