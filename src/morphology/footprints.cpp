// skimage.morphology.footprints: footprint arrays and their decompositions, on the host.
//
// Every shape is written as the closed-form membership test it reduces to, checked against
// scikit-image 0.26 over the golden ranges (tests/morphology/test_footprints.cpp):
//  - octagon/star: scikit-image takes convex_hull_image of a few corner pixels, which offsets each
//    pixel by half a pixel (a diamond); the hull then has only axis and 45-degree edges lying on
//    half-integers, so no pixel centre is ever on the boundary and the hull is a set of linear
//    inequalities.
//  - ellipse: skimage.draw.ellipse(h, w, h + 1, w + 1) evaluated with the same float operations.
//  - footprint_from_sequence: scikit-image's dilation of a centre pixel (scipy grey_dilation,
//    mode 'reflect'), emulated exactly including the reflection at the borders.
#include <algorithm>
#include <cstring>
#include <functional>
#include <string>
#include <utility>

#include "cuskimage/morphology.hpp"
#include "src/core/validate.hpp"
#include "src/morphology/footprints_tables.hpp"

namespace cuskimage::morphology {

using detail::expect;
using Index = std::vector<std::int64_t>;

// ---- Decomposition ------------------------------------------------------------------------------

std::string_view decomposition_name(Decomposition d) {
  switch (d) {
    case Decomposition::none: return "None";
    case Decomposition::sequence: return "sequence";
    case Decomposition::separable: return "separable";
    case Decomposition::crosses: return "crosses";
  }
  return "?";
}

Decomposition decomposition_from_name(std::string_view name) {
  if (name == "None" || name == "none") return Decomposition::none;
  if (name == "sequence") return Decomposition::sequence;
  if (name == "separable") return Decomposition::separable;
  if (name == "crosses") return Decomposition::crosses;
  detail::fail("morphology.decomposition_from_name",
               "argument 'decomposition' must be one of None, 'sequence', 'separable', 'crosses', got '", name,
               "'");
}

// ---- Footprint ----------------------------------------------------------------------------------

Footprint::Footprint(Array footprint) : array_(std::move(footprint)) {}
Footprint::Footprint(std::vector<FootprintElement> sequence) : is_sequence_(true), sequence_(std::move(sequence)) {}

const Array& Footprint::array() const {
  if (is_sequence_) throw InvalidArgument("morphology.Footprint::array: the footprint is a sequence");
  return array_;
}

const std::vector<FootprintElement>& Footprint::sequence() const {
  if (!is_sequence_) throw InvalidArgument("morphology.Footprint::sequence: the footprint is a single array");
  return sequence_;
}

int Footprint::ndim() const {
  if (!is_sequence_) return array_.ndim();
  return sequence_.empty() ? 0 : sequence_.front().footprint.ndim();
}

Shape Footprint::shape() const {
  if (!is_sequence_) return array_.shape();
  if (sequence_.empty()) return {};
  // The first element contributes its size once plus (n - 1) growths; later ones n growths each.
  const int nd = ndim();
  Shape shape(nd, 0);
  for (std::size_t i = 0; i < sequence_.size(); ++i) {
    const auto& el = sequence_[i];
    for (int d = 0; d < nd; ++d) {
      const std::int64_t s = el.footprint.shape(d);
      shape[d] += i == 0 ? s + (el.num_iter - 1) * (s - 1) : el.num_iter * (s - 1);
    }
  }
  return shape;
}

Footprint Footprint::share() const {
  if (!is_sequence_) return Footprint(array_.share());
  std::vector<FootprintElement> seq;
  for (const auto& el : sequence_) seq.push_back({el.footprint.share(), el.num_iter});
  return Footprint(std::move(seq));
}

namespace {

// ---- helpers --------------------------------------------------------------------------------------

/// A host array of `shape` holding pred(index) as 0/1, converted to `dtype`.
Array make(const Shape& shape, DType dtype, const std::function<bool(const Index&)>& pred) {
  Array a = Array::empty(shape, DType::uint8);
  auto* p = a.data<std::uint8_t>();
  const std::int64_t n = a.size();
  Index idx(shape.size(), 0);
  for (std::int64_t i = 0; i < n; ++i) {
    p[i] = pred(idx) ? 1 : 0;
    for (int d = static_cast<int>(shape.size()) - 1; d >= 0; --d) {  // C-order increment
      if (++idx[d] < shape[d]) break;
      idx[d] = 0;
    }
  }
  return dtype == DType::uint8 ? std::move(a) : a.astype(dtype);
}

Array ones(const Shape& shape, DType dtype) {
  return make(shape, dtype, [](const Index&) { return true; });
}

/// scikit-image's _decompose_size: repetitions of a `kernel` wide element that reach `size`
/// (Python floor division, so size 1 gives 0).
std::int64_t decompose_size(std::int64_t size, std::int64_t kernel = 3) {
  const std::int64_t num = size - kernel, den = kernel - 1;
  const std::int64_t q = num / den - ((num % den != 0) && ((num < 0) != (den < 0)) ? 1 : 0);
  return 1 + q;
}

void expect_decomposition(std::string_view fn, Decomposition d, std::initializer_list<Decomposition> allowed) {
  for (Decomposition a : allowed)
    if (a == d) return;
  std::string list;
  for (Decomposition a : allowed) {
    if (!list.empty()) list += ", ";
    if (a == Decomposition::none) {
      list += "None";
    } else {
      list += '\'';
      list += decomposition_name(a);
      list += '\'';
    }
  }
  detail::fail(fn, "argument 'decomposition' must be one of ", list, ", got '", decomposition_name(d), "'");
}

void expect_nonnegative(std::string_view fn, std::string_view arg, std::int64_t v) {
  expect(v >= 0, fn, arg, "must be >= 0, got ", v);
}

/// Sum of squares of the offsets from the centre of a (2r+1)^n box.
std::int64_t sq_dist(const Index& idx, std::int64_t r) {
  std::int64_t s = 0;
  for (auto i : idx) s += (i - r) * (i - r);
  return s;
}

std::int64_t l1_dist(const Index& idx, std::int64_t r) {
  std::int64_t s = 0;
  for (auto i : idx) s += std::abs(i - r);
  return s;
}

/// Euclidean n-sphere; strict_radius=false compares with (r + 0.5)^2 (exact in double).
Array nsphere(std::int64_t r, int ndim, DType dtype, bool strict) {
  const double limit = strict ? static_cast<double>(r * r) : (r + 0.5) * (r + 0.5);
  return make(Shape(ndim, 2 * r + 1), dtype,
              [&](const Index& i) { return static_cast<double>(sq_dist(i, r)) <= limit; });
}

/// np.rot90(a, 1) of a 3x3 array: out[i][j] = a[j][2 - i].
Array rot90_3x3(const Array& a) {
  Array out = Array::empty({3, 3}, a.dtype());
  const std::size_t sz = a.itemsize();
  const auto* src = static_cast<const unsigned char*>(a.data());
  auto* dst = static_cast<unsigned char*>(out.data());
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) std::memcpy(dst + (i * 3 + j) * sz, src + (j * 3 + (2 - i)) * sz, sz);
  return out;
}

/// scikit-image's _nsphere_series_decomposition: T-shaped series, cross and square elements with
/// the repetitions of its precomputed table (footprints_tables.hpp).
Footprint nsphere_sequence(std::string_view fn, std::int64_t radius, int ndim, DType dtype) {
  std::vector<FootprintElement> seq;
  if (radius == 1) {
    seq.push_back({nsphere(1, ndim, dtype, false), 1});
    return Footprint(std::move(seq));
  }
  const int rows = ndim == 2 ? footprint_tables::kDiskDecompositionRows : footprint_tables::kBallDecompositionRows;
  expect(radius < rows, fn, "radius", "must be <= ", rows - 1, " (precomputed ", ndim,
         "-D 'sequence' decompositions), got ", radius);
  const std::uint8_t* row = ndim == 2 ? footprint_tables::kDiskDecompositions[radius] : footprint_tables::kBallDecompositions[radius];
  const std::int64_t num_t = row[0], num_cross = row[1], num_square = row[2];
  const Shape box(ndim, 3);
  if (num_t > 0) {
    if (ndim == 2) {
      // The 2-D series in scikit-image's order: the T and its rotations by 90, 180, 270 degrees.
      Array t = make(box, dtype, [](const Index& i) { return i[0] == 0 || i[1] == 1; });
      for (int k = 0; k < 4; ++k) {
        Array next = rot90_3x3(t);
        seq.push_back({std::move(t), num_t});
        t = std::move(next);
      }
    } else {
      // One face plane on each side of each axis plus the centre line along that axis.
      for (int ax = 0; ax < ndim; ++ax)
        for (std::int64_t face : {0, 2})
          seq.push_back({make(box, dtype,
                              [&](const Index& i) {
                                if (i[ax] == face) return true;
                                for (int d = 0; d < ndim; ++d)
                                  if (d != ax && i[d] != 1) return false;
                                return true;
                              }),
                         num_t});
    }
  }
  if (num_cross > 0)
    seq.push_back({make(box, dtype,
                        [&](const Index& i) {
                          int off = 0;
                          for (auto v : i) off += v != 1;
                          return off <= 1;
                        }),
                   num_cross});
  if (num_square > 0) seq.push_back({ones(box, dtype), num_square});
  return Footprint(std::move(seq));
}

/// scikit-image's _cross_decomposition of a symmetric convex 2-D footprint into crosses (always
/// uint8, as scikit-image does not pass the dtype on).
Footprint cross_decomposition(const Array& fp) {
  const std::int64_t h = fp.shape(0), w = fp.shape(1), r0 = h / 2, c0 = w / 2;
  const auto* p = fp.data<std::uint8_t>();
  std::vector<std::int64_t> col_sums;
  for (std::int64_t c = c0; c < w; ++c) {
    std::int64_t s = 0;
    for (std::int64_t r = r0; r < h; ++r) s += p[r * w + c] != 0;
    col_sums.push_back(s);
  }
  col_sums.push_back(0);
  // (r0, r1) -> count, in first-insertion order like a Python dict.
  std::vector<std::pair<std::pair<std::int64_t, std::int64_t>, std::int64_t>> idx;
  auto bump = [&](std::pair<std::int64_t, std::int64_t> key) {
    for (auto& kv : idx)
      if (kv.first == key) {
        ++kv.second;
        return;
      }
    idx.push_back({key, 1});
  };
  std::int64_t i_prev = 0, sum0 = 0;
  for (std::size_t i = 0; i + 1 < col_sums.size(); ++i) {
    if (col_sums[i] > col_sums[i + 1]) {
      if (i == 0) continue;
      const std::pair<std::int64_t, std::int64_t> key{col_sums[i_prev] - col_sums[i],
                                                      static_cast<std::int64_t>(i) - i_prev};
      sum0 += key.first;
      bump(key);
      i_prev = static_cast<std::int64_t>(i);
    }
  }
  const std::int64_t n = (h - r0) - 1 - sum0;
  if (n > 0) bump({n, 0});
  std::vector<FootprintElement> seq;
  for (const auto& [key, count] : idx) {
    const auto [a, b] = key;
    seq.push_back({make({2 * a + 1, 2 * b + 1}, DType::uint8,
                        [&](const Index& i) { return (b != 0 && i[0] == a) || (a != 0 && i[1] == b); }),
                   count});
  }
  return Footprint(std::move(seq));
}

/// Byte-wise copy of `a` on the host, contiguous.
Array host_contiguous(const Array& a) { return a.to(Device::cpu()).contiguous(); }

}  // namespace

