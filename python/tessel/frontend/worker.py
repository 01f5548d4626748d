"""The compiler process's side of the frontend process.

One persistent child (``python -m tessel.frontend._worker``) is started on the
first import and reused: importing torch and torch-mlir costs seconds, an
import of a warm child only the export and lowering itself. It is shut down at
exit, or with ``shutdown()``. If it dies, the next request starts a new one.

Every request carries an id that the answer echoes, so an answer can never be
taken for another request's. A request that does not complete — the child
died, did not answer in time, or the caller was interrupted (KeyboardInterrupt,
a signal handler raising) between sending and reading — kills the child and
discards it: its pipes may hold a stale or half-read answer, and the next
request starts a fresh one.
"""

from __future__ import annotations

import atexit
import itertools
import os
import pickle
import subprocess
import sys
import tempfile
import threading
import time

from ..errors import MissingExtraError
from . import _protocol
from . import errors

_ERRORS = {name: getattr(errors, name) for name in (
    "ModelFileError", "ModelTransferError", "TraceError", "UnsupportedOpError",
    "LoweringError", "WorkerError")}

TIMEOUT_ENV = "TESSEL_FRONTEND_TIMEOUT"
DEFAULT_TIMEOUT = 900.0
_LOG_TAIL_BYTES = 64 * 1024


def _sys_path() -> list[str]:
    return [p if p else os.getcwd() for p in sys.path if isinstance(p, str)]


def request_timeout() -> float | None:
    """Seconds a request may take: ``$TESSEL_FRONTEND_TIMEOUT`` (0 = no
    limit), else DEFAULT_TIMEOUT."""
    text = os.environ.get(TIMEOUT_ENV, "").strip()
    if not text:
        return DEFAULT_TIMEOUT
    try:
        value = float(text)
    except ValueError:
        raise errors.WorkerError(
            f"{TIMEOUT_ENV}={text!r} is not a number of seconds; set it to e.g. 900, "
            f"or 0 for no limit") from None
    if value != value or value < 0:
        raise errors.WorkerError(
            f"{TIMEOUT_ENV}={text!r} must be a non-negative number of seconds (0 = no limit)")
    return value or None


class _OutOfStep(Exception):
    """A message for another request arrived."""


def _left(deadline: float | None) -> float | None:
    return None if deadline is None else max(0.0, deadline - time.monotonic())


def _timeout_error(what: str, timeout: float, tail: str) -> errors.WorkerError:
    return errors.WorkerError(
        f"{what}: the frontend process gave no answer within {timeout:g} s and was "
        f"stopped; raise the limit with {TIMEOUT_ENV}=<seconds> (0 = none) or import "
        f"a smaller model", child_traceback=tail or None)


def _out_of_step_error(what: str, got, rid: int) -> errors.WorkerError:
    return errors.WorkerError(
        f"{what}: the frontend process answered request {got!r} while request {rid} "
        f"was waiting; the exchange is out of step, so the process was stopped. "
        f"Import again")


