"""The process split: torch-mlir only ever runs in the frontend process."""

import os
import signal
import subprocess
import sys

import torch

from tessel import frontend as fe
from tessel import zoo


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


def test_frontend_process_is_reused_and_restarts_after_a_crash():
    module, inputs = zoo.get("mlp").build()
    fe.import_torch(module, inputs)
    pid = fe.worker.pid()
    fe.import_torch(module, inputs)
    assert fe.worker.pid() == pid
    os.kill(pid, signal.SIGKILL)
    fe.worker._worker._proc.wait(timeout=30)
    model = fe.import_torch(module, inputs)  # a fresh process takes over
    assert fe.worker.pid() not in (None, pid)
    assert model.signature.inputs[0].shape == (8, 64)


def test_shutdown_stops_the_process():
    fe.warm_up()
    pid = fe.worker.pid()
    fe.shutdown()
    assert fe.worker.pid() is None
    try:
        os.kill(pid, 0)
        alive = True
    except ProcessLookupError:
        alive = False
    # Reaped by shutdown(): the pid no longer exists.
    assert not alive
    assert isinstance(torch.zeros(1), torch.Tensor)
