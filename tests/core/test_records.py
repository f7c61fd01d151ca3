"""``refbook.records``: a record behaves as ``dataclasses.dataclass(slots=True)`` makes the same
class, checked against ``dataclasses`` itself. Each shape below is declared once and made both
ways; their instances are compared on what a caller can see: ``__init__`` (positional, keyword,
defaults, factories, ``init=False`` fields, ``__post_init__``, the errors of a bad call),
``repr``, equality, the hash (the same values), ordering, immutability (the same exception and
message), ``__match_args__``, the slots, pickling and copying, ``fields`` and ``replace``. And
no value class of refbook is a dataclass any more (each costs ~1 ms per process to make,
where a record costs ~0.05 ms: docs/design/performance.md)."""

from __future__ import annotations

import copy
import dataclasses
import importlib
import inspect
import pickle
import pkgutil
from typing import Any, ClassVar  # noqa: F401 - dataclasses looks ClassVar up in this module

import pytest

import refbook
from refbook import records


def _both(body: dict[str, Any], annotations: dict[str, str], *, frozen: bool,
          order: bool = False) -> tuple[type, type]:
    """The class declared by ``body``/``annotations``, made by dataclasses and as a record
    (each module-level, same name, so that pickle finds them)."""
    made = []
    for kind in ("dc", "rec"):
        ns = {"__annotations__": dict(annotations), "__module__": __name__,
              "__qualname__": f"Shape_{kind}_{len(_MADE)}", **body}
        cls = type(ns["__qualname__"], (), ns)
        cls = (dataclasses.dataclass(slots=True, frozen=frozen, order=order)(cls) if kind == "dc"
               else records.record(frozen=frozen, order=order)(cls))
        globals()[cls.__qualname__] = cls
        made.append(cls)
    _MADE.append(made)
    return made[0], made[1]


_MADE: list[list[type]] = []


def _post_init(self: Any) -> None:
    object.__setattr__(self, "total", self.a + len(self.items))


def _custom_hash(self: Any) -> int:
    return 42


def _custom_eq(self: Any, other: object) -> bool:
    return isinstance(other, type(self)) and self.a == other.a  # type: ignore[attr-defined]


#: (body, annotations, frozen, order, calls): the calls are (args, kwargs) to make instances
SHAPES: list[tuple[dict[str, Any], dict[str, str], bool, bool,
                   list[tuple[tuple[Any, ...], dict[str, Any]]]]] = [
    # plain frozen, defaults, one ordered
    ({"b": "x", "c": ()}, {"a": "int", "b": "str", "c": "tuple[int, ...]"}, True, False,
     [((1,), {}), ((1, "y"), {}), ((), {"a": 2, "c": (3,)}), ((1, "x", ()), {})]),
    ({}, {"file": "str", "line": "int"}, True, True,
     [(("a.bib", 3), {}), (("a.bib", 10), {}), (("b.bib", 1), {}), (("a.bib", 3), {})]),
    # one field, and none
    ({}, {"text": "str"}, True, False, [(("a",), {}), (("b",), {}), ((), {"text": "a"})]),
    ({}, {}, True, False, [((), {})]),
    # factories, init=False with a default, compare/repr off, ClassVar, __post_init__
    ({"items": dataclasses.field(default_factory=list),
      "total": dataclasses.field(default=0, init=False, compare=False),
      "note": dataclasses.field(default="", repr=False, compare=False),
      "kind": "k",
      "__post_init__": _post_init},
     {"a": "int", "items": "list[int]", "total": "int", "note": "str", "kind": "ClassVar[str]"},
     True, False,
     [((1,), {}), ((1, [2, 3]), {}), ((1,), {"items": [2, 3], "note": "n"}), ((2,), {})]),
    # not frozen: unhashable, assignable
    ({"kids": dataclasses.field(default_factory=list)}, {"f": "str", "kids": "list[int]"}, False,
     False, [(("x",), {}), (("x", [1]), {}), (("y",), {"kids": [1]})]),
    # a hash of its own kept; an __eq__ of its own kept (and the hash decided as without one)
    ({"__hash__": _custom_hash}, {"a": "int", "b": "int"}, True, False,
     [((1, 2), {}), ((1, 3), {})]),
    ({"__eq__": _custom_eq}, {"a": "int", "b": "int"}, True, False, [((1, 2), {}), ((1, 3), {})]),
    # field(hash=False): left out of the hash, not of equality
    ({"b": dataclasses.field(default=0, hash=False)}, {"a": "int", "b": "int"}, True, False,
     [((1, 2), {}), ((1, 3), {}), ((2, 2), {})]),
]


