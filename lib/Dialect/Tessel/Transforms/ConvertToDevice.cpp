//===- ConvertToDevice.cpp - A function's parts become per-tile cores -----===//
//
// The bufferized function runs its partitioned ops one after another; each
// part of each op runs on the tile its mapping names. This pass makes that
// explicit: a tessel.device with the function's DRAM buffers, and per tile a
// core holding, in program order, the parts that run there, step loops
// unrolled into straight-line code, separated by barriers.
//
//===----------------------------------------------------------------------===//

#include "tessel/Dialect/Tessel/IR/TesselAttrs.h"
#include "tessel/Dialect/Tessel/IR/TesselDialect.h"
#include "tessel/Dialect/Tessel/IR/TesselOps.h"
#include "tessel/Dialect/Tessel/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include <functional>
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include <map>
#include <set>

namespace mlir::tessel {
#define GEN_PASS_DEF_TESSELCONVERTTODEVICE
#include "tessel/Dialect/Tessel/Transforms/Passes.h.inc"

namespace {

using Coord = std::pair<int64_t, int64_t>;

/// One tile's program under construction.
struct TileProgram {
  TileOp tile;
  CoreOp core;
  /// Values of the function (DRAM buffers, constants) as the core sees them.
  IRMapping mapping;
  /// The semaphore the tile waits on to start the next op.
  Value go;
};

/// The forall iterations of `forall`, each with its induction values and the
/// index of the part it computes (row-major over the forall's dimensions,
/// which are the mapping's split loops in order).
FailureOr<SmallVector<SmallVector<int64_t>>>
getIterations(scf::ForallOp forall) {
  ArrayRef<int64_t> lbs = forall.getStaticLowerBound();
  ArrayRef<int64_t> ubs = forall.getStaticUpperBound();
  ArrayRef<int64_t> steps = forall.getStaticStep();
  auto isDynamic = [](ArrayRef<int64_t> values) {
    return llvm::any_of(values, ShapedType::isDynamic);
  };
  if (isDynamic(lbs) || isDynamic(ubs) || isDynamic(steps))
    return forall.emitOpError("must have static bounds to be placed on tiles");
  SmallVector<SmallVector<int64_t>> iterations = {{}};
  for (auto [lb, ub, step] : llvm::zip(lbs, ubs, steps)) {
    SmallVector<SmallVector<int64_t>> next;
    for (const SmallVector<int64_t> &prefix : iterations)
      for (int64_t iv = lb; iv < ub; iv += step) {
        next.push_back(prefix);
        next.back().push_back(iv);
      }
    iterations = std::move(next);
  }
  return iterations;
}

struct ConvertToDevice : impl::TesselConvertToDeviceBase<ConvertToDevice> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    ArchAttr arch = lookupArchOrError(module);
    if (!arch)
      return signalPassFailure();
    SmallVector<func::FuncOp> funcs =
        llvm::to_vector(module.getOps<func::FuncOp>());
    if (funcs.size() != 1) {
      module.emitError() << "expected one function to place on the chip, got "
                         << funcs.size();
      return signalPassFailure();
    }
    if (failed(convert(funcs.front(), arch)))
      return signalPassFailure();
  }