// ---- shapes -------------------------------------------------------------------------------------

Footprint disk(std::int64_t radius, const SphereOptions& o) {
  constexpr std::string_view fn = "morphology.disk";
  expect_nonnegative(fn, "radius", radius);
  expect_decomposition(fn, o.decomposition, {Decomposition::none, Decomposition::sequence, Decomposition::crosses});
  if (o.decomposition == Decomposition::sequence) return nsphere_sequence(fn, radius, 2, o.dtype);
  Array fp = nsphere(radius, 2, o.decomposition == Decomposition::none ? o.dtype : DType::uint8, o.strict_radius);
  if (o.decomposition == Decomposition::crosses) return cross_decomposition(fp);
  return Footprint(std::move(fp));
}

Footprint ball(std::int64_t radius, const SphereOptions& o) {
  constexpr std::string_view fn = "morphology.ball";
  expect_nonnegative(fn, "radius", radius);
  expect_decomposition(fn, o.decomposition, {Decomposition::none, Decomposition::sequence});
  if (o.decomposition == Decomposition::sequence) return nsphere_sequence(fn, radius, 3, o.dtype);
  return Footprint(nsphere(radius, 3, o.dtype, o.strict_radius));
}

Footprint diamond(std::int64_t radius, const FootprintOptions& o) {
  constexpr std::string_view fn = "morphology.diamond";
  expect_nonnegative(fn, "radius", radius);
  expect_decomposition(fn, o.decomposition, {Decomposition::none, Decomposition::sequence});
  if (o.decomposition == Decomposition::sequence) {
    std::vector<FootprintElement> seq;
    seq.push_back({diamond(1, {.dtype = o.dtype}).array().share(), decompose_size(2 * radius + 1)});
    return Footprint(std::move(seq));
  }
  return Footprint(make({2 * radius + 1, 2 * radius + 1}, o.dtype,
                        [&](const Index& i) { return l1_dist(i, radius) <= radius; }));
}

