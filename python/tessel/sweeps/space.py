"""The design space of a sweep: ``--set FIELD=v1,v2,...`` axes over the
base arch's fields, and the cross product of their values as design points.

Every value is checked against its field before anything runs: an unknown
field, a value of the wrong kind or out of the field's range stops the
sweep with the field and what it allows. A combination of valid values that
the arch rejects as a whole (two fields that contradict each other) is a
point that fails with its error (``point_arch`` raises ArchError), not a
stopped sweep."""

from __future__ import annotations

import copy
import difflib
import itertools
from dataclasses import dataclass
from typing import Any, Iterable, Mapping

from ..arch import Arch, ArchError, schema
from ..errors import InvalidArgumentError


class SweepSpecError(InvalidArgumentError):
    """A ``--set`` that names no sweepable field or gives a value its field
    does not allow."""


@dataclass(frozen=True)
class Axis:
    """One swept field: its dotted path and the values to try, in order."""

    path: str
    values: tuple[Any, ...]


def sweepable_paths() -> list[str]:
    """Every dotted path a sweep can set: the int, enum and string fields,
    and each key of an int map (``tile.mac.macs_per_cycle.f32``)."""
    paths = []
    for f in schema.FIELDS:
        if f.kind in ("int", "enum"):
            paths.append(f.path)
        elif f.kind == "int_map":
            paths += [f"{f.path}.{key}" for key in f.choices]
    return paths


def _field_of(path: str) -> tuple[schema.Field, str | None]:
    """The schema field a sweepable path sets, and the map key if any."""
    if path in schema.BY_PATH:
        field = schema.BY_PATH[path]
        if field.kind in ("int", "enum"):
            return field, None
        if field.kind == "int_map":
            raise SweepSpecError(
                f"--set {path}: an int map is swept one key at a time: "
                f"{', '.join(f'{path}.{k}' for k in field.choices)}")
        raise SweepSpecError(
            f"--set {path}: a {field.kind} field cannot be swept (sweepable: int and "
            f"enum fields and the keys of int maps; dram.attach follows grid.rows and "
            f"grid.cols)")
    head, _, key = path.rpartition(".")
    field = schema.BY_PATH.get(head)
    if field is not None and field.kind == "int_map" and key in field.choices:
        return field, key
    close = difflib.get_close_matches(path, sweepable_paths(), n=3, cutoff=0.6)
    hint = f"; did you mean {' or '.join(close)}?" if close else \
        "; `tessel archs NAME` prints a description's fields"
    raise SweepSpecError(f"--set {path}: no such arch field{hint}")


def _value(field: schema.Field, path: str, text: Any) -> Any:
    """One value of an axis, parsed from the command line (or as given from
    Python) and checked against its field alone."""
    if field.kind == "enum":
        value = str(text)
        if value not in field.choices:
            raise SweepSpecError(f"--set {path}={value}: not allowed; {path} is one of "
                                 f"{', '.join(field.choices)}")
        return value
    if isinstance(text, bool):
        raise SweepSpecError(f"--set {path}={text}: {path} takes integers")
    if isinstance(text, int):
        value = text
    else:
        try:
            value = int(str(text).replace("_", ""), 0)
        except ValueError:
            raise SweepSpecError(f"--set {path}={text}: not an integer; {path} takes "
                                 f"integers in {schema.range_text(field)}") from None
    if not (field.min <= value <= field.max) or \
            (field.power_of_two and value & (value - 1)):
        unit = f", in {field.unit}" if field.unit else ""
        raise SweepSpecError(f"--set {path}={value}: out of range; {path} must be in "
                             f"{schema.range_text(field)}{unit}")
    return value


def parse_axes(sets: Mapping[str, Iterable[Any]] | Iterable[str]) -> list[Axis]:
    """Axes from ``FIELD=v1,v2`` strings (the command line) or a mapping of
    field to values (Python), every value checked."""
    if isinstance(sets, Mapping):
        items = [(path, list(values) if isinstance(values, (list, tuple, range))
                  else [values]) for path, values in sets.items()]
    else:
        items = []
        for text in sets:
            path, sep, values = str(text).partition("=")
            if not sep or not path.strip() or not values.strip():
                raise SweepSpecError(f"--set {text}: write FIELD=VALUE[,VALUE...], "
                                     f"e.g. noc.link_bytes_per_cycle=16,32")
            items.append((path.strip(), [v.strip() for v in values.split(",")]))
    axes: list[Axis] = []
    seen: set[str] = set()
    for path, values in items:
        if path in seen:
            raise SweepSpecError(f"--set {path} is given twice; give all its values "
                                 f"in one --set, comma-separated")
        seen.add(path)
        field, _ = _field_of(path)
        if not values or any(v == "" for v in values):
            raise SweepSpecError(f"--set {path}: an empty value")
        parsed = tuple(_value(field, path, v) for v in values)
        if len(set(parsed)) != len(parsed):
            raise SweepSpecError(f"--set {path}: a value is given twice")
        axes.append(Axis(path, parsed))
    if not axes:
        raise SweepSpecError("a sweep needs at least one --set FIELD=v1,v2,...")
    return axes


def points(axes: list[Axis]) -> list[tuple[Any, ...]]:
    """The cross product of the axes' values, the last axis fastest."""
    return list(itertools.product(*(a.values for a in axes)))


def _follow_grid(attach, old: tuple[int, int], new: tuple[int, int]) -> list[list[int]]:
    """DRAM channels on a resized grid: each keeps its edge and its relative
    place along it (a corner stays a corner)."""
    def scale(x: int, n_old: int, n_new: int) -> int:
        if x == n_old - 1:
            return n_new - 1
        if n_old == 1:
            return 0
        return round(x * (n_new - 1) / (n_old - 1))
    return [[scale(r, old[0], new[0]), scale(c, old[1], new[1])] for r, c in attach]


def point_arch(base: Arch, axes: list[Axis], values: tuple[Any, ...]) -> Arch:
    """The base arch with the point's values set; raises ArchError when the
    combination is not a valid description. Its name says the point."""
    desc = copy.deepcopy(base.to_dict())
    for axis, value in zip(axes, values):
        field, key = _field_of(axis.path)
        parts = field.path.split(".")
        node = desc
        for part in parts[:-1]:
            node = node.setdefault(part, {})
        if key is None:
            node[parts[-1]] = value
        else:
            node.setdefault(parts[-1], {})[key] = value
    new_grid = (desc["grid"]["rows"], desc["grid"]["cols"])
    old_grid = (base.grid.rows, base.grid.cols)
    if new_grid != old_grid:
        desc["dram"]["attach"] = _follow_grid(desc["dram"]["attach"], old_grid, new_grid)
    desc["name"] = point_name(base.name, axes, values)
    return Arch.from_dict(desc)


def point_name(base: str, axes: list[Axis], values: tuple[Any, ...]) -> str:
    """``base+field=value+...``: an arch name (letters, digits, '.', '_', '-'
    and '=' replaced) that says the point."""
    parts = [base] + [f"{a.path.rsplit('.', 1)[-1]}-{v}" for a, v in zip(axes, values)]
    return "_".join(parts)