  LogicalResult convert(func::FuncOp func, ArchAttr arch) {
    Location loc = func.getLoc();
    OpBuilder builder(func);
    auto device = DeviceOp::create(builder, loc, func.getSymName(), arch);
    Block &body = device.getBody().front();
    builder.setInsertionPointToStart(&body);

    // DRAM buffers: arguments are inputs (weights once the frontend marks
    // them), returned allocations outputs, other allocations scratch.
    auto returnOp = cast<func::ReturnOp>(func.getBody().back().getTerminator());
    llvm::SmallPtrSet<Value, 4> returned(returnOp.getOperands().begin(),
                                         returnOp.getOperands().end());
    IRMapping dram;
    for (BlockArgument arg : func.getArguments()) {
      // An argument the program never reads (a lifted buffer such as
      // batchnorm's num_batches_tracked) needs no place in DRAM.
      if (arg.use_empty())
        continue;
      auto type = dyn_cast<MemRefType>(arg.getType());
      if (!type)
        return func.emitOpError() << "argument #" << arg.getArgNumber()
                                  << " is not a memref after bufferization";
      if (returned.contains(arg))
        return func.emitOpError()
               << "returns its argument #" << arg.getArgNumber()
               << "; an output must be its own DRAM buffer";
      auto kindAttr =
          func.getArgAttrOfType<StringAttr>(arg.getArgNumber(), "tessel.kind");
      DramBufferKind kind = DramBufferKind::input;
      if (kindAttr && kindAttr.getValue() == "weight")
        kind = DramBufferKind::weight;
      auto nameAttr =
          func.getArgAttrOfType<StringAttr>(arg.getArgNumber(), "tessel.name");
      std::string name = nameAttr ? nameAttr.getValue().str()
                                  : "arg" + std::to_string(arg.getArgNumber());
      auto buffer = DramBufferOp::create(builder, arg.getLoc(), type, name,
                                         kind, /*address=*/nullptr,
                                         /*value=*/nullptr);
      dram.map(arg, buffer.getResult());
    }
    // An output returned through a reshape of an allocation (a matmul's
    // result expanded back to the batch shape) is one DRAM buffer of the
    // output's shape; the allocation becomes the inverse reshape of it.
    llvm::DenseMap<Value, std::pair<unsigned, Operation *>> reshapedOutputs;
    for (auto [index, value] : llvm::enumerate(returnOp.getOperands())) {
      Operation *def = value.getDefiningOp();
      if (!isa_and_nonnull<memref::ExpandShapeOp, memref::CollapseShapeOp>(def))
        continue;
      Value source = def->getOperand(0);
      if (source.getDefiningOp<memref::AllocOp>())
        reshapedOutputs[source] = {static_cast<unsigned>(index), def};
    }
    int64_t scratch = 0;
    for (auto alloc : func.getBody().getOps<memref::AllocOp>()) {
      std::optional<unsigned> output;
      auto result = llvm::find(returnOp.getOperands(), alloc.getResult());
      if (result != returnOp.getOperands().end())
        output = std::distance(returnOp.getOperands().begin(), result);
      auto reshaped = reshapedOutputs.find(alloc.getResult());
      if (reshaped != reshapedOutputs.end())
        output = reshaped->second.first;
      std::string name;
      if (output) {
        auto nameAttr =
            func.getResultAttrOfType<StringAttr>(*output, "tessel.name");
        name = nameAttr ? nameAttr.getValue().str()
                        : "result" + std::to_string(*output);
      } else {
        name = "scratch" + std::to_string(scratch++);
      }
      MemRefType type = alloc.getType();
      Operation *reshape =
          reshaped != reshapedOutputs.end() ? reshaped->second.second : nullptr;
      if (reshape)
        type = cast<MemRefType>(reshape->getResult(0).getType());
      if (!type.hasStaticShape() || !type.getLayout().isIdentity())
        return alloc.emitOpError("must be statically shaped and contiguous to "
                                 "be a DRAM buffer");
      auto buffer = DramBufferOp::create(
          builder, alloc.getLoc(), type, name,
          output ? DramBufferKind::output : DramBufferKind::scratch,
          /*address=*/nullptr, /*value=*/nullptr);
      Value allocView = buffer.getResult();
      if (auto expand = dyn_cast_or_null<memref::ExpandShapeOp>(reshape))
        allocView = memref::CollapseShapeOp::create(
            builder, alloc.getLoc(), buffer.getResult(),
            expand.getReassociationIndices());
      else if (auto collapse = dyn_cast_or_null<memref::CollapseShapeOp>(reshape))
        allocView = memref::ExpandShapeOp::create(
            builder, alloc.getLoc(), alloc.getType(), buffer.getResult(),
            collapse.getReassociationIndices());
      dram.map(alloc.getResult(), allocView);
      if (reshape)
        dram.map(reshape->getResult(0), buffer.getResult());
    }
    // Constant tensors (a folded mask) were bufferized into globals; each
    // becomes a constant DRAM buffer holding its value.
    if (failed(convertGlobals(func, builder, dram)))
      return failure();
    for (Value value : returnOp.getOperands())
      if (!dram.contains(value))
        return returnOp.emitOpError(
            "returns a value that is not a DRAM allocation of the function");

    // Tiles: every tile some mapping names, in row-major order.
    SmallVector<scf::ForallOp> parts;
    for (Operation &op : func.getBody().front()) {
      auto forall = dyn_cast<scf::ForallOp>(op);
      if (forall && forall->hasAttr(TesselDialect::getPartitionAttrName())) {
        parts.push_back(forall);
        continue;
      }
      // Constants and views of DRAM buffers (reshapes, slices) carry no
      // work: the cores that use them get their own copies.
      if (isa<memref::AllocOp, memref::DeallocOp, memref::GetGlobalOp,
              func::ReturnOp, arith::ConstantOp, ViewLikeOpInterface>(op))
        continue;
      return op.emitOpError()
             << "is outside any partitioned op; run tessel-partition first";
    }
    std::set<Coord> coords;
    for (scf::ForallOp forall : parts) {
      auto mapping = cast<MappingAttr>(
          forall->getAttr(TesselDialect::getPartitionAttrName()));
      for (int64_t i = 0; i < mapping.getNumTiles(); ++i)
        coords.insert(mapping.getTileOfPart(i));
    }
    if (coords.empty())
      coords.insert({0, 0});
    std::map<Coord, TileProgram> tiles;
    for (Coord c : coords)
      tiles[c].tile = TileOp::create(builder, loc, c.first, c.second);
    // Barrier semaphores: the first tile collects one signal per tile, then
    // releases each tile through the tile's own semaphore.
    TileProgram &leader = tiles.begin()->second;
    Value arrived = SemaphoreOp::create(builder, loc, leader.tile, 0);
    for (auto &[c, program] : tiles)
      program.go = SemaphoreOp::create(builder, loc, program.tile, 0);
    for (auto &[c, program] : tiles) {
      program.core = CoreOp::create(builder, loc, program.tile);
      program.mapping = dram;
    }

    // Each part's body, with the iteration's induction values as constants,
    // goes to the core of its tile, in program order.
    for (auto [index, forall] : llvm::enumerate(parts)) {
      auto mapping = cast<MappingAttr>(
          forall->getAttr(TesselDialect::getPartitionAttrName()));
      FailureOr<SmallVector<SmallVector<int64_t>>> iterations =
          getIterations(forall);
      if (failed(iterations))
        return failure();
      for (auto [part, ivs] : llvm::enumerate(*iterations)) {
        TileProgram &program = tiles[mapping.getTileOfPart(part)];
        OpBuilder coreBuilder =
            OpBuilder::atBlockTerminator(&program.core.getBody().front());
        IRMapping map = program.mapping;
        for (auto [iv, value] : llvm::zip(forall.getInductionVars(), ivs))
          map.map(iv, arith::ConstantIndexOp::create(coreBuilder,
                                                      forall.getLoc(), value)
                          .getResult());
        // Values the body captures from the function: constants and views
        // of DRAM buffers, cloned (with what they use) into the core.
        std::function<void(Value)> capture = [&](Value value) {
          Operation *def = value.getDefiningOp();
          if (map.contains(value) || !def ||
              def->getBlock() != &func.getBody().front() ||
              !isa<arith::ConstantOp, ViewLikeOpInterface>(def))
            return;
          for (Value operand : def->getOperands())
            capture(operand);
          coreBuilder.clone(*def, map);
        };
        forall.getBody()->walk([&](Operation *op) {
          for (Value operand : op->getOperands())
            capture(operand);
        });
        for (Operation &op : forall.getBody()->without_terminator())
          coreBuilder.clone(op, map);
      }
      // Barrier after every op but the last: all its writes to DRAM are
      // done (every transfer is waited for where it is issued) before any
      // tile starts the next op.
      if (index + 1 == parts.size())
        continue;
      for (auto &[c, program] : tiles) {
        OpBuilder coreBuilder =
            OpBuilder::atBlockTerminator(&program.core.getBody().front());
        SignalOp::create(coreBuilder, forall.getLoc(), arrived, 1);
        if (&program == &leader) {
          WaitSemaphoreOp::create(coreBuilder, forall.getLoc(), arrived,
                                  static_cast<int32_t>(tiles.size()));
          for (auto &[c2, other] : tiles)
            SignalOp::create(coreBuilder, forall.getLoc(), other.go, 1);
        }
        WaitSemaphoreOp::create(coreBuilder, forall.getLoc(), program.go, 1);
      }
    }

    func.erase();
    return unrollSteps(device);
  }

