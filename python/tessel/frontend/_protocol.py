"""Length-prefixed pickle messages between the compiler process and the
frontend process (both ends run the same Tessel, so pickle is safe here).

Reads go straight to the file descriptor (``os.read``), never through a
Python buffer, so ``select`` on the descriptor tells the truth and a reader
can give up after a deadline."""

import os
import pickle
import select
import struct
import time

_HEADER = struct.Struct("<Q")


class Timeout(Exception):
    """No complete message arrived before the deadline."""


def send(stream, obj) -> None:
    data = pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
    stream.write(_HEADER.pack(len(data)))
    stream.write(data)
    stream.flush()


def recv_bytes(stream, timeout: float | None = None) -> bytes | None:
    """One message's payload, or None at end of stream. With ``timeout``
    (seconds), raises Timeout if the whole message has not arrived by then."""
    deadline = None if timeout is None else time.monotonic() + timeout
    fd = stream.fileno()
    head = _read_exactly(fd, _HEADER.size, deadline)
    if head is None:
        return None
    (n,) = _HEADER.unpack(head)
    data = _read_exactly(fd, n, deadline)
    if data is None:
        raise EOFError("stream ended inside a message")
    return data


def _read_exactly(fd: int, n: int, deadline: float | None) -> bytes | None:
    chunks, got = [], 0
    while got < n:
        if deadline is not None:
            left = deadline - time.monotonic()
            ready = left > 0 and select.select([fd], [], [], left)[0]
            if not ready:
                raise Timeout(f"{got} of {n} bytes arrived before the deadline")
        chunk = os.read(fd, min(n - got, 1 << 20))
        if not chunk:
            if got:
                raise EOFError("stream ended inside a message")
            return None
        chunks.append(chunk)
        got += len(chunk)
    return b"".join(chunks)
