"""Length-prefixed pickle messages between the compiler process and the
frontend process (both ends run the same Tessel, so pickle is safe here)."""

import pickle
import struct

_HEADER = struct.Struct("<Q")


def send(stream, obj) -> None:
    data = pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
    stream.write(_HEADER.pack(len(data)))
    stream.write(data)
    stream.flush()


def recv_bytes(stream) -> bytes | None:
    """One message's payload, or None at end of stream."""
    head = _read_exactly(stream, _HEADER.size)
    if head is None:
        return None
    (n,) = _HEADER.unpack(head)
    data = _read_exactly(stream, n)
    if data is None:
        raise EOFError("stream ended inside a message")
    return data


def _read_exactly(stream, n: int) -> bytes | None:
    chunks, got = [], 0
    while got < n:
        chunk = stream.read(n - got)
        if not chunk:
            return None
        chunks.append(chunk)
        got += len(chunk)
    return b"".join(chunks)