Footprint octahedron(std::int64_t radius, const FootprintOptions& o) {
  constexpr std::string_view fn = "morphology.octahedron";
  expect_nonnegative(fn, "radius", radius);
  expect_decomposition(fn, o.decomposition, {Decomposition::none, Decomposition::sequence});
  if (o.decomposition == Decomposition::sequence) {
    std::vector<FootprintElement> seq;
    seq.push_back({octahedron(1, {.dtype = o.dtype}).array().share(), decompose_size(2 * radius + 1)});
    return Footprint(std::move(seq));
  }
  return Footprint(make(Shape(3, 2 * radius + 1), o.dtype, [&](const Index& i) { return l1_dist(i, radius) <= radius; }));
}

Footprint octagon(std::int64_t m, std::int64_t n, const FootprintOptions& o) {
  constexpr std::string_view fn = "morphology.octagon";
  expect_nonnegative(fn, "m", m);
  expect_nonnegative(fn, "n", n);
  expect(m != 0 || n != 0, fn, "m", "and 'n' cannot both be zero, got m=0, n=0");
  expect_decomposition(fn, o.decomposition, {Decomposition::none, Decomposition::sequence});
  if (o.decomposition == Decomposition::none) {
    // Corner cut: the slanted edges pass through the nearer of the side's two end pixels.
    const std::int64_t s = m + 2 * n, a = std::min(n, m + n - 1), e = s - 1;
    return Footprint(make({s, s}, o.dtype, [&](const Index& i) {
      const std::int64_t r = i[0], c = i[1];
      return r + c >= a && r + (e - c) >= a && (e - r) + c >= a && (e - r) + (e - c) >= a;
    }));
  }
  std::vector<FootprintElement> seq;
  if (m <= 2 && n <= 2) {
    seq.push_back({octagon(m, n, {.dtype = o.dtype}).array().share(), 1});
    return Footprint(std::move(seq));
  }
  if (m == 0) {
    m = 2;
    n -= 1;
  }
  if (m > 1) {
    Footprint sq = footprint_rectangle({m, m}, {.dtype = o.dtype, .decomposition = Decomposition::sequence});
    for (const auto& el : sq.sequence()) seq.push_back({el.footprint.share(), el.num_iter});
  }
  if (n > 0) seq.push_back({diamond(1, {.dtype = o.dtype}).array().share(), n});
  return Footprint(std::move(seq));
}

