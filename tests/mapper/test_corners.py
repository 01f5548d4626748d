"""Where each op's rectangle lies (tessel.mapper.corners; docs/mapper.md,
*Rectangles placed by their DRAM channels*): a rectangle that does not fill
tessel-16x16 moves to where the cost model predicts it fastest, and the
program still computes what PyTorch computes."""

from dataclasses import replace

import torch
from checked import assert_matches

from tessel import arch as arch_model
from tessel import frontend as fe
from tessel.compiler.lower import lower_and_emit
from tessel.driver.pipeline import argument_roles
from tessel.ir import Context, Module
from tessel.mapper import MapperOptions, graph, map_graph, map_module
from tessel.mapper.corners import place_by_dram_channels
from tessel.mapper.cost import estimate

# ResNet-18's classifier without its bias: one row of 512 features through
# 1000 classes.
CLASSIFIER = """
func.func @f(%x: tensor<1x512xf32>, %w: tensor<512x1000xf32>, %y: tensor<1x1000xf32>) -> tensor<1x1000xf32> {
  %r = linalg.matmul ins(%x, %w : tensor<1x512xf32>, tensor<512x1000xf32>) outs(%y : tensor<1x1000xf32>) -> tensor<1x1000xf32>
  return %r : tensor<1x1000xf32>
}
"""

OPTIONS = MapperOptions(time_limit_s=10.0)


def classifier_graph():
    with Context():
        return graph.from_module(Module.parse(CLASSIFIER),
                                 roles=["input", "weight", "output"])


def test_classifier_moves_off_the_corner_to_both_edges_channels():
    """Cut 143 ways on 11 x 13 tiles, the classifier at the north-west corner
    reads its 2 MB of weights through the 7 north channels it is nearest;
    further south the south channels serve a share of its tiles."""
    arch = arch_model.load("tessel-16x16")
    g = classifier_graph()
    solution = map_graph(g, arch, "cpsat", OPTIONS)
    (choice,) = solution.choices
    p = choice.placement
    assert p.rows * p.cols < arch.grid.rows * arch.grid.cols
    assert (p.row, p.col) != (0, 0)
    at_corner = estimate(g.ops[0], arch, replace(p, row=0, col=0),
                         steps=choice.candidate.estimate.steps)
    assert choice.cycles < at_corner.cycles
    # The parts and steps are those the mapper chose; the note says why.
    assert choice.candidate.estimate.steps == at_corner.steps
    assert any("for its DRAM channels" in note and f"{at_corner.cycles} -> "
               f"{choice.cycles}" in note for note in solution.notes)


def test_rectangles_stay_where_nothing_is_faster_or_stages_are_packed():
    arch = arch_model.load("tessel-16x16")
    g = classifier_graph()
    moved = map_graph(g, arch, "cpsat", OPTIONS)
    (choice,) = moved.choices
    corner = replace(choice.placement, row=0, col=0)
    at_corner = replace(choice, candidate=replace(
        choice.candidate, placement=corner,
        estimate=estimate(g.ops[0], arch, corner,
                          steps=choice.candidate.estimate.steps)))
    # Placed again, the moved rectangle stays; at the corner, it moves.
    assert place_by_dram_channels(g, moved, arch) == moved
    unmoved = replace(moved, choices=(at_corner,), notes=())
    assert place_by_dram_channels(g, unmoved, arch).choices == moved.choices
    # A mapping of several pipeline stages keeps the packer's corners (two
    # stages of the one op stand for any two).
    staged = replace(unmoved, choices=(at_corner, replace(at_corner, stage=1)))
    assert place_by_dram_channels(g, staged, arch) is staged
    # A result kept on chip keeps its writer where its readers find it.
    kept = replace(unmoved, on_chip=frozenset({0}))
    assert place_by_dram_channels(g, kept, arch) is kept


def test_classifier_off_the_corner_matches_pytorch():
    """A two-layer head on tessel-16x16 mapped by CP-SAT: the classifier
    lies off the corner, and its weights load during the layer before it
    (tessel-schedule; tessel-schedule.mlir pins where); the result matches
    PyTorch, and the CPU emulator bit for bit."""
    torch.manual_seed(0)
    head = torch.nn.Sequential(torch.nn.Linear(256, 512), torch.nn.ReLU(),
                               torch.nn.Linear(512, 1000)).eval()
    x = torch.randn(1, 256)
    model = fe.import_torch(head, (x,), name="head")
    mapped = {}

    def mapping(module, target):
        mapped["graph"], mapped["solution"] = map_module(
            module, target, "cpsat", OPTIONS, roles=argument_roles(module),
            legalized=True)

    program = lower_and_emit(model, "tessel-16x16", mapping=mapping)
    graph_, solution = mapped["graph"], mapped["solution"]
    (classifier,) = [c for c in solution.choices
                     if graph_.ops[c.op].kind == "matmul"
                     and graph_.ops[c.op].loops[1] == 1000]
    assert (classifier.placement.row, classifier.placement.col) != (0, 0)
    assert_matches(program, model, [x.numpy()], head(x).detach().numpy())
