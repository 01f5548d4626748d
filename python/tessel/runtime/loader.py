"""Reading a program directory (docs/isa.md): the manifest's fields checked
one by one, every file against the manifest's SHA-256, then the program
validated. Needs no YAML: the arch is the manifest's JSON object."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any, Mapping

from .. import arch as arch_model
from . import isa
from .program import (MANIFEST, Buffer, Program, ProgramError, Tag, TileProgram,
                      is_int, manifest_digest, stream_instruction_count, stream_path)


_KIND_NAMES = {int: "an integer", str: "a string", list: "a list",
               dict: "an object"}


def _object(value: Any, where: str, *, file: str = MANIFEST) -> Mapping:
    """``value`` if it is a JSON object; else a ProgramError naming ``where``."""
    if not isinstance(value, Mapping):
        raise ProgramError(f"must be an object, got {value!r}", file=file,
                           field=where)
    return value


def _field(obj: Mapping, key: str, kind, where: str, *, file: str = MANIFEST,
           default: Any = ...):
    """``obj[key]`` checked to be of ``kind`` (``int`` excludes booleans);
    ``where`` is the field path of ``obj`` with a trailing dot. A missing key
    is an error unless a ``default`` is given."""
    if not isinstance(obj, Mapping):
        raise ProgramError(f"must be an object, got {obj!r}", file=file,
                           field=where.rstrip(".") or None)
    if key not in obj:
        if default is not ...:
            return default
        raise ProgramError("is missing", file=file, field=f"{where}{key}")
    value = obj[key]
    ok = is_int(value) if kind is int else isinstance(value, kind)
    if not ok:
        name = _KIND_NAMES.get(kind, getattr(kind, "__name__", str(kind)))
        raise ProgramError(f"must be {name}, got {value!r}", file=file,
                           field=f"{where}{key}")
    return value


def _list_of(obj: Mapping, key: str, kind, where: str, what: str) -> list:
    """``obj[key]`` checked to be a list whose items are all of ``kind``."""
    items = _field(obj, key, list, where)
    for i, item in enumerate(items):
        ok = is_int(item) if kind is int else isinstance(item, kind)
        if not ok:
            raise ProgramError(f"must be a list of {what}, item {i} is {item!r}",
                               file=MANIFEST, field=f"{where}{key}")
    return items


class _Digests:
    """The manifest's digests (absent in programs written before they
    were), checked against each file as it is read; none are when not
    ``enabled``."""

    def __init__(self, m: Mapping[str, Any], enabled: bool = True):
        self.files: Mapping[str, Any] = {}
        if not enabled or ("manifest_sha256" not in m and "sha256" not in m):
            return
        if manifest_digest(m) != _field(m, "manifest_sha256", str, ""):
            raise ProgramError("its content does not match its manifest_sha256: the "
                               "manifest is corrupted or was edited; compile the "
                               "program again", file=MANIFEST, field="manifest_sha256")
        self.files = _field(m, "sha256", dict, "")

    def check(self, rel: str, data: bytes, field_name: str) -> None:
        if not self.files:
            return
        want = self.files.get(rel)
        if not isinstance(want, str):
            raise ProgramError(f"has no SHA-256 of {rel!r}", file=MANIFEST,
                               field="sha256")
        if hashlib.sha256(data).hexdigest() != want:
            raise ProgramError(f"its SHA-256 does not match the manifest's "
                               f"(sha256[{rel!r}]): the file is corrupted or "
                               "truncated; compile the program again",
                               file=rel, field=field_name)


def _check_relative(rel: str, field_name: str) -> None:
    p = Path(rel)
    if not rel or p.is_absolute() or ".." in p.parts:
        raise ProgramError(f"path {rel!r} must be relative and inside the program "
                           "directory", file=MANIFEST, field=field_name)


class _Directory:
    """The files of a program directory."""

    def __init__(self, root: Path):
        self.root = root

    def exists(self, rel: str) -> bool:
        return (self.root / rel).is_file()

    def read(self, rel: str, field_name: str | None) -> bytes:
        try:
            return (self.root / rel).read_bytes()
        except OSError as e:
            raise ProgramError(f"cannot read {rel!r}: {e.strerror or e}", file=MANIFEST,
                               field=field_name) from None


class _InMemory:
    """The files of a program held in memory, by path."""

    def __init__(self, files: Mapping[str, bytes]):
        self.files = files

    def exists(self, rel: str) -> bool:
        return rel in self.files

    def read(self, rel: str, field_name: str | None) -> bytes:
        return self.files[rel]


def load_program(directory: str | os.PathLike, *, check_digests: bool = True) -> Program:
    """Read and validate a program directory; raises :class:`ProgramError`
    (never another exception for a bad program). Needs no YAML: the arch is
    the manifest's JSON object (``Arch.from_dict``).

    ``check_digests=False`` skips checking the files against the manifest's
    SHA-256s (everything else is checked)."""
    root = Path(directory)
    if not (root / MANIFEST).is_file():
        raise ProgramError(f"no {MANIFEST} in {root}", file=MANIFEST)
    return _load(_Directory(root), check_digests)


def program_from_files(files: Mapping[str, bytes]) -> Program:
    """The program whose files ``files`` holds by their paths in a program
    directory (``tessel.dialects.tessel.build_program``'s), validated as
    :func:`load_program` validates a directory; the manifest's digests, if
    it has them, are not checked: nothing stored the files."""
    if MANIFEST not in files:
        raise ProgramError(f"no {MANIFEST} among the program's files", file=MANIFEST)
    return _load(_InMemory(files), check_digests=False)


def _load(files, check_digests: bool) -> Program:
    try:
        m = json.loads(files.read(MANIFEST, None).decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as e:
        raise ProgramError(f"not valid JSON: {e}", file=MANIFEST) from None
    if not isinstance(m, dict):
        raise ProgramError("must be a JSON object", file=MANIFEST)
    digests = _Digests(m, enabled=check_digests)
    fmt = _field(m, "format", str, "")
    if fmt != isa.FORMAT:
        raise ProgramError(f"format is {fmt!r}, expected {isa.FORMAT!r}",
                           file=MANIFEST, field="format")
    version = _field(m, "version", int, "")
    if version not in isa.SUPPORTED_VERSIONS:
        raise ProgramError(f"program format version {version} is not supported "
                           f"(supported: {', '.join(map(str, isa.SUPPORTED_VERSIONS))})",
                           file=MANIFEST, field="version")
    arch_desc = _field(m, "arch", dict, "")
    try:
        arch = arch_model.Arch.from_dict(arch_desc)
    except arch_model.ArchError as e:
        raise ProgramError(str(e), file=MANIFEST,
                           field=f"arch.{e.field}" if e.field else "arch") from None
    except Exception as e:  # a malformed description the schema let through
        raise ProgramError(f"malformed architecture description: "
                           f"{type(e).__name__}: {e}", file=MANIFEST,
                           field="arch") from None
    d = _field(m, "dram", dict, "")
    dram_bytes = _field(d, "bytes", int, "dram.")
    image_rel = _field(d, "image", str, "dram.")
    _check_relative(image_rel, "dram.image")
    if not files.exists(image_rel):
        raise ProgramError(f"the DRAM image {image_rel!r} does not exist",
                           file=MANIFEST, field="dram.image")
    buffers = []
    for i, b in enumerate(_field(d, "buffers", list, "dram.")):
        w = f"dram.buffers[{i}]."
        _object(b, w[:-1])
        buffers.append(Buffer(_field(b, "name", str, w), _field(b, "kind", str, w),
                              _field(b, "offset", int, w),
                              tuple(_list_of(b, "shape", int, w, "integers")),
                              _field(b, "dtype", str, w)))
    inputs = _list_of(m, "inputs", str, "", "buffer names")
    outputs = _list_of(m, "outputs", str, "", "buffer names")
    tiles = []
    stream_files: dict[tuple[int, int], str] = {}
    for i, t in enumerate(_field(m, "tiles", list, "")):
        w = f"tiles[{i}]."
        _object(t, w[:-1])
        row, col = _field(t, "row", int, w), _field(t, "col", int, w)
        rel = _field(t, "stream", str, w)
        count = _field(t, "instructions", int, w)
        sems = _list_of(t, "semaphores", int, w, "integers")
        tokens = _field(t, "tokens", int, w)
        _check_relative(rel, f"{w}stream")
        if not files.exists(rel):
            raise ProgramError(f"the stream {rel!r} does not exist", file=MANIFEST,
                               field=f"{w}stream")
        stream = files.read(rel, f"{w}stream")
        digests.check(rel, stream, f"{w}stream")
        if len(stream) >= isa.HEADER_BYTES and stream[:4] == isa.MAGIC:
            have = stream_instruction_count(stream)
            if have != count:
                raise ProgramError(f"says {count} instructions, the stream {rel!r} "
                                   f"header says {have}", file=MANIFEST,
                                   field=f"{w}instructions")
        tiles.append(TileProgram(row, col, stream, tuple(sems), tokens))
        stream_files[(row, col)] = rel
    tags = []
    for i, t in enumerate(_field(m, "tags", list, "", default=[])):
        w = f"tags[{i}]."
        _object(t, w[:-1])
        tags.append(Tag(_field(t, "id", int, w), _field(t, "name", str, w),
                        _field(t, "op", str, w, default=""),
                        _field(t, "loc", str, w, default="")))
    image = files.read(image_rel, "dram.image")
    digests.check(image_rel, image, "dram.image")
    program = Program(arch, dram_bytes, buffers, list(inputs), list(outputs),
                      tiles, tags, image)
    try:
        program.validate()
    except ProgramError as e:
        # Name the stream file as the manifest does.
        if e.file and e.file.startswith("tiles/"):
            for rc, rel in stream_files.items():
                if e.file == stream_path(*rc) and rel != e.file:
                    raise ProgramError(e.problem, file=rel, field=e.field,
                                       offset=e.offset) from None
        raise
    return program


