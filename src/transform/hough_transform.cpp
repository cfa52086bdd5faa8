// transform.hough_line and transform.hough_circle: argument handling and the CPU backend (scikit-
// image's voting loops). The CUDA backend is kernels/transform/hough.cu; both vote through
// src/transform/hough.hpp, so their accumulators are equal.
#include "cuskimage/transform/hough_transform.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numbers>
#include <string_view>
#include <vector>

#include "src/core/device_guard.hpp"
#include "src/core/dispatch.hpp"
#include "src/core/validate.hpp"
#include "src/transform/hough.hpp"

namespace cuskimage::transform {
namespace detail {

void circle_offsets(std::int64_t radius, std::vector<std::int32_t>& rr, std::vector<std::int32_t>& cc) {
  rr.clear();
  cc.clear();
  std::int64_t r = radius, c = 0, d = 3 - 2 * radius;
  while (r >= c) {
    const std::int32_t a = static_cast<std::int32_t>(r), b = static_cast<std::int32_t>(c);
    rr.insert(rr.end(), {a, -a, a, -a, b, -b, b, -b});
    cc.insert(cc.end(), {b, b, -b, -b, a, a, -a, -a});
    if (d < 0) {
      d += 4 * c + 6;
    } else {
      d += 4 * (c - r) + 10;
      --r;
    }
    ++c;
  }
}

}  // namespace detail

namespace {

using cuskimage::detail::AllTypes;
using cuskimage::detail::expect;

void expect_2d(const Array& image, std::string_view fn) {
  cuskimage::detail::expect_valid(image, fn, "image");
  expect(image.ndim() == 2, fn, "image", "must be 2D, got ", image.ndim(), "-D");
}

template <class T>
void cpu_hough_line(const Array& image, const std::vector<double>& ct, const std::vector<double>& st,
                    std::int64_t offset, Array& hspace) {
  const Array c = image.contiguous();
  const T* v = static_cast<const T*>(c.data());
  auto* acc = static_cast<std::uint64_t*>(hspace.data());
  const std::int64_t rows = c.shape(0), cols = c.shape(1);
  const std::int64_t nt = static_cast<std::int64_t>(ct.size());
  std::fill(acc, acc + hspace.size(), 0);
  for (std::int64_t y = 0; y < rows; ++y)
    for (std::int64_t x = 0; x < cols; ++x) {
      if (!(v[y * cols + x] != T(0))) continue;
      for (std::int64_t j = 0; j < nt; ++j) ++acc[detail::rho_index(ct[j], st[j], x, y, offset) * nt + j];
    }
}

template <class T>
void cpu_hough_circle(const Array& image, const std::vector<std::vector<std::int32_t>>& rr,
                      const std::vector<std::vector<std::int32_t>>& cc, const std::vector<double>& incr,
                      std::int64_t pad, Array& acc) {
  const Array c = image.contiguous();
  const T* v = static_cast<const T*>(c.data());
  double* a = static_cast<double*>(acc.data());
  const std::int64_t rows = c.shape(0), cols = c.shape(1);
  const std::int64_t orows = acc.shape(1), ocols = acc.shape(2);
  std::fill(a, a + acc.size(), 0.0);
  for (std::size_t k = 0; k < rr.size(); ++k) {
    double* plane = a + static_cast<std::int64_t>(k) * orows * ocols;
    for (std::int64_t y = 0; y < rows; ++y)
      for (std::int64_t x = 0; x < cols; ++x) {
        if (!(v[y * cols + x] != T(0))) continue;
        for (std::size_t p = 0; p < rr[k].size(); ++p) {
          const std::int64_t ty = y + pad + rr[k][p], tx = x + pad + cc[k][p];
          if (pad == 0 && (ty < 0 || ty >= rows || tx < 0 || tx >= cols)) continue;
          plane[ty * ocols + tx] += incr[k];
        }
      }
  }
}

}  // namespace

std::vector<double> hough_default_theta() {
  // numpy's linspace: i * step + start, step = (stop - start) / num.
  const double start = -std::numbers::pi / 2, stop = std::numbers::pi / 2;
  const double step = (stop - start) / 180.0;
  std::vector<double> t(180);
  for (int i = 0; i < 180; ++i) t[i] = static_cast<double>(i) * step + start;
  return t;
}

HoughLineResult hough_line(const Array& image, const HoughLineOptions& opts, const Stream& stream) {
  constexpr std::string_view kFn = "transform.hough_line";
  expect_2d(image, kFn);
  HoughLineResult r;
  r.angles = opts.theta.empty() ? hough_default_theta() : opts.theta;
  const std::int64_t rows = image.shape(0), cols = image.shape(1);
  const auto offset = static_cast<std::int64_t>(std::ceil(std::sqrt(static_cast<double>(rows * rows + cols * cols))));
  const std::int64_t nd = 2 * offset + 1;
  r.distances.resize(static_cast<std::size_t>(nd));
  for (std::int64_t i = 0; i < nd; ++i) r.distances[i] = static_cast<double>(i - offset);
  std::vector<double> ct(r.angles.size()), st(r.angles.size());
  for (std::size_t j = 0; j < ct.size(); ++j) {
    ct[j] = std::cos(r.angles[j]);
    st[j] = std::sin(r.angles[j]);
  }
  const auto nt = static_cast<std::int64_t>(ct.size());
  r.hspace = Array::empty({nd, nt}, DType::uint64, image.device(), stream);
  cuskimage::detail::dispatch<AllTypes>(image.dtype(), kFn, [&]<class T>() {
    cuskimage::detail::on_backend(
        image, stream, [&] { cpu_hough_line<T>(image, ct, st, offset, r.hspace); },
        [&](auto /*handle*/) {
          const Array dc = Array::from_vector(ct, {nt}).to(image.device(), stream);
          const Array ds = Array::from_vector(st, {nt}).to(image.device(), stream);
          detail::cuda_hough_line<T>(image.contiguous(stream), dc, ds, offset, r.hspace, stream);
        });
  });
  return r;
}

Array hough_circle(const Array& image, const std::vector<std::int64_t>& radius, const HoughCircleOptions& opts,
                   const Stream& stream) {
  constexpr std::string_view kFn = "transform.hough_circle";
  expect_2d(image, kFn);
  expect(!radius.empty(), kFn, "radius", "must hold at least one radius");
  for (std::int64_t r : radius)
    expect(r >= 0 && r <= (std::int64_t(1) << 30), kFn, "radius", "must be non-negative, got ", r);
  const std::int64_t pad = opts.full_output ? *std::max_element(radius.begin(), radius.end()) : 0;
  const auto nr = static_cast<std::int64_t>(radius.size());
  std::vector<std::vector<std::int32_t>> rr(radius.size()), cc(radius.size());
  std::vector<double> incr(radius.size());
  for (std::size_t k = 0; k < radius.size(); ++k) {
    detail::circle_offsets(radius[k], rr[k], cc[k]);
    incr[k] = opts.normalize ? 1.0 / static_cast<double>(rr[k].size()) : 1.0;
  }
  Array acc = Array::empty({nr, image.shape(0) + 2 * pad, image.shape(1) + 2 * pad}, DType::float64, image.device(),
                           stream);
  cuskimage::detail::dispatch<AllTypes>(image.dtype(), kFn, [&]<class T>() {
    cuskimage::detail::on_backend(
        image, stream, [&] { cpu_hough_circle<T>(image, rr, cc, incr, pad, acc); },
        [&](auto /*handle*/) {
          std::vector<std::int32_t> fr, fc;
          std::vector<std::int64_t> begin{0};
          for (std::size_t k = 0; k < rr.size(); ++k) {
            fr.insert(fr.end(), rr[k].begin(), rr[k].end());
            fc.insert(fc.end(), cc[k].begin(), cc[k].end());
            begin.push_back(static_cast<std::int64_t>(fr.size()));
          }
          const auto up32 = [&](const std::vector<std::int32_t>& w) {
            return Array::from_vector(w, {static_cast<std::int64_t>(w.size())}).to(image.device(), stream);
          };
          const Array dr = up32(fr), dcc = up32(fc);
          const Array db = Array::from_vector(begin, {nr + 1}).to(image.device(), stream);
          const Array di = Array::from_vector(incr, {nr}).to(image.device(), stream);
          detail::cuda_hough_circle<T>(image.contiguous(stream), dr, dcc, db, di, pad, acc, stream);
        });
  });
  return acc;
}

}  // namespace cuskimage::transform
