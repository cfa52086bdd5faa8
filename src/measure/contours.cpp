// measure.find_contours: argument handling, the CPU marching-squares pass and the contour assembly
// both backends share. The CUDA backend (kernels/measure/contours.cu) only produces the segments;
// joining them follows scikit-image's _assemble_contours step by step (the same dictionaries keyed
// by exact point coordinates, the same merge rules), so contour order, orientation and every
// coordinate are identical to scikit-image's.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <deque>
#include <type_traits>
#include <unordered_map>
#include <vector>

#include "cuskimage/measure.hpp"
#include "src/core/device_guard.hpp"
#include "src/core/dispatch.hpp"
#include "src/core/validate.hpp"
#include "src/measure/contours.hpp"
#include "src/util/backend.hpp"

namespace cuskimage::measure {
namespace {

using cuskimage::detail::AllTypes;
using cuskimage::detail::expect;
using detail::ContourSegment;

constexpr std::string_view kFn = "measure.find_contours";

/// (nanmin + nanmax) / 2 with NumPy's scalar arithmetic in the image's dtype: integer sums wrap,
/// bool sums are a logical or, float32 stays float32 until the end.
template <class T>
double default_level(T lo, T hi) {
  if constexpr (std::is_same_v<T, bool>) {
    return (lo || hi) ? 0.5 : 0.0;
  } else if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    const T sum = static_cast<T>(static_cast<U>(static_cast<U>(lo) + static_cast<U>(hi)));
    return static_cast<double>(sum) / 2.0;
  } else {
    return static_cast<double>(static_cast<T>(static_cast<T>(lo + hi) / T(2)));
  }
}

template <class T>
std::vector<ContourSegment> cpu_segments(const Array& image, const Array& mask, double level, bool high) {
  const Array img = image.contiguous();
  const T* v = static_cast<const T*>(img.data());
  const Array m = mask.valid() ? mask.contiguous() : Array();
  const bool* mk = m.valid() ? static_cast<const bool*>(m.data()) : nullptr;
  const std::int64_t rows = img.shape(0), cols = img.shape(1);
  std::vector<ContourSegment> segs;
  ContourSegment out[2];
  for (std::int64_t r = 0; r + 1 < rows; ++r) {
    for (std::int64_t c = 0; c + 1 < cols; ++c) {
      const std::int64_t i = r * cols + c;
      if (mk && !(mk[i] && mk[i + 1] && mk[i + cols] && mk[i + cols + 1])) continue;
      const double ul = static_cast<double>(v[i]), ur = static_cast<double>(v[i + 1]);
      const double ll = static_cast<double>(v[i + cols]), lr = static_cast<double>(v[i + cols + 1]);
      if (std::isnan(ul) || std::isnan(ur) || std::isnan(ll) || std::isnan(lr)) continue;
      const int n = detail::contour_cell(ul, ur, ll, lr, r, c, level, high, out);
      for (int k = 0; k < n; ++k) segs.push_back(out[k]);
    }
  }
  return segs;
}

// ---- assembly (scikit-image's _assemble_contours) ------------------------------------------------

struct Point {
  double r, c;
  bool operator==(const Point& o) const { return r == o.r && c == o.c; }  // NaN never matches
};

struct PointHash {
  std::size_t operator()(const Point& p) const {
    std::uint64_t a, b;
    std::memcpy(&a, &p.r, 8);
    std::memcpy(&b, &p.c, 8);
    std::uint64_t h = a * 0x9E3779B97F4A7C15ull ^ (b + 0x632BE59BD9B4E019ull + (a << 6) + (a >> 2));
    h ^= h >> 31;
    h *= 0xBF58476D1CE4E5B9ull;
    return static_cast<std::size_t>(h ^ (h >> 29));
  }
};

std::vector<Array> assemble(const std::vector<ContourSegment>& segs, bool reverse) {
  std::vector<std::deque<Point>> contours;
  std::vector<char> alive;
  std::unordered_map<Point, std::int64_t, PointHash> starts, ends;
  starts.reserve(segs.size() / 4 + 16);
  ends.reserve(segs.size() / 4 + 16);
  auto pop = [](auto& map, const Point& p) -> std::int64_t {
    auto it = map.find(p);
    if (it == map.end()) return -1;
    const std::int64_t id = it->second;
    map.erase(it);
    return id;
  };
  for (const auto& s : segs) {
    const Point from{s.r0, s.c0}, to{s.r1, s.c1};
    if (from == to) continue;
    const std::int64_t tail = pop(starts, to);
    const std::int64_t head = pop(ends, from);
    if (tail >= 0 && head >= 0) {
      if (tail == head) {
        contours[head].push_back(to);  // closes the loop
      } else if (tail > head) {
        auto& h = contours[head];
        auto& t = contours[tail];
        h.insert(h.end(), t.begin(), t.end());
        t.clear();
        alive[tail] = 0;
        starts[h.front()] = head;
        ends[h.back()] = head;
      } else {
        auto& h = contours[head];
        auto& t = contours[tail];
        t.insert(t.begin(), h.begin(), h.end());
        starts.erase(h.front());  // may equal `to`, already gone
        h.clear();
        alive[head] = 0;
        starts[t.front()] = tail;
        ends[t.back()] = tail;
      }
    } else if (tail < 0 && head < 0) {
      const auto id = static_cast<std::int64_t>(contours.size());
      contours.push_back(std::deque<Point>{from, to});
      alive.push_back(1);
      starts[from] = id;
      ends[to] = id;
    } else if (head < 0) {
      contours[tail].push_front(from);
      starts[from] = tail;
    } else {
      contours[head].push_back(to);
      ends[to] = head;
    }
  }
  std::vector<Array> out;
  for (std::size_t id = 0; id < contours.size(); ++id) {
    if (!alive[id]) continue;
    const auto& c = contours[id];
    const auto k = static_cast<std::int64_t>(c.size());
    Array a = Array::empty({k, 2}, DType::float64);
    double* p = static_cast<double*>(a.data());
    for (std::int64_t j = 0; j < k; ++j) {
      const Point& q = c[static_cast<std::size_t>(reverse ? k - 1 - j : j)];
      p[2 * j] = q.r;
      p[2 * j + 1] = q.c;
    }
    out.push_back(std::move(a));
  }
  return out;
}

}  // namespace

