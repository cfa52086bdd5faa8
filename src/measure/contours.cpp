// measure.find_contours: argument handling, the CPU marching-squares pass and the contour assembly
// both backends share. The CUDA backend (kernels/measure/contours.cu) only produces the segments;
// joining them follows scikit-image's _assemble_contours step by step (the same dictionaries keyed
// by exact point coordinates, the same merge rules), so contour order, orientation and every
// coordinate are identical to scikit-image's.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>
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
//
// The same walk over the segments as scikit-image: dictionaries `starts` / `ends` from an open
// contour's first / last point (exact coordinates) to its number, and the same four cases and merge
// rule (the lower-numbered contour absorbs the other). Contours are linked lists of point nodes,
// so every step is O(1) (scikit-image's deque extends are O(length)), and the dictionaries are one
// flat open-addressing table each.

struct Point {
  double r, c;
  bool operator==(const Point& o) const { return r == o.r && c == o.c; }  // NaN never matches
};

/// Point -> contour number, linear probing with backward-shift deletion (no tombstones).
class PointMap {
 public:
  PointMap() { slots_.resize(1024); }

  /// Removes `p` and returns its contour, or -1 when absent (Python's dict.pop(p, None)).
  std::int64_t pop(const Point& p) {
    std::size_t i = find_slot(p);
    if (!slots_[i].used) return -1;
    const std::int64_t v = slots_[i].v;
    erase_at(i);
    return v;
  }
  /// map[p] = v (insert or overwrite).
  void set(const Point& p, std::int64_t v) {
    if (2 * (count_ + 1) > slots_.size()) grow();
    const std::size_t i = find_slot(p);
    if (!slots_[i].used) {
      slots_[i] = {p, v, true};
      ++count_;
    } else {
      slots_[i].v = v;
    }
  }

 private:
  struct Slot {
    Point p;
    std::int64_t v;
    bool used;
  };
  static std::size_t hash(const Point& p) {
    std::uint64_t a, b;
    std::memcpy(&a, &p.r, 8);
    std::memcpy(&b, &p.c, 8);
    std::uint64_t h = a * 0x9E3779B97F4A7C15ull ^ (b + 0x632BE59BD9B4E019ull + (a << 6) + (a >> 2));
    h ^= h >> 31;
    h *= 0xBF58476D1CE4E5B9ull;
    return static_cast<std::size_t>(h ^ (h >> 29));
  }
  std::size_t find_slot(const Point& p) const {
    const std::size_t mask = slots_.size() - 1;
    std::size_t i = hash(p) & mask;
    while (slots_[i].used && !(slots_[i].p == p)) i = (i + 1) & mask;
    return i;
  }
  void erase_at(std::size_t i) {
    const std::size_t mask = slots_.size() - 1;
    slots_[i].used = false;
    --count_;
    for (std::size_t j = (i + 1) & mask; slots_[j].used; j = (j + 1) & mask) {
      const std::size_t home = hash(slots_[j].p) & mask;
      // move j back to the hole i when its home does not lie cyclically in (i, j]
      const bool between = i <= j ? (home > i && home <= j) : (home > i || home <= j);
      if (!between) {
        slots_[i] = slots_[j];
        slots_[j].used = false;
        i = j;
      }
    }
  }
  void grow() {
    std::vector<Slot> old(slots_.size() * 2);
    old.swap(slots_);
    count_ = 0;
    for (const Slot& s : old)
      if (s.used) set(s.p, s.v);
  }
  std::vector<Slot> slots_;
  std::size_t count_ = 0;
};

std::vector<Array> assemble(const std::vector<ContourSegment>& segs, bool reverse) {
  // point nodes (linked lists) and contours (first node, last node, length, alive)
  std::vector<Point> pt;
  std::vector<std::int64_t> next;
  struct Contour {
    std::int64_t first, last, size;
    bool alive;
  };
  std::vector<Contour> cs;
  pt.reserve(segs.size() + 16);
  next.reserve(segs.size() + 16);
  auto node = [&](const Point& p) {
    pt.push_back(p);
    next.push_back(-1);
    return static_cast<std::int64_t>(pt.size()) - 1;
  };
  PointMap starts, ends;
  for (const auto& s : segs) {
    const Point from{s.r0, s.c0}, to{s.r1, s.c1};
    if (from == to) continue;
    const std::int64_t tail = starts.pop(to);
    const std::int64_t head = ends.pop(from);
    if (tail >= 0 && head >= 0) {
      if (tail == head) {  // closes the loop
        Contour& h = cs[head];
        const std::int64_t n = node(to);
        next[h.last] = n;
        h.last = n;
        ++h.size;
      } else if (tail > head) {  // head.extend(tail)
        Contour& h = cs[head];
        Contour& t = cs[tail];
        next[h.last] = t.first;
        h.last = t.last;
        h.size += t.size;
        t.alive = false;
        starts.set(pt[h.first], head);
        ends.set(pt[h.last], head);
      } else {  // tail.extendleft(reversed(head))
        Contour& h = cs[head];
        Contour& t = cs[tail];
        starts.pop(pt[h.first]);  // may equal `to`, already gone
        next[h.last] = t.first;
        t.first = h.first;
        t.size += h.size;
        h.alive = false;
        starts.set(pt[t.first], tail);
        ends.set(pt[t.last], tail);
      }
    } else if (tail < 0 && head < 0) {
      const auto id = static_cast<std::int64_t>(cs.size());
      const std::int64_t a = node(from), b = node(to);
      next[a] = b;
      cs.push_back({a, b, 2, true});
      starts.set(from, id);
      ends.set(to, id);
    } else if (head < 0) {  // tail.appendleft(from)
      Contour& t = cs[tail];
      const std::int64_t n = node(from);
      next[n] = t.first;
      t.first = n;
      ++t.size;
      starts.set(from, tail);
    } else {  // head.append(to)
      Contour& h = cs[head];
      const std::int64_t n = node(to);
      next[h.last] = n;
      h.last = n;
      ++h.size;
      ends.set(to, head);
    }
  }
  std::vector<Array> out;
  for (const Contour& c : cs) {
    if (!c.alive) continue;
    Array a = Array::empty({c.size, 2}, DType::float64);
    double* p = static_cast<double*>(a.data());
    std::int64_t j = reverse ? c.size - 1 : 0;
    for (std::int64_t n = c.first; n >= 0; n = n == c.last ? -1 : next[n]) {
      p[2 * j] = pt[n].r;
      p[2 * j + 1] = pt[n].c;
      j += reverse ? -1 : 1;
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
        [&](const Stream& s) {
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