Array star(std::int64_t a, DType dtype) {
  constexpr std::string_view fn = "morphology.star";
  expect_nonnegative(fn, "a", a);
  if (a == 1) return ones({3, 3}, dtype);
  const std::int64_t m = 2 * a + 1, n = a / 2, s = m + 2 * n, c = (s - 1) / 2;
  // The square of side m, united with the diamond touching the array's edge midpoints.
  return make({s, s}, dtype, [&](const Index& i) {
    const bool in_square = i[0] >= n && i[0] < m + n && i[1] >= n && i[1] < m + n;
    return in_square || std::abs(i[0] - c) + std::abs(i[1] - c) <= c;
  });
}

Footprint ellipse(std::int64_t width, std::int64_t height, const FootprintOptions& o) {
  constexpr std::string_view fn = "morphology.ellipse";
  expect_nonnegative(fn, "width", width);
  expect_nonnegative(fn, "height", height);
  expect_decomposition(fn, o.decomposition, {Decomposition::none, Decomposition::crosses});
  // draw.ellipse with radii (h + 1, w + 1): strictly inside, computed as scikit-image does.
  const double rr = static_cast<double>(height + 1), cr = static_cast<double>(width + 1);
  const DType dt = o.decomposition == Decomposition::none ? o.dtype : DType::uint8;
  Array fp = make({2 * height + 1, 2 * width + 1}, dt, [&](const Index& i) {
    const double dr = static_cast<double>(i[0] - height) / rr;
    const double dc = static_cast<double>(-(i[1] - width)) / cr;
    return dr * dr + dc * dc < 1.0;
  });
  if (o.decomposition == Decomposition::crosses) return cross_decomposition(fp);
  return Footprint(std::move(fp));
}

