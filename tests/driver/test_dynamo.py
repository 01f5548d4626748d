"""torch.compile(model, backend="tessel"): outputs against eager, a second
compile of the same graph served from the cache, per-graph stats."""

import pytest
import torch

import drivermodels

import tessel
from tessel import dynamo


@pytest.fixture(autouse=True)
def fresh():
    torch._dynamo.reset()
    dynamo.clear_cache()
    yield
    torch._dynamo.reset()


def test_backend_runs_graphs_on_the_simulator_and_caches_them():
    assert tessel.__version__          # importing tessel registers the backend
    model, (x,) = drivermodels.build()
    model.eval()
    with torch.no_grad():
        golden = model(x)
        first = torch.compile(model, backend="tessel", dynamic=False)(x)
        torch.testing.assert_close(first, golden, rtol=drivermodels.RTOL,
                                   atol=drivermodels.ATOL)
        [graph] = dynamo.stats()
        assert (graph.compiles, graph.cache_hits, graph.calls) == (1, 0, 1)
        assert graph.cycles > 0 and graph.last.outputs

        # A new torch.compile after a reset makes TorchDynamo call the
        # backend again with an equal graph: no second Tessel compile.
        torch._dynamo.reset()
        again = torch.compile(model, backend="tessel", dynamic=False)(x)
    torch.testing.assert_close(again, first, rtol=0, atol=0)
    [graph] = dynamo.stats()
    assert (graph.compiles, graph.cache_hits, graph.calls) == (2, 1, 2)
    assert "1 cache hit(s)" in str(graph)


def test_a_bf16_model_runs_through_torch_compile_in_bf16():
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.ReLU(),
                                torch.nn.Linear(32, 8)).to(torch.bfloat16).eval()
    x = torch.randn(4, 16).to(torch.bfloat16)
    with torch.no_grad():
        golden = model(x)
        got = torch.compile(model, backend="tessel", dynamic=False)(x)
    assert got.dtype == torch.bfloat16
    # torch.testing's bf16 tolerance; the check in the backend held it too.
    torch.testing.assert_close(got, golden)


def test_other_shapes_compile_a_new_graph():
    model, (x,) = drivermodels.build()
    model.eval()
    backend = dynamo.backend(mapper="heuristic")
    with torch.no_grad():
        compiled = torch.compile(model, backend=backend, dynamic=False)
        compiled(x)
        y = compiled(x[:2])
        torch.testing.assert_close(y, model(x[:2]), rtol=drivermodels.RTOL,
                                   atol=drivermodels.ATOL)
    graphs = dynamo.stats()
    assert len(graphs) == 2
    assert [(2, 16) in {shape for shape, _ in g.inputs} for g in graphs] == [False, True]


@pytest.mark.parametrize("name", ["hf_bert", "hf_gpt2"])
def test_hugging_face_text_models_run_through_torch_compile(name):
    # Small configs, random weights: the token embeddings are gathers.
    from tessel import coverage

    model, (ids,) = coverage.get(name).build()
    model.eval()
    with torch.no_grad():
        got = torch.compile(model, backend="tessel", dynamic=False)(ids)
        golden = model(ids)
    torch.testing.assert_close(got, golden, rtol=1e-4, atol=1e-4)
    graphs = dynamo.stats()
    assert graphs and all(g.cycles > 0 for g in graphs)


def _gradients(model, run, x, weights):
    """The gradients of ``model``'s parameters after ``run`` (the model or
    its compiled form) computed a loss on ``x``."""
    model.zero_grad()
    (run(x) * weights).sum().backward()
    return {n: p.grad.clone() for n, p in model.named_parameters()}


@pytest.mark.parametrize("name", ["mlp", "transformer_block"])
def test_training_runs_forward_and_backward_on_tessel(name):
    # loss.backward() through torch.compile: AOTAutograd splits each graph
    # into a forward and a backward one, both compiled and simulated; every
    # gradient matches eager within 1e-5 of the largest.
    torch.manual_seed(0)
    if name == "mlp":
        model = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.ReLU(),
                                    torch.nn.Linear(32, 4))
        x = torch.randn(8, 16)
    else:
        model = torch.nn.TransformerEncoderLayer(32, 2, 64, dropout=0.0,
                                                 batch_first=True)
        x = torch.randn(2, 8, 32)
    weights = torch.randn(model(x).shape)
    golden = _gradients(model, model, x, weights)
    got = _gradients(model, torch.compile(model, backend="tessel", dynamic=False),
                     x, weights)
    scale = max(g.abs().max() for g in golden.values())
    for n, g in golden.items():
        torch.testing.assert_close(got[n], g, rtol=0, atol=1e-5 * scale, msg=n)
    roles = sorted(s.role for s in dynamo.stats())
    assert roles == ["backward", "forward"]
    assert all(s.calls == 1 and s.cycles > 0 for s in dynamo.stats())