  LogicalResult convertGlobals(func::FuncOp func, OpBuilder &builder,
                               IRMapping &dram) {
    auto module = func->getParentOfType<ModuleOp>();
    llvm::StringMap<Value> buffers;
    for (auto get : func.getBody().getOps<memref::GetGlobalOp>()) {
      // Not a SymbolTable: the device, named after the function, is not
      // yet alone under its name.
      auto global = SymbolTable::lookupNearestSymbolFrom<memref::GlobalOp>(
          get, get.getNameAttr());
      auto value = global ? dyn_cast_or_null<ElementsAttr>(
                                global.getInitialValueAttr())
                          : nullptr;
      if (!value || !global.getConstant())
        return get.emitOpError()
               << "reads @" << get.getName()
               << ", which is not a constant global with a value";
      MemRefType type = get.getType();
      if (!type.hasStaticShape() || !type.getLayout().isIdentity())
        return get.emitOpError("must be statically shaped and contiguous to "
                               "be a DRAM buffer");
      Value &buffer = buffers[get.getName()];
      if (!buffer)
        buffer = DramBufferOp::create(builder, get.getLoc(), type,
                                      get.getName(), DramBufferKind::constant,
                                      /*address=*/nullptr, value);
      dram.map(get.getResult(), buffer);
    }
    // The globals' values now live in the device's buffers.
    for (auto global :
         llvm::make_early_inc_range(module.getOps<memref::GlobalOp>()))
      if (buffers.contains(global.getSymName()))
        global.erase();
    return success();
  }

