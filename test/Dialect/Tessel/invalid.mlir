// RUN: tessel-opt %s -split-input-file -verify-diagnostics

// expected-error @+1 {{grid rows must be in [1, 1024], got 0}}
tessel.device @empty grid <0, 4> {
}

// -----

// expected-error @+1 {{grid cols must be in [1, 1024], got 2000}}
func.func @huge() attributes {g = #tessel.grid<4, 2000>} {
  return
}

// -----

tessel.device @main grid <4, 4> {
  // expected-error @+1 {{'tessel.tile' op coordinate (4, 0) lies outside the 4x4 grid of device @main: row must be in [0, 3] and col in [0, 3]}}
  %t = tessel.tile(4, 0)
}

// -----

tessel.device @wide grid <2, 8> {
  // expected-error @+1 {{'tessel.tile' op coordinate (0, 8) lies outside the 2x8 grid of device @wide: row must be in [0, 1] and col in [0, 7]}}
  %t = tessel.tile(0, 8)
}

// -----

tessel.device @main grid <4, 4> {
  // expected-error @+1 {{'tessel.tile' op attribute 'row' failed to satisfy constraint: 32-bit signless integer attribute whose value is non-negative}}
  %t = tessel.tile(-1, 0)
}

// -----

tessel.device @main grid <4, 4> {
  // expected-note @+1 {{first declared here}}
  %a = tessel.tile(2, 1)
  // expected-error @+1 {{'tessel.tile' op declares tile (2, 1) of device @main a second time}}
  %b = tessel.tile(2, 1)
}

// -----

func.func @outside_device() {
  // expected-error @+1 {{'tessel.tile' op expects parent op 'tessel.device'}}
  %t = tessel.tile(0, 0)
  return
}
