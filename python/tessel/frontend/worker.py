"""The compiler process's side of the frontend process.

One persistent child (``python -m tessel.frontend._worker``) is started on the
first import and reused: importing torch and torch-mlir costs seconds, an
import of a warm child only the export and lowering itself. It is shut down at
exit, or with ``shutdown()``. If it dies, the next request starts a new one.
"""

from __future__ import annotations

import atexit
import os
import pickle
import subprocess
import sys
import tempfile
import threading

from . import _protocol
from . import errors

_ERRORS = {name: getattr(errors, name) for name in (
    "ModelFileError", "ModelTransferError", "TraceError", "UnsupportedOpError",
    "LoweringError", "WorkerError")}


def _sys_path() -> list[str]:
    return [p if p else os.getcwd() for p in sys.path if isinstance(p, str)]


class Worker:
    def __init__(self):
        self._proc: subprocess.Popen | None = None
        self._log = None
        self._lock = threading.Lock()

    @property
    def pid(self) -> int | None:
        return self._proc.pid if self._alive() else None

    def _alive(self) -> bool:
        return self._proc is not None and self._proc.poll() is None

    def _start(self) -> None:
        env = dict(os.environ)
        # The child must import what the parent can (the tessel package, the
        # modules defining user models), so it gets the parent's sys.path.
        env["PYTHONPATH"] = os.pathsep.join(_sys_path())
        # Library chatter goes to a log file; its tail explains a crash.
        self._log = tempfile.TemporaryFile(prefix="tessel-frontend-", suffix=".log")
        try:
            self._proc = subprocess.Popen(
                [sys.executable, "-m", "tessel.frontend._worker"],
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._log,
                env=env, cwd=os.getcwd())
        except OSError as e:
            raise errors.WorkerError(
                f"cannot start the frontend process ({sys.executable} -m "
                f"tessel.frontend._worker): {e}; check that the Python environment "
                f"with torch and torch-mlir is intact (`make setup`)") from e

    def _log_tail(self, n: int = 40) -> str:
        if self._log is None:
            return ""
        self._log.seek(0)
        lines = self._log.read().decode(errors="replace").splitlines()
        return "\n".join(lines[-n:])

    def request(self, req: dict, what: str) -> dict:
        """Send one request and return the answer, raising the FrontendError
        the child reported."""
        with self._lock:
            if not self._alive():
                self._start()
            # Modules defining user models may have been made importable
            # after the child started.
            req = {**req, "sys_path": _sys_path()}
            try:
                _protocol.send(self._proc.stdin, req)
            except BrokenPipeError:
                # It died while idle and never saw the request: start anew.
                self._proc.wait()
                self._start()
                _protocol.send(self._proc.stdin, req)
            proc = self._proc
            try:
                blob = _protocol.recv_bytes(proc.stdout)
            except (BrokenPipeError, EOFError, OSError):
                blob = None
            if blob is None:
                proc.wait()
                tail = self._log_tail()
                self._proc = None
                raise errors.WorkerError(
                    f"{what}: the frontend process exited (status {proc.returncode}) "
                    f"before answering; its last output is attached below. If it ran "
                    f"out of memory, import a smaller model or free memory",
                    child_traceback=tail or None)
            answer = pickle.loads(blob)
        if answer.get("ok"):
            return answer
        cls = _ERRORS.get(answer.get("error"), errors.LoweringError)
        kwargs = {"child_traceback": answer.get("traceback")}
        if cls is errors.UnsupportedOpError:
            kwargs.update(op=answer.get("op"), location=answer.get("location"))
        raise cls(answer["message"], **kwargs)

    def shutdown(self, timeout: float = 10.0) -> None:
        with self._lock:
            proc, self._proc = self._proc, None
            if proc is not None and proc.poll() is None:
                try:
                    _protocol.send(proc.stdin, {"op": "exit"})
                    proc.stdin.close()
                    proc.wait(timeout=timeout)
                except (OSError, subprocess.TimeoutExpired):
                    proc.kill()
                    proc.wait()
            if self._log is not None:
                self._log.close()
                self._log = None


_worker = Worker()
atexit.register(_worker.shutdown)


def request(req: dict, what: str) -> dict:
    return _worker.request(req, what)


def warm_up() -> None:
    """Start the frontend process and import torch and torch-mlir in it, so
    the next import pays only for itself."""
    _worker.request({"op": "warm"}, "warming up the frontend process")


def shutdown() -> None:
    """Stop the frontend process (a later import starts a new one)."""
    _worker.shutdown()


def pid() -> int | None:
    """Process id of the running frontend process, or None."""
    return _worker.pid