  /// Straight-line cores: unrolls the step loops outermost first; folding
  /// after each round makes the inner loops' bounds (affine.min of an outer
  /// induction value) constant.
  LogicalResult unrollSteps(DeviceOp device) {
    MLIRContext *ctx = &getContext();
    RewritePatternSet patterns(ctx);
    for (Dialect *dialect : ctx->getLoadedDialects())
      dialect->getCanonicalizationPatterns(patterns);
    for (RegisteredOperationName op : ctx->getRegisteredOperations())
      op.getCanonicalizationPatterns(patterns, ctx);
    FrozenRewritePatternSet canonicalization(std::move(patterns));

    while (true) {
      if (failed(applyPatternsGreedily(device, canonicalization)))
        return device.emitOpError("did not converge while folding steps");
      SmallVector<scf::ForOp> outermost;
      device.walk([&](scf::ForOp loop) {
        if (!loop->getParentOfType<scf::ForOp>())
          outermost.push_back(loop);
      });
      if (outermost.empty())
        return success();
      for (scf::ForOp loop : outermost)
        if (failed(loopUnrollFull(loop)))
          return loop.emitOpError("has a trip count that is not constant, so "
                                  "the tile's program cannot be unrolled");
    }
  }
};

} // namespace
} // namespace mlir::tessel
