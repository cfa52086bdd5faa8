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
//
// medial_axis, 2048^2 blobs (2.30 M foreground pixels), CUDA (kernels/morphology/medial_axis.cu):
// ~0.37 GB of device traffic (foreground list, EDT, keys and neighbour masks, 52 shuffle rounds on
// a list shrinking ~0.7x per round, 2 wave launches, the output): floor ~90 us; the device part
// is launch and round-trip bound (~0.8-1 ms). The host scans numpy's Fisher-Yates draws (~3.2 M
// sequential acceptance tests, ~2.3-3 ms; the generator's outputs come from producer threads) and
// uploads the targets 1 MiB at a time under the scan: predicted ~3.5-4.5 ms in all (first run:
// 11.7 ms with the previous host step; the header of medial_axis.cu has the split). The bytes
// reported are 90 per pixel (the estimate above). BM_MedialAxis_targets_blobs2048 times the host
// step alone (draws + upload, ~2.5-3 ms predicted), BM_MedialAxis_removal_blobs2048 the device part
// after it (~0.8-1 ms predicted); the whole minus both is the foreground, its round trip and the EDT.
// remove_objects_by_distance, labels of 4096^2 blobs (int32: 21 k objects, 3.6 M boundary pixels),
// min_distance 5 and 20, CUDA (kernels/morphology/remove_by_distance.cu): ~0.85 GB (the labels read
// ~4x and written once, the boundary list, the points' sorts and arrays): floor ~0.2 ms; the pair
// search is compute bound (160 / 260 ms on one host core); predicted ~2-4 ms at 5 and ~3-6 ms at 20.
// The CPU backend takes ~2.3 s for either here. The bytes reported are 5 passes over the labels.
#include <benchmark/benchmark.h>

#include "bench/common/cuda_bench.hpp"
#include "cuskimage/measure.hpp"
#include "cuskimage/morphology.hpp"
#include "cuskimage/ndimage.hpp"
#include "src/morphology/medial_axis_ops.hpp"

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
  Array out = b.to(dev);
  // The upload runs on the per-thread stream and the ops on cuskbench::run's non-blocking stream,
  // which does not wait for it: the input must be complete before the first call reads it.
  if (dev.is_cuda()) Stream().synchronize();
  return out;
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

/// medial_axis of 2048^2 blobs on CUDA (return_distance off, seed 0).
void BM_MedialAxis_blobs2048(benchmark::State& st) {
  if (!cuskbench::require_gpu(st)) return;
  const Array img = blobs({2048, 2048}, Device::cuda());
  st.SetLabel("2048x2048");
  cuskbench::run(st, 90.0 * static_cast<double>(img.size()), [&](const Stream& s) { (void)morph::medial_axis(img, {}, s); },
                 1);
}

/// medial_axis' host step alone: numpy's Fisher-Yates targets for the 2048^2 blobs' foreground
/// (~2.30 M pixels) drawn on the host and uploaded piece by piece, as the op does (wall time: the
/// stream is idle while the host draws, so the events time the host).
void BM_MedialAxis_targets_blobs2048(benchmark::State& st) {
  if (!cuskbench::require_gpu(st)) return;
  const Array img = blobs({2048, 2048}, Device::cuda());
  const morph::detail::MedialForeground f = morph::detail::cuda_medial_foreground(img, Array(), Stream());
  st.SetLabel(std::to_string(f.count) + " foreground pixels");
  cuskbench::run(st, 4.0 * static_cast<double>(f.count), [&](const Stream& s) {
    (void)morph::detail::cuda_medial_targets(0, f.count, Device::cuda(), s);
  }, 1);
}

/// medial_axis' device removal alone (the shuffle rounds, keys, entries, waves, output) from a
/// prepared foreground, EDT and targets: BM_MedialAxis_blobs2048 minus this and the targets above
/// is the foreground selection, its count's round trip and the EDT.
void BM_MedialAxis_removal_blobs2048(benchmark::State& st) {
  if (!cuskbench::require_gpu(st)) return;
  const Array img = blobs({2048, 2048}, Device::cuda());
  const Stream prep;
  const morph::detail::MedialForeground f = morph::detail::cuda_medial_foreground(img, Array(), prep);
  const Array dist = cuskimage::ndimage::distance_transform_edt(f.masked, {}, prep).distances;
  const Array targets = morph::detail::cuda_medial_targets(0, f.count, Device::cuda(), prep);
  prep.synchronize();
  st.SetLabel(std::to_string(f.count) + " foreground pixels");
  cuskbench::run(st, 90.0 * static_cast<double>(img.size()), [&](const Stream& s) {
    (void)morph::detail::cuda_medial_axis(img, Array(), f, dist, targets, s);
  }, 1);
}

/// remove_objects_by_distance on the labels of 4096^2 blobs (int32), min_distance = the argument.
void BM_RemoveObjectsByDistance_labels4096(benchmark::State& st) {
  if (!cuskbench::require_gpu(st)) return;
  const Array labels = cuskimage::measure::label(blobs({4096, 4096}, Device::cuda()), {.dtype = DType::int32});
  // measure.label ran on the per-thread stream; the op runs on cuskbench::run's non-blocking
  // stream, which does not wait for it. Unsynchronised, the first call read the labeller's
  // half-written output (its parent array, uninitialised pool memory that the previous benchmark's
  // calls had left behind) and rejected a "negative ID -2147483648".
  Stream().synchronize();
  const double r = static_cast<double>(st.range(0));
  st.SetLabel("4096x4096 min_distance " + std::to_string(st.range(0)));
  cuskbench::run(st, 5.0 * static_cast<double>(labels.nbytes()),
                 [&](const Stream& s) { (void)morph::remove_objects_by_distance(labels, r, {}, s); }, 1);
}

}  // namespace

BENCHMARK(BM_MedialAxis_blobs2048)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_MedialAxis_targets_blobs2048)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_MedialAxis_removal_blobs2048)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_RemoveObjectsByDistance_labels4096)->Arg(5)->Arg(20)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_SkeletonizeZhang_b8)->Arg(0)->Arg(2)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Thin_b8)->Arg(2)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_SkeletonizeLee3d_b8)->Arg(3)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ConvexHullImage_b8)->Arg(2)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ConvexHullObject_b8)->Arg(2)->UseManualTime()->Unit(benchmark::kMillisecond);
