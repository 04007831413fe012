#!/usr/bin/env bash
# One device call: the batched ignition (BDF, full effort, rows of 2, CELLS GRI-3.0 reactors)
# in this tree and in OLD_TREE (e.g. `git archive REV` unpacked in .dev/old and carried), each
# twice, alternating, each tree with its own kernel cache. Logs under $OUT.
#
#   YAML_CPP_ROOT=$PWD/.yaml OLD_TREE=.dev/old OUT=$OUT bash bench/ignition_ab_gpu.sh [CELLS]
#     (default 100000)
set -uo pipefail
cd "$(dirname "$0")/.."
cells=${1:-100000}
source bench/gpu_build.sh
gpu_start_both kinetics_ignition || exit 1
ab_rounds "$out" "$old" ignition 'seconds|reactors_per_s|steps_mean|jacobian_s|stage_s|rhs_s' \
  kinetics_ignition --method bdf --effort full --rows 2 "$cells"
echo "done at $(($(date +%s) - t0)) s"
