"""Records: refbook's value classes, made as ``dataclasses.dataclass(slots=True)`` makes them, for
a fraction of the cost of making them.

Where it sits: a utility of the whole package. Every value class of refbook and of both hosts
(entries, CSL items, IR nodes, citations, diagnostics, the engine's output tree, the plugins'
page data) is declared as a dataclass is, fields annotated in the class body, defaults and
``field(...)`` alike, and decorated with :func:`record` instead of ``@dataclass``.

Why: ``dataclasses`` builds each class's methods by writing their source and compiling it
(``exec``), six or seven methods per frozen class, and then rebuilds the class for its slots:
~1 ms per class. Every build process pays it for every class it imports: 31 classes, 29 ms, of a
MkDocs build from a warm cache folder (~70 ms over plain MkDocs in all), 64 classes, 52 ms, of a
Sphinx build after a citation edit (docs/design/performance.md). A record writes the same
source for ``__init__``, ``__repr__``, ``__eq__``, ``__hash__`` and the orderings (the statements
the dataclass runs, as fast), but compiles each at its first call: most classes a process
imports never have their methods called, or only some. The frozen methods are closures over
the fields.

What a record is, the same as the dataclass with ``slots=True`` (and ``frozen``, ``order`` as
given): ``__slots__`` of its fields, ``__init__`` taking the ``init`` fields in order (defaults,
``default_factory``, ``init=False`` fields set from their defaults, ``__post_init__`` called),
``__repr__`` (``Name(a=…, b=…)``, the ``repr`` fields), ``__eq__`` (same class, the ``compare``
fields as a tuple), ``__hash__`` as the dataclass decides it (frozen: the ``hash`` fields;
not frozen: none, unhashable), the four orderings with ``order``, ``__match_args__``, and, frozen,
``FrozenInstanceError`` on assignment and pickling through ``__getstate__``/``__setstate__``
with the same state a frozen slotted dataclass has. A method the class body defines is kept.
``ClassVar`` annotations are not fields. ``tests/core/test_records.py`` checks all of this
against ``dataclasses`` itself, class by class. Not supported (refbook uses neither):
``kw_only`` fields and ``InitVar``; and a record is always slotted and compared (``eq``).

``dataclasses.fields`` and ``dataclasses.replace`` do not know records: :func:`fields` and
:func:`replace` here do (and fall back to ``dataclasses`` for a dataclass).
"""

from __future__ import annotations

import dataclasses
import inspect
import reprlib
import typing
from collections.abc import Callable
from dataclasses import MISSING, Field, FrozenInstanceError, field
from typing import Any, TypeVar, dataclass_transform, overload

__all__ = ["FrozenInstanceError", "RecordField", "field", "fields", "is_record", "record",
           "replace"]

_T = TypeVar("_T")
_C = TypeVar("_C", bound=type)

#: the default of an ``__init__`` parameter whose field has a ``default_factory``
_FACTORY = object()


class RecordField:
    """One field of a record (what ``dataclasses.fields`` gives of a dataclass, the attributes
    refbook reads)."""

    __slots__ = ("compare", "default", "default_factory", "hash", "init", "name", "repr")

    def __init__(self, name: str, default: Any, default_factory: Any, *, init: bool,
                 repr: bool, compare: bool, hash: bool | None) -> None:
        self.name = name
        self.default = default
        self.default_factory = default_factory
        self.init = init
        self.repr = repr
        self.compare = compare
        self.hash = compare if hash is None else hash

    def __repr__(self) -> str:
        return f"RecordField({self.name!r})"


def _is_class_var(annotation: object) -> bool:
    if isinstance(annotation, str):  # ``from __future__ import annotations``: the source text
        return annotation.startswith(("ClassVar", "typing.ClassVar", "t.ClassVar"))
    return annotation is typing.ClassVar or typing.get_origin(annotation) is typing.ClassVar


def _fields_of(cls: type) -> tuple[RecordField, ...]:
    out = []
    for name, annotation in inspect.get_annotations(cls).items():
        if _is_class_var(annotation):
            continue
        value = cls.__dict__.get(name, MISSING)
        if isinstance(value, Field):
            out.append(RecordField(name, value.default, value.default_factory, init=value.init,
                                   repr=value.repr, compare=value.compare, hash=value.hash))
        else:
            out.append(RecordField(name, value, MISSING, init=True, repr=True, compare=True,
                                   hash=None))
        default = out[-1].default
        if isinstance(default, (list, dict, set)):  # as dataclasses refuses it
            raise ValueError(f"mutable default {type(default)} for field {name} is not "
                             "allowed: use default_factory")
    return tuple(out)