def _outcome(run: Any) -> tuple[str, Any]:
    try:
        return "ok", run()
    except Exception as exc:
        return type(exc).__name__, str(exc).replace("Shape_dc_", "Shape_").replace("Shape_rec_",
                                                                                 "Shape_")


def _plain(value: Any) -> Any:
    """A value with the two classes' names made one (their reprs then compare)."""
    if isinstance(value, str):
        return value.replace("Shape_dc_", "Shape_").replace("Shape_rec_", "Shape_")
    if isinstance(value, (list, tuple)):
        return type(value)(_plain(v) for v in value)
    return value


@pytest.mark.parametrize("shape", range(len(SHAPES)))
def test_a_record_behaves_as_the_slotted_dataclass(shape: int) -> None:
    body, annotations, frozen, order, calls = SHAPES[shape]
    dc, rec = _both(body, annotations, frozen=frozen, order=order)
    assert rec.__slots__ == dc.__slots__
    assert rec.__match_args__ == dc.__match_args__
    assert [(f.name, f.init, f.repr, f.compare) for f in records.fields(rec)] == [
        (f.name, f.init, f.repr, f.compare) for f in dataclasses.fields(dc)]
    assert (rec.__hash__ is None) == (dc.__hash__ is None)
    if "kind" in annotations:
        assert rec.kind == dc.kind == "k"  # the ClassVar stays a class attribute
    made_dc = [dc(*args, **kw) for args, kw in calls]
    made_rec = [rec(*args, **kw) for args, kw in calls]
    for a_dc, a_rec in zip(made_dc, made_rec, strict=True):
        assert _plain(repr(a_rec)) == _plain(repr(a_dc))
        assert [getattr(a_rec, n) for n in rec.__slots__] == [
            getattr(a_dc, n) for n in dc.__slots__]
        if dc.__hash__ is not None:  # the same value, or the same error (a list field)
            assert _outcome(lambda a=a_rec: hash(a)) == _outcome(lambda a=a_dc: hash(a))
        for name in rec.__slots__:
            assert _outcome(lambda a=a_rec, n=name: setattr(a, n, 1)) == _outcome(
                lambda a=a_dc, n=name: setattr(a, n, 1))
        # a name that is no field fails both ways (the frozen dataclass of Python 3.11 with
        # a TypeError from its super() call on the class it replaced; the record says frozen)
        assert _outcome(lambda a=a_rec: setattr(a, "other", 1))[0] != "ok"
        assert _outcome(lambda a=a_dc: setattr(a, "other", 1))[0] != "ok"
        for name in rec.__slots__[:1] if frozen else ():
            assert _outcome(lambda a=a_rec, n=name: delattr(a, n)) == _outcome(
                lambda a=a_dc, n=name: delattr(a, n))
    # the assignments above changed the unfrozen ones alike; pickling and copying
    for a_dc, a_rec in zip(made_dc, made_rec, strict=True):
        for clone in (pickle.loads(pickle.dumps(a_rec)), copy.copy(a_rec), copy.deepcopy(a_rec)):
            assert type(clone) is rec
            assert [getattr(clone, n) for n in rec.__slots__] == [
                getattr(a_dc, n) for n in dc.__slots__]
        if frozen:
            assert a_rec.__getstate__() == a_dc.__getstate__()
    # equality and ordering between every pair, and against other types
    for i, (x_dc, x_rec) in enumerate(zip(made_dc, made_rec, strict=True)):
        assert (x_rec == 1) is (x_dc == 1) is False
        assert x_rec != x_dc  # records and dataclasses are different classes
        for y_dc, y_rec in zip(made_dc[i:], made_rec[i:], strict=True):
            assert (x_rec == y_rec) == (x_dc == y_dc)
            assert (x_rec != y_rec) == (x_dc != y_dc)
            if order:
                for op in ("__lt__", "__le__", "__gt__", "__ge__"):
                    assert getattr(x_rec, op)(y_rec) == getattr(x_dc, op)(y_dc)
                    assert getattr(x_rec, op)(1) is getattr(x_dc, op)(1) is NotImplemented
    # bad calls fail alike
    for args, kw in (((), {}), ((1, 2, 3, 4, 5, 6), {}), ((), {"nope": 1})):
        assert _outcome(lambda a=args, k=kw: rec(*a, **k))[0] == _outcome(
            lambda a=args, k=kw: dc(*a, **k))[0]
    # replace, where init fields exist
    if records.fields(rec) and records.fields(rec)[0].init:
        first = records.fields(rec)[0].name
        value = getattr(made_rec[0], first)
        assert _plain(repr(records.replace(made_rec[0], **{first: value}))) == _plain(
            repr(dataclasses.replace(made_dc[0], **{first: value})))
        assert records.replace(made_rec[0]) == made_rec[0]
    for f in records.fields(rec):
        if not f.init:
            assert _outcome(lambda n=f.name: records.replace(made_rec[0], **{n: 1}))[0] == (
                _outcome(lambda n=f.name: dataclasses.replace(made_dc[0], **{n: 1}))[0])


