// distance_transform_edt and isotropic erosion on binary blobs (the benchmark texture thresholded at
// its middle grey: blobs of a few hundred pixels, about half foreground), standard shapes.
// Bytes moved: the mask read (1 B) and the float64 distances written (8 B) per element; with indices
// also the int32 features (4 B per axis). 8192^2 distances: 604 MB, floor 0.144 ms.
// Targets (8192^2, H200): <= 1.0 ms (CuPy/cuCIM 7.46 ms, NPP's PBA 3.25 ms).
#include <benchmark/benchmark.h>

#include <cstdint>
#include <random>
#include <vector>

#include "bench/common/cuda_bench.hpp"
#include "cuskimage/morphology.hpp"
#include "cuskimage/ndimage.hpp"

namespace nd = cuskimage::ndimage;
using cuskimage::Array;
using cuskimage::Device;
using cuskimage::DType;
using cuskimage::Stream;

namespace {

using cuskbench::shape_arg;

Array blobs(const cuskimage::Shape& shape) {
  const Array tex = cuskbench::test_image(shape, DType::uint8, Device::cpu());
  std::vector<std::uint8_t> v = tex.to_vector<std::uint8_t>();
  for (auto& x : v) x = x > 127;
  return Array::from_vector(v, shape).astype(DType::bool_).to(Device::cuda());
}

void BM_EdtDistances(benchmark::State& st) {
  if (!cuskbench::require_gpu(st)) return;
  const Array m = blobs(shape_arg(st));
  Array dist = Array::empty(m.shape(), DType::float64, Device::cuda());
  Array none;
  cuskbench::run(st, 9.0 * static_cast<double>(m.size()),
                 [&](const Stream& s) { nd::distance_transform_edt_into(m, dist, none, {}, s); });
}

/// One background pixel in 4096 (random positions): distances of tens of pixels, beyond the unit-sampling
/// search radius (64) on many lines, which the banded envelope then redoes: the slow path's cost.
void BM_EdtSparseBackground(benchmark::State& st) {
  if (!cuskbench::require_gpu(st)) return;
  const cuskimage::Shape& shape = shape_arg(st);
  std::vector<std::uint8_t> v(static_cast<std::size_t>(cuskimage::shape_size(shape)));
  std::mt19937 gen(5);
  for (auto& x : v) x = gen() % 4096 != 0;
  const Array m = Array::from_vector(v, shape).astype(DType::bool_).to(Device::cuda());
  Array dist = Array::empty(m.shape(), DType::float64, Device::cuda());
  Array none;
  cuskbench::run(st, 9.0 * static_cast<double>(m.size()),
                 [&](const Stream& s) { nd::distance_transform_edt_into(m, dist, none, {}, s); });
}

void BM_EdtDistancesIndices(benchmark::State& st) {
  if (!cuskbench::require_gpu(st)) return;
  const Array m = blobs(shape_arg(st));
  Array dist = Array::empty(m.shape(), DType::float64, Device::cuda());
  cuskimage::Shape fs{m.ndim()};
  fs.insert(fs.end(), m.shape().begin(), m.shape().end());
  Array ind = Array::empty(fs, DType::int32, Device::cuda());
  cuskbench::run(st, (9.0 + 4.0 * m.ndim()) * static_cast<double>(m.size()), [&](const Stream& s) {
    nd::distance_transform_edt_into(m, dist, ind, {.return_indices = true}, s);
  });
}

void BM_IsotropicErosion10(benchmark::State& st) {
  if (!cuskbench::require_gpu(st)) return;
  const Array m = blobs(shape_arg(st));
  Array out = Array::empty(m.shape(), DType::bool_, Device::cuda());
  // EDT (9 B) + threshold (8 B read, 1 B written) per element.
  cuskbench::run(st, 18.0 * static_cast<double>(m.size()),
                 [&](const Stream& s) { cuskimage::morphology::isotropic_erosion_into(m, 10.0, out, {}, s); });
}

}  // namespace

#define CUSK_EDT_BENCH(fn) BENCHMARK(fn)->DenseRange(0, 3)->UseManualTime()->Unit(benchmark::kMillisecond)
CUSK_EDT_BENCH(BM_EdtDistances);
CUSK_EDT_BENCH(BM_EdtDistancesIndices);
CUSK_EDT_BENCH(BM_EdtSparseBackground);
CUSK_EDT_BENCH(BM_IsotropicErosion10);
