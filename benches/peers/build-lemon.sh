#!/usr/bin/env bash
# Builds the LEMON peer (benches/peers/lemon_mcf.cpp) against Debian's liblemon-dev into a
# scratch directory under the Cargo target directory: never a project dependency.
#
#   benches/peers/build-lemon.sh            # -> $CARGO_TARGET_DIR/peers-lemon/lemon_mcf
#
# Installs liblemon-dev with apt-get when its headers are missing (needs root or sudo).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
out="${CARGO_TARGET_DIR:-$root/target}/peers-lemon"

if [ ! -f /usr/include/lemon/network_simplex.h ]; then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get install -y liblemon-dev
fi
mkdir -p "$out"
# The solvers are header templates; the library itself is linked for completeness.
nice -n 10 g++ -std=c++17 -O3 -march=native -DNDEBUG -Wall -Wextra -Wno-maybe-uninitialized \
  -o "$out/lemon_mcf" "$here/lemon_mcf.cpp" -llemon
echo "$out/lemon_mcf"