Footprint footprint_rectangle(const Shape& shape, const FootprintOptions& o) {
  constexpr std::string_view fn = "morphology.footprint_rectangle";
  expect(!shape.empty(), fn, "shape", "must have at least one dimension, got ()");
  for (auto w : shape) expect(w >= 1, fn, "shape", "must hold lengths >= 1, got ", shape_str(shape));
  expect_decomposition(fn, o.decomposition,
                       {Decomposition::none, Decomposition::separable, Decomposition::sequence});
  const int nd = static_cast<int>(shape.size());
  if (o.decomposition == Decomposition::none) return Footprint(ones(shape, o.dtype));
  auto partial = [&](int dim, std::int64_t width) {
    Shape s(nd, 1);
    s[dim] = width;
    return FootprintElement{ones(s, o.dtype), 1};
  };
  const bool has_even = std::any_of(shape.begin(), shape.end(), [](std::int64_t w) { return w % 2 == 0; });
  std::vector<FootprintElement> seq;
  if (o.decomposition == Decomposition::separable || has_even) {
    // 'sequence' with an even length falls back to 'separable' (scikit-image warns).
    for (int d = 0; d < nd; ++d) seq.push_back(partial(d, shape[d]));
    return Footprint(std::move(seq));
  }
  const std::int64_t min_width = *std::min_element(shape.begin(), shape.end());
  seq.push_back({ones(Shape(nd, 3), o.dtype), decompose_size(min_width)});
  for (int d = 0; d < nd; ++d)
    if (shape[d] > min_width) seq.push_back(partial(d, shape[d] - min_width + 1));
  return Footprint(std::move(seq));
}

Footprint square(std::int64_t width, const FootprintOptions& o) {
  expect(width >= 1, "morphology.square", "width", "must be >= 1, got ", width);
  return footprint_rectangle({width, width}, o);
}

Footprint rectangle(std::int64_t nrows, std::int64_t ncols, const FootprintOptions& o) {
  expect(nrows >= 1, "morphology.rectangle", "nrows", "must be >= 1, got ", nrows);
  expect(ncols >= 1, "morphology.rectangle", "ncols", "must be >= 1, got ", ncols);
  return footprint_rectangle({nrows, ncols}, o);
}

Footprint cube(std::int64_t width, const FootprintOptions& o) {
  expect(width >= 1, "morphology.cube", "width", "must be >= 1, got ", width);
  return footprint_rectangle({width, width, width}, o);
}

// ---- sequences, mirroring, padding ----------------------------------------------------------------

Array footprint_from_sequence(const Footprint& footprints) {
  constexpr std::string_view fn = "morphology.footprint_from_sequence";
  expect(footprints.is_sequence(), fn, "footprints", "must be a sequence of (footprint, num_iter) pairs, got a single array");
  const auto& seq = footprints.sequence();
  expect(!seq.empty(), fn, "footprints", "must hold at least one (footprint, num_iter) pair, got an empty sequence");
  const int nd = seq.front().footprint.ndim();
  for (const auto& el : seq) {
    expect(el.footprint.valid() && el.footprint.ndim() == nd, fn, "footprints",
           "must hold arrays of one number of dimensions, got ", nd, " and ",
           el.footprint.valid() ? el.footprint.ndim() : 0);
    expect(el.num_iter >= 0, fn, "footprints", "must hold num_iter >= 0, got ", el.num_iter);
  }
  const Shape shape = footprints.shape();
  for (auto s : shape) expect(s >= 1, fn, "footprints", "must reach a non-empty shape, got ", shape_str(shape));
  const Strides strides = contiguous_strides(shape);
  const std::int64_t total = shape_size(shape);

  std::vector<std::uint8_t> img(total, 0), next(total);
  std::int64_t centre = 0;
  for (int d = 0; d < nd; ++d) centre += (shape[d] / 2) * strides[d];
  img[centre] = 1;

  // scipy's 'reflect' boundary (d c b a | a b c d | d c b a).
  auto reflect = [](std::int64_t i, std::int64_t n) {
    const std::int64_t period = 2 * n;
    i %= period;
    if (i < 0) i += period;
    return i >= n ? period - 1 - i : i;
  };

  for (std::size_t e = 0; e < seq.size(); ++e) {
    // scikit-image's dilation pads even axes at the front and mirrors the footprint, which scipy's
    // grey_dilation mirrors back: out[x] = OR over set k of in[x + k - centre(k)].
    Array padded = pad_footprint(seq[e].footprint, {.pad_end = false}).astype(DType::uint8);
    const Shape& fs = padded.shape();
    const auto* fp = padded.data<std::uint8_t>();
    std::vector<Index> offsets;
    Index k(nd, 0);
    for (std::int64_t i = 0; i < padded.size(); ++i) {
      if (fp[i]) {
        Index off(nd);
        for (int d = 0; d < nd; ++d) off[d] = k[d] - fs[d] / 2;
        offsets.push_back(off);
      }
      for (int d = nd - 1; d >= 0; --d) {
        if (++k[d] < fs[d]) break;
        k[d] = 0;
      }
    }
    // The first element always runs once, even with num_iter 0 (scikit-image's loop does).
    const std::int64_t reps = e == 0 ? std::max<std::int64_t>(1, seq[e].num_iter) : seq[e].num_iter;
    for (std::int64_t rep = 0; rep < reps; ++rep) {
      Index x(nd, 0);
      for (std::int64_t i = 0; i < total; ++i) {
        std::uint8_t v = 0;
        for (const auto& off : offsets) {
          std::int64_t src = 0;
          for (int d = 0; d < nd; ++d) src += reflect(x[d] + off[d], shape[d]) * strides[d];
          if (img[src]) {
            v = 1;
            break;
          }
        }
        next[i] = v;
        for (int d = nd - 1; d >= 0; --d) {
          if (++x[d] < shape[d]) break;
          x[d] = 0;
        }
      }
      img.swap(next);
    }
  }
  Array out = Array::empty(shape, DType::bool_);
  bool* o = out.data<bool>();
  for (std::int64_t i = 0; i < total; ++i) o[i] = img[i] != 0;
  return out;
}

