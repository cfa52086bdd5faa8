# Sourced by scripts/test and scripts/demo: installs the Debian/Ubuntu packages the build needs
# (when missing) and configures + builds into $CUSK_BUILD_DIR. Needs the CUDA toolkit (nvcc).
set -euo pipefail
CUSK_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CUSK_BUILD_DIR=${CUSK_BUILD_DIR:-$CUSK_ROOT/build}

cusk_packages=(cmake ninja-build ccache g++ pkg-config libtiff-dev libpng-dev libturbojpeg0-dev libjpeg-dev
               libdlpack-dev nlohmann-json3-dev libgtest-dev libbenchmark-dev libfftw3-dev
               libjpeg62-turbo-dev zlib1g-dev libopenjp2-7-dev libzstd-dev libwebp-dev
               libopenslide-dev libvips-tools clang libclang-rt-14-dev python3 libeigen3-dev libqhull-dev
               libpugixml-dev)
missing=()
for p in "${cusk_packages[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [[ ${#missing[@]} -gt 0 ]]; then
  echo "cuskimage: installing ${missing[*]}" >&2
  sudo_cmd=""
  [[ $(id -u) -eq 0 ]] || sudo_cmd=sudo
  $sudo_cmd apt-get update -q >/dev/null
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null
fi

if ! command -v nvcc >/dev/null 2>&1; then
  for d in /usr/local/cuda/bin /usr/local/cuda-13.0/bin; do
    [[ -x $d/nvcc ]] && export PATH=$d:$PATH && break
  done
fi
command -v nvcc >/dev/null 2>&1 || { echo "cuskimage: the CUDA toolkit (nvcc) is required to build; install CUDA 13" >&2; exit 1; }

# ccache keys on paths relative to the checkout, so fresh clones share the cache.
export CCACHE_BASEDIR=$CUSK_ROOT
export CCACHE_NOHASHDIR=1
jobs=$(nproc)
cmake -S "$CUSK_ROOT" -B "$CUSK_BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release ${CUSK_CMAKE_ARGS:-} >/dev/null
cmake --build "$CUSK_BUILD_DIR" -j "$jobs"