class Worker:
    def __init__(self):
        self._proc: subprocess.Popen | None = None
        self._log = None
        self._lock = threading.Lock()
        self._ids = itertools.count(1)

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
        # Library chatter goes to a log file; its tail explains a crash. It
        # is truncated before every request, so it holds one request's output.
        log = tempfile.TemporaryFile(prefix="tessel-frontend-", suffix=".log")
        try:
            proc = subprocess.Popen(
                [sys.executable, "-m", "tessel.frontend._worker"],
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log,
                env=env, cwd=os.getcwd())
        except OSError as e:
            log.close()
            raise errors.WorkerError(
                f"cannot start the frontend process ({sys.executable} -m "
                f"tessel.frontend._worker): {e}; check that the Python environment "
                f"with torch and torch-mlir is intact (`make setup`)") from e
        self._proc, self._log = proc, log

    def _discard(self) -> subprocess.Popen | None:
        """Forget the child: kill it if it still runs, reap it, and close its
        pipes and log. Returns it so its exit status can be reported."""
        proc, self._proc = self._proc, None
        log, self._log = self._log, None
        if proc is not None:
            if proc.poll() is None:
                try:
                    proc.kill()
                except OSError:
                    pass
            try:
                proc.wait()
            finally:
                for pipe in (proc.stdin, proc.stdout):
                    if pipe is not None:
                        try:
                            pipe.close()
                        except OSError:  # a broken pipe's unflushed bytes
                            pass
        if log is not None:
            log.close()
        return proc

    def _log_tail(self, n: int = 40) -> str:
        if self._log is None:
            return ""
        try:
            size = self._log.seek(0, os.SEEK_END)
            self._log.seek(max(0, size - _LOG_TAIL_BYTES))
            data = self._log.read()
        except (OSError, ValueError):
            return ""
        lines = data.decode(errors="replace").splitlines()
        return "\n".join(lines[-n:])

    def _truncate_log(self) -> None:
        # The child's stderr shares this file's offset: after seek(0) and
        # truncate it writes from the start again.
        self._log.seek(0)
        self._log.truncate()

    def request(self, req: dict, what: str, timeout: float | None = -1) -> dict:
        """Send one request and return the answer, raising the FrontendError
        the child reported (or MissingExtraError, when the child lacks an
        optional package). ``timeout`` is in seconds (None: no limit; the
        default reads ``$TESSEL_FRONTEND_TIMEOUT``, else DEFAULT_TIMEOUT)."""
        if timeout == -1:
            timeout = request_timeout()
        with self._lock:
            answer = self._exchange(req, what, timeout)
        if answer.get("ok"):
            return answer
        if answer.get("error") == "MissingExtraError":
            raise MissingExtraError(f"{what}: the frontend process", answer["module"])
        cls = _ERRORS.get(answer.get("error"), errors.LoweringError)
        kwargs = {"child_traceback": answer.get("traceback")}
        if cls is errors.UnsupportedOpError:
            kwargs.update(op=answer.get("op"), location=answer.get("location"))
        raise cls(answer["message"], **kwargs)

    def _deliver(self, req: dict, deadline: float | None) -> None:
        """Send ``req`` and wait for the child's receipt. A child found dead
        before it acknowledged the request (killed while idle, whether or
        not reaped yet) never acted on it: one fresh child gets it instead."""
        for attempt in (1, 2):
            self._truncate_log()
            try:
                _protocol.send(self._proc.stdin, req)
                receipt = _protocol.recv_bytes(self._proc.stdout, _left(deadline))
            except (BrokenPipeError, EOFError):
                receipt = None
            if receipt is not None:
                got = pickle.loads(receipt)
                if not isinstance(got, dict) or got.get("id") != req["id"] \
                        or not got.get("received"):
                    raise _OutOfStep(got.get("id") if isinstance(got, dict) else got)
                return
            if attempt == 2:
                return  # the answer read reports the exit with the log tail
            self._discard()
            self._start()

    def _exchange(self, req: dict, what: str, timeout: float | None) -> dict:
        if not self._alive():
            self._discard()
            self._start()
        # Modules defining user models may have been made importable after
        # the child started.
        rid = next(self._ids)
        req = {**req, "id": rid, "sys_path": _sys_path()}
        deadline = None if timeout is None else time.monotonic() + timeout
        try:
            self._deliver(req, deadline)
            try:
                blob = _protocol.recv_bytes(self._proc.stdout, _left(deadline))
            except (EOFError, OSError):
                blob = None
            if blob is None:
                tail = self._log_tail()
                proc = self._discard()
                raise errors.WorkerError(
                    f"{what}: the frontend process exited (status {proc.returncode}) "
                    f"before answering; its last output is attached below. If it ran "
                    f"out of memory, import a smaller model or free memory",
                    child_traceback=tail or None)
            try:
                answer = pickle.loads(blob)
            except Exception as e:
                self._discard()
                raise errors.WorkerError(
                    f"{what}: the frontend process's answer cannot be read ({type(e).__name__}: "
                    f"{e}); it was stopped, import again") from e
        except errors.WorkerError:
            raise
        except _protocol.Timeout:
            tail = self._log_tail()
            self._discard()
            raise _timeout_error(what, timeout, tail) from None
        except _OutOfStep as e:
            self._discard()
            raise _out_of_step_error(what, e.args[0], rid) from None
        except BaseException:
            # Interrupted between send and the end of the answer: the answer
            # (or its rest) would be read by the next request. Drop the child.
            self._discard()
            raise
        if not isinstance(answer, dict) or answer.get("id") != rid:
            got = answer.get("id") if isinstance(answer, dict) else type(answer).__name__
            self._discard()
            raise _out_of_step_error(what, got, rid)
        return answer

    def shutdown(self, timeout: float = 10.0) -> None:
        with self._lock:
            proc = self._proc
            if proc is not None and proc.poll() is None:
                try:
                    _protocol.send(proc.stdin, {"op": "exit"})
                    proc.stdin.close()
                    proc.wait(timeout=timeout)
                except (OSError, subprocess.TimeoutExpired):
                    pass
            self._discard()

    def _forget_after_fork(self) -> None:
        """In a forked child: drop the parent's frontend process without
        touching it. This process's copies of the pipe and log descriptors
        are pointed at /dev/null, so the child never writes into or reads
        from the parent's pipes, and closing the objects later (or flushing
        their buffers) closes and writes nothing that matters."""
        files = [self._log]
        if self._proc is not None:
            files += [self._proc.stdin, self._proc.stdout]
        try:
            null = os.open(os.devnull, os.O_RDWR)
        except OSError:
            return
        try:
            for f in files:
                if f is not None:
                    try:
                        os.dup2(null, f.fileno())
                    except (OSError, ValueError):
                        pass
        finally:
            os.close(null)
        # The Popen object would otherwise warn that "its" child still runs.
        _abandoned.append(self._proc)


_abandoned: list = []  # in a forked child: the parent's Popen, never waited on
_worker = Worker()


def _after_fork_in_child() -> None:
    global _worker
    old, _worker = _worker, Worker()
    old._forget_after_fork()


def _shutdown_at_exit() -> None:
    _worker.shutdown()


atexit.register(_shutdown_at_exit)
if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)


def request(req: dict, what: str, timeout: float | None = -1) -> dict:
    return _worker.request(req, what, timeout)


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