def _init_source(cls: type, fs: tuple[RecordField, ...], *,
                 frozen: bool) -> tuple[str, dict[str, Any]]:
    """``__init__``'s source and the names it uses, as the dataclass one (the same statements)."""
    env: dict[str, Any] = {"__set": object.__setattr__, "__FACTORY": _FACTORY}
    params, body = [], []
    seen_default = False
    for f in fs:
        value: str | None
        if f.init:
            if f.default is not MISSING:
                env[f"__d_{f.name}"] = f.default
                params.append(f"{f.name}=__d_{f.name}")
                seen_default = True
                value = f.name
            elif f.default_factory is not MISSING:
                env[f"__f_{f.name}"] = f.default_factory
                params.append(f"{f.name}=__FACTORY")
                seen_default = True
                value = f"__f_{f.name}() if {f.name} is __FACTORY else {f.name}"
            else:
                if seen_default:
                    raise TypeError(f"non-default argument {f.name!r} follows default argument")
                params.append(f.name)
                value = f.name
        elif f.default is not MISSING:
            env[f"__d_{f.name}"] = f.default
            value = f"__d_{f.name}"
        elif f.default_factory is not MISSING:
            env[f"__f_{f.name}"] = f.default_factory
            value = f"__f_{f.name}()"
        else:
            value = None  # not set by __init__ (as a dataclass leaves it)
        if value is not None:
            body.append(f"  __set(self, {f.name!r}, {value})" if frozen
                        else f"  self.{f.name} = {value}")
    if "__post_init__" in cls.__dict__:
        body.append("  self.__post_init__()")
    source = f"def __init__(self, {', '.join(params)}):\n" + ("\n".join(body) or "  pass") + "\n"
    return source, env


def _tuple_of(names: tuple[str, ...], obj: str) -> str:
    """The source of the tuple of ``obj``'s named attributes (as the dataclass methods write it)."""
    return "(" + "".join(f"{obj}.{name}," for name in names) + ")"


def _compiled_at_first_call(cls: type, name: str, source: str, env: dict[str, Any],
                            wrap: Callable[[Any], Any] | None = None) -> Callable[..., Any]:
    """A method that, at its first call, compiles ``source`` (defining ``name``), puts the
    result in its place on ``cls`` and runs it. Compiling is most of what making a dataclass
    costs, and a process calls few of the methods of the classes it imports."""

    def first(self: Any, *args: Any, **kwargs: Any) -> Any:
        exec(source, env)  # noqa: S102 - our own text: field names (identifiers) and placeholders
        made = env[name] if wrap is None else wrap(env[name])
        made.__qualname__ = f"{cls.__qualname__}.{name}"
        made.__module__ = cls.__module__
        setattr(cls, name, made)
        return made(self, *args, **kwargs)

    first.__qualname__ = f"{cls.__qualname__}.{name}"
    return first


def _methods(cls: type, fs: tuple[RecordField, ...], *, frozen: bool,
             order: bool) -> dict[str, Any]:
    """The comparisons and the hash of a record: the source of each method, compiled at its
    first call (the dataclass's own statements: equality and hashes are hot in the memos'
    look-ups), or None for no hash."""
    compared = tuple(f.name for f in fs if f.compare)
    mine, theirs = _tuple_of(compared, "self"), _tuple_of(compared, "other")
    methods: dict[str, Any] = {
        name: (f"def {name}(self, other):\n"
               "  if other.__class__ is self.__class__:\n"
               f"    return {mine} {op} {theirs}\n"
               "  return NotImplemented\n")
        for name, op in (("__eq__", "=="), *((("__lt__", "<"), ("__le__", "<="), ("__gt__", ">"),
                                              ("__ge__", ">=")) if order else ()))}
    # the hash as dataclasses decides it (eq=True, unsafe_hash=False): a hash the class defines
    # is kept; otherwise frozen records hash their fields, others are unhashable
    class_hash = cls.__dict__.get("__hash__", MISSING)
    explicit = not (class_hash is MISSING or (class_hash is None and "__eq__" in cls.__dict__))
    if not explicit:
        hashed = tuple(f.name for f in fs if f.hash)
        methods["__hash__"] = (f"def __hash__(self):\n  return hash({_tuple_of(hashed, 'self')})\n"
                               if frozen else None)
    return methods


