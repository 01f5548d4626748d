"""Executing compiled programs: the program format, the simulator and the GPU
emulation target. Nothing here imports MLIR, so this package runs wherever a
program is, with Python and NumPy alone: loading a program
(``load_program``), simulating and disassembling it need nothing else (the
manifest holds the arch as JSON, read by ``Arch.from_dict``). Only naming an
architecture by preset or YAML path, as in ``ProgramBuilder("tessel-4x4")``,
needs PyYAML; ``ProgramBuilder`` given an ``Arch`` or its dict does not.

- ``program``: :class:`~.program.Program` and its manifest (docs/isa.md);
  ``validation``, its checks; ``loader``: ``load_program``; ``builder``:
  ``ProgramBuilder``;
- ``disasm``: the text of a program;
- ``numerics``: the ISA's arithmetic, bit-exact;
- ``simulator``: ``simulate`` (docs/simulator.md).
- ``emulator``: ``emulate`` / ``Program.emulate``, the same outputs bit for
  bit, fast, on a GPU (CuPy) or the CPU (docs/gpu-emulation.md).

``np_to_memref`` (from upstream MLIR) converts NumPy arrays to and from the
memref descriptors the MLIR CPU JIT passes to compiled functions.
"""
