"""The process split: torch-mlir only ever runs in the frontend process, and
the exchange with it survives crashes, timeouts and interruptions."""

import os
import pickle
import signal
import subprocess
import sys

import pytest

import childhooks
from tessel import frontend as fe
from tessel import zoo
from tessel.frontend import _protocol, worker


def test_compiler_process_never_imports_torch_mlir(repo):
    code = """
import sys
from tessel import frontend as fe, zoo
module, inputs = zoo.get("small_cnn").build()
model = fe.import_torch(module, inputs)
out = fe.run_reference(model, inputs[0].numpy())
import tessel.ir
assert 'torch_mlir' not in sys.modules, sorted(m for m in sys.modules if 'torch_mlir' in m)
print("ok", out[0].shape)
"""
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=repo, timeout=300)
    assert res.returncode == 0, res.stderr[-3000:]
    assert "ok (1, 10)" in res.stdout


def _ping():
    return worker.request({"op": "ping"}, "ping")


def _dead_unreaped(pid):
    """Wait until ``pid`` has exited, leaving it to its parent to reap."""
    os.waitid(os.P_PID, pid, os.WEXITED | os.WNOWAIT)


def _reaped(proc):
    return proc.returncode is not None


def test_frontend_process_is_reused():
    module, inputs = zoo.get("mlp").build()
    fe.import_torch(module, inputs)
    pid = worker.pid()
    model = fe.import_torch(module, inputs)
    assert worker.pid() == pid
    assert model.signature.inputs[0].shape == (8, 64)


def test_a_process_killed_while_idle_is_replaced():
    _ping()
    proc = worker._worker._proc
    os.kill(proc.pid, signal.SIGKILL)  # not waited for by the test
    answer = _ping()
    assert answer["pid"] != proc.pid and answer["pid"] == worker.pid()
    assert _reaped(proc)


def test_a_request_to_a_dead_unreaped_process_restarts_it(monkeypatch):
    # The child died but has not been reaped, so only writing the request
    # finds out (BrokenPipeError): the request goes to a fresh process.
    _ping()
    proc = worker._worker._proc
    os.kill(proc.pid, signal.SIGKILL)
    _dead_unreaped(proc.pid)
    monkeypatch.setattr(worker.Worker, "_alive", lambda self: self._proc is not None)
    answer = _ping()
    assert answer["pid"] != proc.pid and answer["pid"] == worker._worker._proc.pid
    assert _reaped(proc) and proc.stdin.closed and proc.stdout.closed


def test_a_process_dying_mid_request_is_reported_with_its_log():
    _ping()
    proc = worker._worker._proc
    # A training step's module travels pickled (an inference module travels
    # as an exported program).
    req = {"op": "training", "name": "m", "inputs": b"", "targets": b"",
           "module": pickle.dumps(childhooks.DiesWhenUnpickled("out of coffee", 3))}
    with pytest.raises(fe.WorkerError) as info:
        worker.request(req, "module Dies")
    msg = str(info.value)
    assert msg.startswith("module Dies: the frontend process exited (status 3)")
    assert "out of coffee" in info.value.child_traceback
    assert _reaped(proc) and proc.stdout.closed and worker._worker._proc is None
    assert _ping()["pid"] != proc.pid


@pytest.mark.parametrize("at_read,read_first", [(1, 0), (2, 0), (2, 3)],
                         ids=["before-receipt", "before-answer", "mid-answer-frame"])
def test_an_interrupted_request_does_not_leak_its_answer(monkeypatch, at_read, read_first):
    # An interrupt between sending a request and reading its answer used to
    # leave the answer in the pipe for the next request to take as its own
    # (or, in the middle of a frame, desynchronise the stream).
    first = _ping()["pid"]
    real = _protocol.recv_bytes
    calls = []

    def interrupted(stream, timeout=None):
        calls.append(stream)
        if len(calls) == at_read:
            if read_first:
                os.read(stream.fileno(), read_first)
            raise KeyboardInterrupt
        return real(stream, timeout)

    monkeypatch.setattr(_protocol, "recv_bytes", interrupted)
    old = worker._worker._proc
    with pytest.raises(KeyboardInterrupt):
        _ping()
    assert _reaped(old) and worker._worker._proc is None
    answer = worker.request({"op": "ping", "probe": 1}, "ping")
    assert answer["pid"] not in (first, None) and answer["id"] == next(worker._worker._ids) - 1
    # A request of another kind gets its own answer, not a ping's.
    with pytest.raises(fe.LoweringError, match="no_such_op"):
        worker.request({"op": "no_such_op"}, "bad op")


def test_an_answer_to_another_request_is_refused(monkeypatch):
    _ping()
    real = _protocol.send
    monkeypatch.setattr(_protocol, "send",
                        lambda stream, obj: real(stream, {**obj, "id": obj["id"] + 1000}))
    old = worker._worker._proc
    with pytest.raises(fe.WorkerError, match="answered request .* while request .* was waiting"):
        _ping()
    assert _reaped(old) and worker._worker._proc is None
    monkeypatch.undo()
    assert _ping()["pid"] != old.pid


def test_a_request_past_its_timeout_stops_the_process(monkeypatch):
    _ping()
    old = worker._worker._proc
    monkeypatch.setenv(worker.TIMEOUT_ENV, "0.5")
    req = {"op": "torch", "name": "m", "inputs": b"",
           "module": pickle.dumps(childhooks.SleepsWhenUnpickled(120))}
    with pytest.raises(fe.WorkerError,
                       match=r"module Sleeper: the frontend process gave no answer within "
                             r"0.5 s .*TESSEL_FRONTEND_TIMEOUT"):
        worker.request(req, "module Sleeper")
    assert _reaped(old) and old.returncode == -signal.SIGKILL
    # The fresh process starts under the default limit: under 0.5 s a
    # loaded machine may not import torch in time.
    monkeypatch.delenv(worker.TIMEOUT_ENV)
    assert _ping()["pid"] != old.pid


def test_a_bad_timeout_setting_is_named(monkeypatch):
    monkeypatch.setenv(worker.TIMEOUT_ENV, "soon")
    with pytest.raises(fe.WorkerError, match="TESSEL_FRONTEND_TIMEOUT='soon' is not a number"):
        _ping()


def test_the_log_holds_one_request():
    _ping()
    w = worker._worker
    w._log.write(b"x" * 100000)
    w._log.flush()
    _ping()
    assert w._log.seek(0, os.SEEK_END) < 1000


def test_a_forked_child_does_not_share_the_frontend_process():
    parent_pid = _ping()["pid"]
    r, w = os.pipe()
    child = os.fork()
    if child == 0:  # pragma: no cover - runs in the forked process
        status = 1
        try:
            os.close(r)
            ok = worker._worker._proc is None and worker.pid() is None
            status = 0 if ok else 2
        finally:
            os.write(w, bytes([status]))
            os._exit(0)
    os.close(w)
    got = os.read(r, 1)
    os.close(r)
    os.waitpid(child, 0)
    assert got == b"\x00"
    assert _ping()["pid"] == parent_pid


def test_shutdown_stops_and_reaps_the_process():
    _ping()
    proc = worker._worker._proc
    fe.shutdown()
    assert worker.pid() is None
    assert proc.returncode == 0  # exited on request and reaped
    assert proc.stdin.closed and proc.stdout.closed