def _frozen_methods(cls: type, names: tuple[str, ...]) -> dict[str, Any]:
    """Assignment refused, pickling through the fields' values."""
    field_names = frozenset(names)

    def __setattr__(self: Any, name: str, value: object) -> None:  # noqa: N807
        if type(self) is cls or name in field_names:
            raise FrozenInstanceError(f"cannot assign to field {name!r}")
        object.__setattr__(self, name, value)  # a subclass's own attribute (records' base is object)

    def __delattr__(self: Any, name: str) -> None:  # noqa: N807
        if type(self) is cls or name in field_names:
            raise FrozenInstanceError(f"cannot delete field {name!r}")
        object.__delattr__(self, name)

    def __getstate__(self: Any) -> list[Any]:  # noqa: N807
        return [getattr(self, name) for name in names]

    def __setstate__(self: Any, state: list[Any]) -> None:  # noqa: N807
        for name, value in zip(names, state, strict=False):
            object.__setattr__(self, name, value)

    return {"__setattr__": __setattr__, "__delattr__": __delattr__,
            "__getstate__": __getstate__, "__setstate__": __setstate__}


def _make(cls: type, *, frozen: bool, order: bool) -> type:
    fs = _fields_of(cls)
    names = tuple(f.name for f in fs)
    own = cls.__dict__
    namespace = dict(own)
    for name in names:  # the defaults live in __init__; a slot and a class attribute clash
        namespace.pop(name, None)
    namespace.pop("__dict__", None)
    namespace.pop("__weakref__", None)
    namespace["__slots__"] = names
    namespace["__record_fields__"] = fs
    namespace["__record_frozen__"] = frozen
    if frozen:
        for name in ("__setattr__", "__delattr__"):
            if name in own:
                raise TypeError(f"cannot overwrite attribute {name} in class {cls.__name__}")
    namespace.setdefault("__match_args__", tuple(f.name for f in fs if f.init))
    made_cls = type(cls)(cls.__name__, cls.__bases__, namespace)
    made_cls.__qualname__ = cls.__qualname__
    if frozen:
        for name, method in _frozen_methods(made_cls, names).items():
            if name not in own:
                method.__qualname__ = f"{cls.__qualname__}.{name}"
                setattr(made_cls, name, method)
    # the hash is set whenever _methods decided one (over Python's implicit None when the body
    # defines __eq__), the other methods only when the body does not define them
    for name, method in _methods(cls, fs, frozen=frozen, order=order).items():
        if name == "__hash__" or name not in own:
            setattr(made_cls, name, _compiled_at_first_call(made_cls, name, method, {})
                    if isinstance(method, str) else method)
    if "__init__" not in own:
        source, env = _init_source(made_cls, fs, frozen=frozen)
        made_cls.__init__ = _compiled_at_first_call(made_cls, "__init__", source, env)  # type: ignore[misc]
    if "__repr__" not in own:
        inner = ", ".join(f"{f.name}={{self.{f.name}!r}}" for f in fs if f.repr)
        source = f'def __repr__(self):\n  return self.__class__.__qualname__ + f"({inner})"\n'
        made_cls.__repr__ = _compiled_at_first_call(  # type: ignore[method-assign]
            made_cls, "__repr__", source, {}, wrap=reprlib.recursive_repr())
    return made_cls


@overload
@dataclass_transform(field_specifiers=(field, Field))
def record(cls: _C, /) -> _C: ...


@overload
def record(*, frozen: bool = False, order: bool = False) -> Callable[[_C], _C]: ...


def record(cls: _C | None = None, /, *, frozen: bool = False,
           order: bool = False) -> _C | Callable[[_C], _C]:
    """``@dataclass(slots=True, frozen=…, order=…)``, made cheaply (see the module's docstring)."""
    if cls is None:
        return lambda c: _make(c, frozen=frozen, order=order)  # type: ignore[return-value]
    return _make(cls, frozen=frozen, order=order)


def is_record(obj: object) -> bool:
    """Whether ``obj`` is a record class or an instance of one."""
    cls = obj if isinstance(obj, type) else type(obj)
    return hasattr(cls, "__record_fields__")  # a subclass's too, as dataclasses.is_dataclass


def fields(obj: object) -> tuple[Any, ...]:
    """The fields of a record (class or instance), or ``dataclasses.fields`` of a dataclass."""
    cls = obj if isinstance(obj, type) else type(obj)
    found = getattr(cls, "__record_fields__", None)
    if found is None:
        return dataclasses.fields(obj)  # type: ignore[arg-type]
    return found  # type: ignore[no-any-return]


def replace(obj: _T, /, **changes: Any) -> _T:
    """``dataclasses.replace`` for records (and dataclasses): a new object of the same class,
    with ``changes`` and the other ``init`` fields of ``obj``; ``init=False`` fields are made
    anew by ``__init__``."""
    found = getattr(type(obj), "__record_fields__", None)
    if found is None:
        return dataclasses.replace(obj, **changes)  # type: ignore[type-var]
    for f in found:
        if not f.init:
            if f.name in changes:
                raise ValueError(f"field {f.name} is declared with init=False, it cannot be "
                                 "specified with replace()")
        elif f.name not in changes:
            changes[f.name] = getattr(obj, f.name)
    return obj.__class__(**changes)