std::vector<Array> find_contours(const Array& image, const FindContoursOptions& opts, const Stream& stream) {
  cuskimage::detail::expect_valid(image, kFn, "image");
  expect(image.ndim() == 2, kFn, "image", "must be 2-D (only 2D arrays are supported), got ndim ", image.ndim());
  expect(image.shape(0) >= 2 && image.shape(1) >= 2, kFn, "image", "must be at least 2x2, got shape ",
         shape_str(image.shape()));
  Array mask;
  if (opts.mask.valid()) {
    cuskimage::detail::expect_same_shape(image, opts.mask, kFn, "image", "mask");
    cuskimage::detail::expect_same_device(image, opts.mask, kFn, "image", "mask");
    expect(opts.mask.dtype() == DType::bool_, kFn, "mask", "must be a binary (bool) array, got dtype ",
           dtype_name(opts.mask.dtype()));
    mask = opts.mask.share();
  }
  const bool high = opts.fully_connected == LowHigh::high;
  const bool reverse = opts.positive_orientation == LowHigh::high;
  std::vector<ContourSegment> segs;
  cuskimage::detail::dispatch<AllTypes>(image.dtype(), kFn, [&]<class T>() {
    double level = 0.0;
    cuskimage::detail::on_backend(
        image, stream,
        [&] {
          if (opts.level) {
            level = *opts.level;
          } else {
            const auto mm = util::detail::cpu_minmax<T>(image, 1)[0];
            level = mm.lo > mm.hi ? std::nan("") : default_level<T>(mm.lo, mm.hi);
          }
          segs = cpu_segments<T>(image, mask, level, high);
        },
        [&](cudaStream_t s) {
          if (opts.level) {
            level = *opts.level;
          } else {
            const auto mm = util::detail::cuda_minmax<T>(image, 1, s)[0];
            level = mm.lo > mm.hi ? std::nan("") : default_level<T>(mm.lo, mm.hi);
          }
          const Array img = image.contiguous(stream);
          const Array m = mask.valid() ? mask.contiguous(stream) : Array();
          segs = detail::cuda_contour_segments<T>(img, m, level, high, s);
        });
  });
  return assemble(segs, reverse);
}

}  // namespace cuskimage::measure