def test_the_first_instance_compiles_init_once_for_the_class() -> None:
    @records.record(frozen=True)
    class Point:
        x: int
        y: int = 0

    lazy = Point.__init__
    assert Point(1) == Point(1, 0)
    assert Point.__init__ is not lazy  # the compiled one took its place
    compiled = Point.__init__
    assert Point(2, 3).y == 3
    assert Point.__init__ is compiled
    assert list(inspect.signature(Point).parameters) == ["x", "y"]


def test_fields_and_replace_take_dataclasses_too() -> None:
    @dataclasses.dataclass(frozen=True)
    class Plain:
        a: int

    assert [f.name for f in records.fields(Plain)] == ["a"]
    assert records.replace(Plain(1), a=2) == Plain(2)
    assert not records.is_record(Plain)


def _package_classes() -> list[type]:
    found = []
    for package in (refbook, importlib.import_module("mkdocs_refbook"),
                    importlib.import_module("sphinx_refbook")):
        for info in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
            try:
                module = importlib.import_module(info.name)
            except ImportError:  # an optional dependency missing here (a host's extra)
                continue
            found += [c for c in vars(module).values()
                      if isinstance(c, type) and c.__module__ == module.__name__]
    return found


def test_no_value_class_of_refbook_is_a_dataclass() -> None:
    classes = _package_classes()
    made = [c for c in classes if records.is_record(c)]
    assert len(made) > 60
    assert [c for c in classes if dataclasses.is_dataclass(c)] == []


def test_a_record_compiles_each_method_at_its_first_call_and_a_dataclass_all_at_once(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """What most of a dataclass's cost is, counted (tests assert no times): each method it
    makes is compiled from source (``exec``) when the class is made, most classes of a build
    never having an instance."""
    compiled: list[str] = []
    real_exec = exec

    def counting_exec(source: Any, *args: Any, **kwargs: Any) -> Any:
        compiled.append(str(source).split("(")[0])
        return real_exec(source, *args, **kwargs)

    monkeypatch.setattr(dataclasses, "exec", counting_exec, raising=False)
    monkeypatch.setattr(records, "exec", counting_exec, raising=False)
    dc, rec = _both({"b": 0}, {"a": "int", "b": "int"}, frozen=True)
    assert len(compiled) >= 6  # the dataclass: __init__, __repr__, __eq__, __hash__, ...
    compiled.clear()
    rec(1)
    rec(2, 3)
    assert compiled == ["def __init__"]  # the record: its __init__, once
    assert repr(rec(1)) == repr(rec(1))
    assert compiled == ["def __init__", "def __repr__"]  # and its __repr__ at its first call
    assert rec(1) == rec(1)
    assert hash(rec(1)) == hash(rec(1))
    assert compiled == ["def __init__", "def __repr__", "def __eq__", "def __hash__"]
    assert dc(1) != rec(1)


def test_a_plain_subclass_of_a_record_is_one_as_a_dataclass_subclass_is() -> None:
    # as refbook.validate.output's recording item: no decorator of its own
    dc, rec = _both({"b": 0}, {"a": "int", "b": "int"}, frozen=True)
    sub_dc = type("SubDc", (dc,), {"__module__": __name__})
    sub_rec = type("SubRec", (rec,), {"__module__": __name__})
    assert records.is_record(sub_rec)
    assert records.is_record(sub_rec(1))
    assert [f.name for f in records.fields(sub_rec(1))] == [
        f.name for f in dataclasses.fields(sub_dc(1))]
    made = records.replace(sub_rec(1), b=5)
    assert type(made) is sub_rec
    assert (made.a, made.b) == (1, 5)
    assert (sub_rec(1) == rec(1)) == (sub_dc(1) == dc(1))  # different classes: not equal
    assert _outcome(lambda: setattr(sub_rec(1), "a", 2))[0] == _outcome(
        lambda: setattr(sub_dc(1), "a", 2))[0]


def test_a_mutable_default_is_refused_as_dataclasses_refuses_it() -> None:
    for make in (dataclasses.dataclass(slots=True), records.record()):
        with pytest.raises(ValueError, match="mutable default"):
            make(type("Bad", (), {"__annotations__": {"a": "list[int]"}, "a": [],
                                  "__module__": __name__}))