Array mirror_footprint(const Array& footprint) {
  detail::expect_valid(footprint, "morphology.mirror_footprint", "footprint");
  const Array src = host_contiguous(footprint);
  Array out = Array::empty(src.shape(), src.dtype());
  const std::size_t sz = src.itemsize();
  const std::int64_t n = src.size();
  const auto* s = static_cast<const unsigned char*>(src.data());
  auto* d = static_cast<unsigned char*>(out.data());
  // Reversing every axis of a C-order array reverses its flat order.
  for (std::int64_t i = 0; i < n; ++i) std::memcpy(d + i * sz, s + (n - 1 - i) * sz, sz);
  return footprint.device().is_cpu() ? std::move(out) : out.to(footprint.device());
}

Footprint mirror_footprint(const Footprint& footprint) {
  if (!footprint.is_sequence()) return Footprint(mirror_footprint(footprint.array()));
  std::vector<FootprintElement> seq;
  for (const auto& el : footprint.sequence()) seq.push_back({mirror_footprint(el.footprint), el.num_iter});
  return Footprint(std::move(seq));
}

Array pad_footprint(const Array& footprint, const PadFootprintOptions& o) {
  detail::expect_valid(footprint, "morphology.pad_footprint", "footprint");
  const Array src = host_contiguous(footprint);
  const int nd = src.ndim();
  Shape shape = src.shape();
  Index before(nd, 0);
  for (int d = 0; d < nd; ++d)
    if (shape[d] % 2 == 0) {
      ++shape[d];
      before[d] = o.pad_end ? 0 : 1;
    }
  Array out = Array::zeros(shape, src.dtype());
  const std::size_t sz = src.itemsize();
  const Strides ost = contiguous_strides(shape);
  const auto* s = static_cast<const unsigned char*>(src.data());
  auto* d = static_cast<unsigned char*>(out.data());
  Index x(nd, 0);
  for (std::int64_t i = 0; i < src.size(); ++i) {
    std::int64_t dst = 0;
    for (int a = 0; a < nd; ++a) dst += (x[a] + before[a]) * ost[a];
    std::memcpy(d + dst * sz, s + i * sz, sz);
    for (int a = nd - 1; a >= 0; --a) {
      if (++x[a] < src.shape(a)) break;
      x[a] = 0;
    }
  }
  return footprint.device().is_cpu() ? std::move(out) : out.to(footprint.device());
}

Footprint pad_footprint(const Footprint& footprint, const PadFootprintOptions& o) {
  if (!footprint.is_sequence()) return Footprint(pad_footprint(footprint.array(), o));
  std::vector<FootprintElement> seq;
  for (const auto& el : footprint.sequence()) seq.push_back({pad_footprint(el.footprint, o), el.num_iter});
  return Footprint(std::move(seq));
}

}  // namespace cuskimage::morphology
