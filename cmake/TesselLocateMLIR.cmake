# Sets MLIR_DIR and LLVM_DIR from the xtc-mlir-dev / xtc-llvm-dev wheels
# installed in the Python environment of Python3_EXECUTABLE, unless the caller
# already set them.
function(tessel_locate_mlir)
  if(MLIR_DIR AND LLVM_DIR)
    return()
  endif()
  execute_process(
    COMMAND "${Python3_EXECUTABLE}" -c
      "import importlib.util as u; print(list(u.find_spec('mlir').submodule_search_locations)[0]); print(list(u.find_spec('llvm').submodule_search_locations)[0])"
    OUTPUT_VARIABLE _roots
    RESULT_VARIABLE _rc
    OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(NOT _rc EQUAL 0)
    message(FATAL_ERROR
      "Could not find the LLVM/MLIR 22 wheels in ${Python3_EXECUTABLE}'s "
      "environment. Install them with `pip install -r requirements.txt` (or "
      "run `make setup`), or pass -DMLIR_DIR=... -DLLVM_DIR=... explicitly.")
  endif()
  string(REPLACE "\n" ";" _roots "${_roots}")
  list(GET _roots 0 _mlir_root)
  list(GET _roots 1 _llvm_root)
  set(MLIR_DIR "${_mlir_root}/lib/cmake/mlir" CACHE PATH "MLIRConfig.cmake location" FORCE)
  set(LLVM_DIR "${_llvm_root}/lib/cmake/llvm" CACHE PATH "LLVMConfig.cmake location" FORCE)
endfunction()
