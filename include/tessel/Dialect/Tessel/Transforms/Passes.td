//===- Passes.td - Passes of the tessel dialect ------------*- tablegen -*-===//

#ifndef TESSEL_DIALECT_TESSEL_TRANSFORMS_PASSES_TD
#define TESSEL_DIALECT_TESSEL_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def TesselCheckInputContract
    : Pass<"tessel-check-input-contract", "::mlir::ModuleOp"> {
  let summary = "Reject any op outside the linalg-on-tensors input contract";
  let description = [{
    Tessel compiles linalg-on-tensors as torch-mlir hands it over: ops of the
    `func`, `linalg`, `tensor`, `arith` and `math` dialects inside a
    `builtin.module`. This pass is the first stage of the pipeline. It walks
    the module and reports every op of any other dialect, with its name and
    source location, so an unsupported model fails before compilation
    starts instead of being miscompiled. `cf.assert`, which torch-mlir emits
    for shape checks, is accepted.

    Input that satisfies the contract is left unchanged:

    ```mlir
    func.func @relu(%x: tensor<4xf32>) -> tensor<4xf32> {
      %0 = tensor.empty() : tensor<4xf32>
      %1 = linalg.generic ... ins(%x : tensor<4xf32>) outs(%0 : tensor<4xf32>) { ... }
      return %1 : tensor<4xf32>
    }
    ```

    Input that does not is rejected:

    ```
    error: 'scf.for' is outside Tessel's input contract (builtin.module, func,
    linalg, tensor, arith, math, cf.assert); lower the model to
    linalg-on-tensors before compiling it
    ```
  }];
  let statistics = [
    Statistic<"numOpsChecked", "num-ops-checked", "Number of ops checked">,
    Statistic<"numOpsRejected", "num-ops-rejected",
              "Number of ops outside the input contract">
  ];
}

#endif // TESSEL_DIALECT_TESSEL_TRANSFORMS_PASSES_TD
