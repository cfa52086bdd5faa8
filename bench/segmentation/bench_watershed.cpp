// segmentation.watershed on the case: 4096^2 -EDT of the benchmark blobs (~35%
// foreground), markers = peak_local_max of the EDT (min_distance 7, labels = the blobs'
// components, border kept) numbered in C order, mask = the blobs. Floor: read the float64 image, the bool
// mask and the int32 markers, write the int32 labels (17 B/pixel: 4096^2 -> 285 MB, 0.06 ms).
// The relaxation (kernels/segmentation/watershed.cu, 32x32 tiles) moves 2 x 32 B of state per pixel and launch
// on top of that, and sweeps each tile until it settles. scikit-image: 2,456 ms (16 cores).
#include <benchmark/benchmark.h>

#include <cstdint>

#include "bench/common/cuda_bench.hpp"
#include "bench/measure/blobs.hpp"
#include "cuskimage/feature.hpp"
#include "cuskimage/measure.hpp"
#include "cuskimage/ndimage.hpp"
#include "cuskimage/segmentation.hpp"

using cuskimage::Array;
using cuskimage::Device;
using cuskimage::DType;
using cuskimage::Shape;
using cuskimage::Stream;

namespace {

struct Case {
  Array image, markers, mask;
};

/// The -EDT of the blobs, their labelled EDT maxima, and the blobs (host arrays).
Case make_case(const Shape& shape) {
  Case c;
  c.mask = cuskbench::blobs(shape, Device::cpu());
  Array dist = cuskimage::ndimage::distance_transform_edt(c.mask).distances;
  cuskimage::measure::LabelOptions lo;
  lo.dtype = DType::int32;
  const Array objects = cuskimage::measure::label(c.mask, lo);
  cuskimage::feature::PeakLocalMaxOptions po;
  po.min_distance = 7;
  po.exclude_border = false;
  po.labels = objects.share();
  const Array coords = cuskimage::feature::peak_local_max(dist, po);
  c.markers = Array::zeros(shape, DType::int32);
  const std::int64_t* q = coords.data<std::int64_t>();
  for (std::int64_t k = 0; k < coords.shape(0); ++k)
    c.markers.data<std::int32_t>()[q[2 * k] * shape[1] + q[2 * k + 1]] = static_cast<std::int32_t>(k + 1);
  double* d = dist.data<double>();
  for (std::int64_t i = 0; i < dist.size(); ++i) d[i] = -d[i];
  c.image = std::move(dist);
  return c;
}

void BM_Watershed_edt_blobs(benchmark::State& st) {
  if (!cuskbench::require_gpu(st)) return;
  const Case h = make_case({4096, 4096});
  const Array img = h.image.to(Device::cuda()), mk = h.markers.to(Device::cuda()), mask = h.mask.to(Device::cuda());
  st.SetLabel("[4096, 4096] -EDT, peak_local_max markers, mask");
  cuskbench::run(st, 17.0 * static_cast<double>(img.size()), [&](const Stream& s) {
    cuskimage::segmentation::WatershedOptions o;
    o.mask = mask.share();
    benchmark::DoNotOptimize(cuskimage::segmentation::watershed(img, mk, o, s));
  });
}

void BM_Cpu_Watershed_edt_blobs(benchmark::State& st) {
  const Case h = make_case({1024, 1024});
  st.SetLabel("[1024, 1024] -EDT, peak_local_max markers, mask");
  cuskbench::run_cpu(st, 17.0 * static_cast<double>(h.image.size()), [&] {
    cuskimage::segmentation::WatershedOptions o;
    o.mask = h.mask.share();
    benchmark::DoNotOptimize(cuskimage::segmentation::watershed(h.image, h.markers, o));
  });
}

}  // namespace

BENCHMARK(BM_Watershed_edt_blobs)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Cpu_Watershed_edt_blobs)->UseManualTime()->Unit(benchmark::kMillisecond);
