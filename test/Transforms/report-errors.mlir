// Bad report options and unreportable functions are errors; nothing is
// written then.
// RUN: rm -f %t.json
// RUN: not remat-opt %s --pass-pipeline='builtin.module(remat-report{path=%t.json device=tpu})' -o /dev/null 2>&1 | FileCheck %s --check-prefix=DEVICE
// DEVICE: error: unknown device profile 'tpu'; known profiles: h200, a100, v100, gtx970m, cpu
// RUN: not remat-opt %s --pass-pipeline='builtin.module(remat-report{path=%t.json measured-profile=%S/Inputs/missing.json})' -o /dev/null 2>&1 | FileCheck %s --check-prefix=MISSING
// MISSING: error: cannot read the measured profile '{{.*}}missing.json'
// RUN: not remat-opt %s --pass-pipeline='builtin.module(remat-report{path=%t.json measured-profile=%S/Inputs/measured-negative.json})' -o /dev/null 2>&1 | FileCheck %s --check-prefix=NEGATIVE
// NEGATIVE: error: measured profile '{{.*}}measured-negative.json': 'nn.relu' must map to a finite, non-negative number of seconds
// RUN: not remat-opt %s --pass-pipeline='builtin.module(remat-report{path=%t.json measured-profile=%S/Inputs/measured-infinite.json})' -o /dev/null 2>&1 | FileCheck %s --check-prefix=INFINITE
// INFINITE: error: measured profile '{{.*}}measured-infinite.json': 'nn.relu' must map to a finite, non-negative number of seconds
// A finite time no op takes (1e308 s) would make the step's time infinite.
// RUN: echo '{"nn.relu": 1e308}' > %t.huge.json
// RUN: not remat-opt %s --pass-pipeline='builtin.module(remat-report{path=%t.json measured-profile=%t.huge.json})' -o /dev/null 2>&1 | FileCheck %s --check-prefix=HUGE
// HUGE: error: measured profile '{{.*}}huge.json': 'nn.relu' maps to 1e+308 seconds, more than 1e+06 (11 days), which is no op's time in one step
// A profile nested 5000 deep is rejected before the JSON parser, whose
// recursion overflowed the stack at 50,000 levels (found by remat-fuzz-measured-profile).
// RUN: not remat-opt %s --pass-pipeline='builtin.module(remat-report{path=%t.json measured-profile=%S/Inputs/measured-deep.json})' -o /dev/null 2>&1 | FileCheck %s --check-prefix=DEEP
// DEEP: error: measured profile '{{.*}}measured-deep.json' nests arrays or objects deeper than 64 levels
// RUN: not remat-opt %s --pass-pipeline='builtin.module(remat-report{path=%t.json measured-profile=%S/Inputs/measured-array.json})' -o /dev/null 2>&1 | FileCheck %s --check-prefix=ARRAY
// ARRAY: error: measured profile '{{.*}}measured-array.json' must be a JSON object of op -> seconds
// A key that names no op of the step and no op kind (a typo, or a profile of
// another step) would leave its op to the estimate without a word: an error
// with the first such key, its nearest name, and how many more there are.
// RUN: not remat-opt %s --pass-pipeline='builtin.module(remat-report{path=%t.json measured-profile=%S/Inputs/measured-unknown.json})' -o /dev/null 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// UNKNOWN: error: measured profile '{{.*}}measured-unknown.json': 'bb' names no op of the step (remat.name) and no op kind (nn.conv2d); nearest: {{[a-z.]+}} (2 more unknown keys)
// RUN: echo '{"nn.rellu": 1.0}' > %t.typo.json
// RUN: not remat-opt %s --pass-pipeline='builtin.module(remat-report{path=%t.json measured-profile=%t.typo.json})' -o /dev/null 2>&1 | FileCheck %s --check-prefix=TYPO
// TYPO: error: measured profile '{{.*}}typo.json': 'nn.rellu' names no op of the step (remat.name) and no op kind (nn.conv2d); nearest: nn.relu{{$}}
// The saturation keys name no op and are accepted; a minimum fill is a
// fraction of peak, at most 1.
// RUN: echo '{"remat.saturation_flops": 0, "remat.saturation_bytes": 1e6, "remat.minimum_fill": 0.5}' > %t.saturation.json
// RUN: remat-opt %s --pass-pipeline='builtin.module(remat-report{path=%t.saturation.json.out measured-profile=%t.saturation.json})' -o /dev/null
// RUN: echo '{"remat.minimum_fill": 2}' > %t.fill.json
// RUN: not remat-opt %s --pass-pipeline='builtin.module(remat-report{path=%t.json measured-profile=%t.fill.json})' -o /dev/null 2>&1 | FileCheck %s --check-prefix=FILL
// FILL: error: measured profile '{{.*}}fill.json': 'remat.minimum_fill' is a fraction of peak rate, at most 1
// A saturation figure is no time: its error says what it counts.
// RUN: echo '{"remat.saturation_bytes": -1}' > %t.negsat.json
// RUN: not remat-opt %s --pass-pipeline='builtin.module(remat-report{path=%t.json measured-profile=%t.negsat.json})' -o /dev/null 2>&1 | FileCheck %s --check-prefix=NEGSAT
// NEGSAT: error: measured profile '{{.*}}negsat.json': 'remat.saturation_bytes' must map to a finite, non-negative number of bytes{{$}}
// A kind the step does not use is fine: one profile can serve many steps.
// RUN: echo '{"nn.conv2d": 1.0, "nn.relu": 2.0}' > %t.kinds.json
// RUN: remat-opt %s --pass-pipeline='builtin.module(remat-report{path=%t.kinds.json.out measured-profile=%t.kinds.json})' -o /dev/null
// RUN: not remat-opt %s --report=%t.dir/missing/report.json -o /dev/null 2>&1 | FileCheck %s --check-prefix=PATH
// PATH: error: cannot write '{{.*}}report.json'
// RUN: not ls %t.json

func.func @step(%x: tensor<16xf32>) -> tensor<16xf32> {
  %a = nn.relu %x : tensor<16xf32>
  return %a : tensor<16xf32>
}
