#!/usr/bin/env bash
# Submits a sharded `placer whatif` sweep as a Slurm array of SHARDS tasks, then the
# summarize job held by `--dependency=afterok` on the whole array. Prints the two job ids
# ("ARRAY_ID SUMMARIZE_ID"). Run it from the repository root, with OUT on a filesystem every
# node shares:
#
#   OUT=/shared/out SHARDS=8 examples/slurm/submit.sh
#
# Env: OUT (required), SHARDS [4], PLACER, SWEEP, WHATIF_ARGS (see sweep.sbatch; paths in
# WHATIF_ARGS must be absolute, the jobs run in OUT), and
# SBATCH_EXTRA (more sbatch options for both jobs, e.g. "--partition=batch").
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
: "${OUT:?set OUT to the shared output directory}"
SHARDS="${SHARDS:-4}"
mkdir -p "$OUT"
# Absolute paths: the jobs run in OUT (--chdir) and from a copy of their script.
OUT="$(cd "$OUT" && pwd)"
SWEEP="$(cd "$(dirname "${SWEEP:-$here/sweep.toml}")" && pwd)/$(basename "${SWEEP:-$here/sweep.toml}")"
export OUT SWEEP
# shellcheck disable=SC2086 # SBATCH_EXTRA is a list of options
array=$(sbatch --parsable --array="0-$((SHARDS - 1))" --export=ALL --chdir="$OUT" \
  ${SBATCH_EXTRA:-} "$here/sweep.sbatch")
array="${array%%;*}"
# shellcheck disable=SC2086
merge=$(sbatch --parsable --dependency="afterok:$array" --kill-on-invalid-dep=yes \
  --export=ALL --chdir="$OUT" ${SBATCH_EXTRA:-} "$here/summarize.sbatch")
echo "${array} ${merge%%;*}"
