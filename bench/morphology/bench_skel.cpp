// Skeletonization and convex hull benchmarks (issue 5), all on CUDA: skeletonize (Zhang) of binary
// blobs at 8192^2, Lee's 3-D skeleton at 192^3, thin, convex_hull_image and convex_hull_object at
// 8192^2.
//
// Floors (4.2 TB/s). Zhang/thin: a sub-iteration over the whole 8192^2 uint8 image reads 64 MiB
// (16 us); the kernel reads only 32x32 tiles next to the last two sub-iterations' changes, so after
// the first few iterations it reads the moving front only. The bytes reported are one full read per
// sub-iteration of the first iteration plus the output (a lower bound of the work, so pct_floor
// reads high); predicted ~3-6 ms for blobs with ~200-400 iterations, launch bound (2 launches per
// iteration, one host check per batch of 4..64 iterations). Convex hull image: one read of the
// image and one write of the bool output (128 MiB for uint8: floor 32 us; predicted ~60 us with the
// single-block hull step). Objects: labelling adds ~6 passes of 8-byte parents (~3 GB: floor
// ~0.8 ms; predicted 1.5-3 ms). Lee 192^3: one detection read of the padded volume per border
// direction (7 MiB, 2 us at the floor) but compute bound on the candidates' tests and bound by two
// host round trips per direction; predicted ~10-15 ms for ~40 sweeps of 6 directions.
#include <benchmark/benchmark.h>

#include "bench/common/cuda_bench.hpp"
#include "cuskimage/morphology.hpp"

namespace morph = cuskimage::morphology;
using cuskimage::Array;
using cuskimage::Device;
using cuskimage::DType;
using cuskimage::Stream;

namespace {

using cuskbench::shape_arg;

/// Blobs: the smooth test image above its mid-level (about half the pixels true).
Array blobs(const cuskimage::Shape& shape, Device dev) {
  const Array f = cuskbench::test_image(shape, DType::float64, Device::cpu());
  Array b = Array::empty(shape, DType::bool_);
  const double* p = f.data<double>();
  bool* q = b.data<bool>();
  for (std::int64_t i = 0; i < f.size(); ++i) q[i] = p[i] > 0.5;
  return b.to(dev);
}

void BM_SkeletonizeZhang_b8(benchmark::State& st) {
  if (!cuskbench::require_gpu(st)) return;
  if (shape_arg(st).size() != 2) {
    st.SkipWithError("Zhang is 2-D");
    return;
  }
  const Array img = blobs(shape_arg(st), Device::cuda());
  cuskbench::run(st, 3.0 * static_cast<double>(img.nbytes()), [&](const Stream& s) { (void)morph::skeletonize(img, {}, s); });
}

void BM_Thin_b8(benchmark::State& st) {
  if (!cuskbench::require_gpu(st)) return;
  if (shape_arg(st).size() != 2) {
    st.SkipWithError("thin is 2-D");
    return;
  }
  const Array img = blobs(shape_arg(st), Device::cuda());
  cuskbench::run(st, 3.0 * static_cast<double>(img.nbytes()), [&](const Stream& s) { (void)morph::thin(img, {}, s); });
}

/// Lee at 192^3 (the 3-D default) on CUDA: detection pass per border direction plus waves over
/// the candidate lists (see kernels/morphology/skeleton_lee.cu).
void BM_SkeletonizeLee3d_b8(benchmark::State& st) {
  if (!cuskbench::require_gpu(st)) return;
  if (shape_arg(st).size() != 3) {
    st.SkipWithError("3-D only");
    return;
  }
  const Array img = blobs(shape_arg(st), Device::cuda());
  cuskbench::run(st, 3.0 * static_cast<double>(img.nbytes()), [&](const Stream& s) { (void)morph::skeletonize(img, {}, s); },
                 1);
}

void BM_ConvexHullImage_b8(benchmark::State& st) {
  if (!cuskbench::require_gpu(st)) return;
  if (shape_arg(st).size() != 2) {
    st.SkipWithError("2-D only");
    return;
  }
  const Array img = blobs(shape_arg(st), Device::cuda());
  cuskbench::run(st, 2.0 * static_cast<double>(img.nbytes()), [&](const Stream& s) { (void)morph::convex_hull_image(img, {}, s); });
}

void BM_ConvexHullObject_b8(benchmark::State& st) {
  if (!cuskbench::require_gpu(st)) return;
  if (shape_arg(st).size() != 2) {
    st.SkipWithError("2-D only");
    return;
  }
  const Array img = blobs(shape_arg(st), Device::cuda());
  cuskbench::run(st, 2.0 * static_cast<double>(img.nbytes()), [&](const Stream& s) { (void)morph::convex_hull_object(img, {}, s); });
}

}  // namespace

BENCHMARK(BM_SkeletonizeZhang_b8)->Arg(0)->Arg(2)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Thin_b8)->Arg(2)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_SkeletonizeLee3d_b8)->Arg(3)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ConvexHullImage_b8)->Arg(2)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ConvexHullObject_b8)->Arg(2)->UseManualTime()->Unit(benchmark::kMillisecond);
