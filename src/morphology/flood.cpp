// skimage.morphology.flood / flood_fill. CPU: scikit-image's breadth-first fill from the seed
// through the footprint's offsets (each pixel p reaches p + o) on a padded grid whose border is
// never entered. CUDA: the in-tolerance mask and the seed pixel (recon_flood.cu), then
// reconstruction's propagation on uint8 from the seed under that mask, which reaches exactly the
// pixels the breadth-first fill reaches (same directed offsets).
#include <cstring>
#include <deque>

#include "cuskimage/morphology.hpp"
#include "src/core/backend.hpp"
#include "src/core/device_guard.hpp"
#include "src/core/dispatch.hpp"
#include "src/core/elementwise.hpp"
#include "src/core/validate.hpp"
#include "src/morphology/recon_common.hpp"
#include "src/morphology/recon_flood.hpp"

namespace cuskimage::morphology {

using cuskimage::detail::expect;
namespace cd = cuskimage::detail;

namespace {

using FloodTypes = cd::Types<bool, std::uint8_t, std::uint16_t, std::int32_t, float, double>;

struct FloodSetup {
  std::vector<detail::Offset> offsets;  // p reaches p + o
  Shape pad;                            // per-axis reach of the footprint
  std::int64_t seed = 0;                // flat C-order index of the seed in the image
};

FloodSetup setup(std::string_view fn, const Array& image, const std::vector<std::int64_t>& seed_point,
                 const FloodOptions& o) {
  cd::expect_valid(image, fn, "image");
  cd::dispatch<FloodTypes>(image.dtype(), fn, []<class T>() {});
  const int nd = image.ndim();
  expect(nd >= 1, fn, "image", "must have at least one dimension, got 0");
  if (!image.device().is_cpu())
    expect(nd <= 3, fn, "image", "must be 1-, 2- or 3-D on a CUDA device, got ", nd, "-D");
  expect(static_cast<int>(seed_point.size()) == nd, fn, "seed_point", "must have one index per dimension (", nd,
         "), got ", seed_point.size());
  FloodSetup s;
  for (int d = 0; d < nd; ++d) {
    const std::int64_t n = image.shape()[d], i = seed_point[d];
    expect(i >= -n && i < n, fn, "seed_point", "index ", i, " is out of bounds for axis ", d, " with size ", n);
    s.seed = s.seed * n + (i < 0 ? i + n : i);
  }
  Array fp;
  if (o.footprint.valid()) {
    fp = detail::footprint_bool(fn, o.footprint, nd);
    for (auto e : fp.shape()) expect(e % 2 == 1, fn, "footprint", "size must be odd along all dimensions, got shape ", shape_str(fp.shape()));
  } else {
    fp = detail::binary_structure(nd, o.connectivity == 0 ? nd : o.connectivity);
  }
  detail::Offset centre(nd);
  for (int d = 0; d < nd; ++d) centre[d] = fp.shape()[d] / 2;
  const auto all = detail::true_offsets(fp, centre);
  expect(!all.empty(), fn, "footprint", "must have a non-zero element");
  s.pad.assign(nd, 0);
  for (const auto& off : all)
    for (int d = 0; d < nd; ++d) s.pad[d] = std::max(s.pad[d], std::abs(off[d]));
  s.offsets = detail::neighbour_offsets(fp, centre);
  return s;
}

template <class T>
Array cpu_flood(const Array& image, const FloodSetup& s, const FloodOptions& o) {
  const detail::PaddedGrid G(image.shape(), s.pad, s.pad);
  const Array img = image.contiguous();
  const T* ip = img.data<T>();
  const std::vector<std::int64_t> in = G.interior();
  std::vector<T> P(static_cast<std::size_t>(G.size()), T{});
  std::vector<std::uint8_t> flags(P.size(), 2);  // 2: border, never entered
  for (std::size_t i = 0; i < in.size(); ++i) {
    P[in[i]] = ip[i];
    flags[in[i]] = 0;
  }
  const auto pred = detail::FloodPredicate<T>::make(ip[s.seed], o.tolerance.has_value(), o.tolerance.value_or(0.0));
  std::vector<std::int64_t> deltas;
  for (const auto& off : s.offsets) deltas.push_back(G.delta(off));
  std::deque<std::int64_t> q{in[s.seed]};
  flags[in[s.seed]] = 1;
  while (!q.empty()) {
    const std::int64_t cur = q.front();
    q.pop_front();
    for (auto d : deltas) {
      const std::int64_t nb = cur + d;
      if (flags[nb] == 0 && pred(P[nb])) {
        flags[nb] = 1;
        q.push_back(nb);
      }
    }
  }
  Array out = Array::empty(image.shape(), DType::bool_);
  bool* op = out.data<bool>();
  for (std::size_t i = 0; i < in.size(); ++i) op[i] = flags[in[i]] == 1;
  return out;
}

Array flood_impl(std::string_view fn, const Array& image, const std::vector<std::int64_t>& seed_point,
                 const FloodOptions& o, const Stream& stream) {
  if (image.valid() && image.size() == 0) {
    // scikit-image returns an empty mask before looking at the seed.
    cd::dispatch<FloodTypes>(image.dtype(), fn, []<class T>() {});
    return Array::zeros(image.shape(), DType::bool_, image.device(), stream);
  }
  const FloodSetup s = setup(fn, image, seed_point, o);
  return cd::dispatch<FloodTypes>(image.dtype(), fn, [&]<class T>() {
    return cd::on_backend(
        image, stream, [&] { return cpu_flood<T>(image, s, o); },
        [&](const Stream& cs) {
          const Array img = image.contiguous(stream);
          Array rec = Array::empty(image.shape(), DType::uint8, image.device(), stream);
          Array mask = Array::empty(image.shape(), DType::uint8, image.device(), stream);
          detail::cuda_flood_init<T>(img, rec, mask, s.seed, o.tolerance.has_value(), o.tolerance.value_or(0.0), cs);
          detail::cuda_propagate<std::uint8_t>(rec, mask, detail::offsets3(s.offsets), true, stream);
          return rec.astype(DType::bool_, stream);
        });
  });
}

}  // namespace

Array flood(const Array& image, const std::vector<std::int64_t>& seed_point, const FloodOptions& o, const Stream& s) {
  return flood_impl("morphology.flood", image, seed_point, o, s);
}

Array flood_fill(const Array& image, const std::vector<std::int64_t>& seed_point, double new_value,
                 const FloodOptions& o, const Stream& stream) {
  constexpr std::string_view fn = "morphology.flood_fill";
  const Array mask = flood_impl(fn, image, seed_point, o, stream);
  Array out = o.in_place ? image.share() : image.copy(stream);
  if (out.size() == 0) return out;
  unsigned char bytes[8];
  cd::element_from_double(image.dtype(), new_value, bytes);
  cd::dispatch<FloodTypes>(image.dtype(), fn, [&]<class T>() {
    T v;
    std::memcpy(&v, bytes, sizeof(T));
    cd::on_backend(
        image, stream, [&] { cd::cpu_map2<T, bool, T>(out, mask, out, detail::MaskedFill<T>{v}); },
        [&](const Stream& cs) { detail::cuda_masked_fill<T>(out, mask, out, v, cs); });
  });
  return out;
}

}  // namespace cuskimage::morphology
