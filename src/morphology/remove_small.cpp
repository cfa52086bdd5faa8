// skimage.morphology.remove_small_objects / remove_small_holes (scikit-image 0.26: `max_size`
// removes objects of at most that size; the deprecated `min_size` / `area_threshold` are
// forwarded to it, as 0.26 does). CPU: union-find labelling with scipy's connectivity structure on a grid padded
// with background, or the label histogram. CUDA: kernels/morphology/recon_remove_small.cu.
#include <algorithm>
#include <type_traits>

#include "cuskimage/measure.hpp"
#include "cuskimage/morphology.hpp"
#include "src/core/device_guard.hpp"
#include "src/core/dispatch.hpp"
#include "src/core/validate.hpp"
#include "src/morphology/recon_common.hpp"
#include "src/morphology/recon_remove_small.hpp"
#include "src/util/common.hpp"

namespace cuskimage::morphology {

using cuskimage::detail::expect;
namespace cd = cuskimage::detail;

namespace {

using RemoveTypes = cd::Types<bool, std::uint8_t, std::uint16_t, std::int32_t, std::int64_t>;

void expect_input(std::string_view fn, const Array& ar) {
  cd::expect_valid(ar, fn, "ar");
  expect(ar.ndim() >= 1, fn, "ar", "must have at least one dimension, got 0");
  if (!ar.device().is_cpu())
    expect(ar.ndim() <= 3, fn, "ar", "must be 1-, 2- or 3-D on a CUDA device, got ", ar.ndim(), "-D");
  const DType dt = ar.dtype();
  const bool ok = dt == DType::bool_ || dt == DType::uint8 || dt == DType::uint16 || dt == DType::int32 || dt == DType::int64;
  if (!ok) {
    const bool integer = dt != DType::float32 && dt != DType::float64;
    cd::fail(fn, "argument 'ar': only bool or integer image types are supported, got ", dtype_name(dt),
             integer ? " (integer types here: uint8, uint16, int32, int64)" : "");
  }
}

detail::SizeTest size_test(std::string_view fn, std::int64_t max_size, const std::optional<std::int64_t>& old,
                           std::string_view old_name) {
  expect(max_size >= 0, fn, "max_size", "must be non-negative, got ", max_size);
  if (old) {
    expect(*old >= 0, fn, old_name, "must be non-negative, got ", *old);
    expect(max_size == 64, fn, old_name, "(deprecated) and the new parameter 'max_size' are both used; use only the latter");
    // scikit-image 0.26's deprecation decorator forwards the old value as max_size, so objects of
    // exactly that size go too (despite the old "smaller than" wording).
    return {*old, false};
  }
  return {max_size, false};
}

/// Binary case on the CPU: out (bool) = pixels of the labelled set (foreground, or background for
/// holes) whose component is not small; holes negate it.
template <class T>
Array cpu_binary(const Array& ar, int connectivity, bool holes, detail::SizeTest small) {
  const int nd = ar.ndim();
  const Shape pad(nd, 1);
  const detail::PaddedGrid G(ar.shape(), pad, pad);
  const Array a = ar.contiguous();
  const T* p = a.data<T>();
  const std::vector<std::int64_t> in = G.interior();
  std::vector<std::uint8_t> fg(static_cast<std::size_t>(G.size()), 0);
  for (std::size_t i = 0; i < in.size(); ++i) fg[in[i]] = (p[i] != T(0)) != holes;
  std::vector<std::int64_t> back;
  for (const auto& o : detail::neighbour_offsets(detail::binary_structure(nd, connectivity), detail::Offset(nd, 1))) {
    const std::int64_t d = G.delta(o);
    if (d < 0) back.push_back(d);
  }
  detail::UnionFind uf(G.size());
  for (auto k : in)
    if (fg[k])
      for (auto d : back)
        if (fg[k + d]) uf.unite(k, k + d);
  std::vector<std::int64_t> size(static_cast<std::size_t>(G.size()), 0);
  for (auto k : in)
    if (fg[k]) ++size[uf.find(k)];
  Array out = Array::empty(ar.shape(), DType::bool_);
  bool* op = out.data<bool>();
  for (std::size_t i = 0; i < in.size(); ++i) {
    const std::int64_t k = in[i];
    const bool keep = fg[k] && !small(size[uf.find(k)]);
    op[i] = holes ? !keep : keep;
  }
  return out;
}

template <class T>
Array cpu_labels(const Array& ar, std::int64_t max_label, detail::SizeTest small) {
  const Array a = ar.contiguous();
  const T* p = a.data<T>();
  std::vector<std::int64_t> count(static_cast<std::size_t>(max_label + 1), 0);
  for (std::int64_t i = 0; i < a.size(); ++i) ++count[static_cast<std::size_t>(p[i])];
  Array out = Array::empty(ar.shape(), ar.dtype());
  T* op = out.data<T>();
  for (std::int64_t i = 0; i < a.size(); ++i) op[i] = small(count[static_cast<std::size_t>(p[i])]) ? T(0) : p[i];
  return out;
}

Array binary_result(const Array& ar, int connectivity, bool holes, detail::SizeTest small, const Stream& stream) {
  return cd::on_backend(
      ar, stream,
      [&] {
        return cd::dispatch<RemoveTypes>(ar.dtype(), "morphology.remove_small",
                                         [&]<class T>() { return cpu_binary<T>(ar, connectivity, holes, small); });
      },
      [&](const Stream&) {
        if (connectivity < 1) {
          // No neighbours: every pixel of the labelled set is a component of one pixel.
          if (!small(1)) return ar.astype(DType::bool_, stream);  // nothing goes
          return Array::full(ar.shape(), holes ? 1 : 0, DType::bool_, ar.device(), stream);
        }
        // measure.label's block union-find, then the component sizes and the map. Holes: label
        // the false pixels.
        const Array mask = ar.dtype() == DType::bool_ ? ar.share() : ar.astype(DType::bool_, stream);
        measure::LabelOptions lo;
        if (holes) lo.background = 1;
        lo.connectivity = std::min(connectivity, ar.ndim());
        lo.dtype = ar.size() < (std::int64_t(1) << 31) ? DType::int32 : DType::int64;
        const measure::LabelResult lr = measure::label_with_num(mask, lo, stream);
        Array out = Array::empty(ar.shape(), DType::bool_, ar.device(), stream);
        detail::cuda_remove_small_labelled(lr.labels, lr.num, holes, small, out, stream);
        return out;
      });
}

Array remove_objects(const Array& ar, const RemoveSmallObjectsOptions& o, const Stream& stream) {
  constexpr std::string_view fn = "morphology.remove_small_objects";
  expect_input(fn, ar);
  const detail::SizeTest small = size_test(fn, o.max_size, o.min_size, "min_size");
  if (!o.min_size && o.max_size == 0) return ar.copy(stream);  // nothing is that small
  if (ar.dtype() == DType::bool_) return binary_result(ar, o.connectivity, false, small, stream);
  // Label image: every label's pixel count (connectivity unused, as scikit-image).
  if (ar.size() == 0) return ar.copy(stream);
  const auto range = util::detail::value_range(ar, stream, fn);
  if (range.lo < 0)
    cd::fail(fn, "argument 'ar': negative value labels are not supported, got ", range.lo,
             "; relabel the input with ndimage::label or measure::label");
  const auto max_label = static_cast<std::int64_t>(range.hi);
  return cd::dispatch<RemoveTypes>(ar.dtype(), fn, [&]<class T>() -> Array {
    if constexpr (std::is_same_v<T, bool>) {
      return {};
    } else {
      return cd::on_backend(
          ar, stream, [&] { return cpu_labels<T>(ar, max_label, small); },
          [&](const Stream&) {
            const Array a = ar.contiguous(stream);
            Array out = Array::empty(ar.shape(), ar.dtype(), ar.device(), stream);
            detail::cuda_remove_small_labels<T>(a, out, max_label, small, stream);
            return out;
          });
    }
  });
}

Array remove_holes(const Array& ar, const RemoveSmallHolesOptions& o, const Stream& stream) {
  constexpr std::string_view fn = "morphology.remove_small_holes";
  expect_input(fn, ar);
  const detail::SizeTest small = size_test(fn, o.max_size, o.area_threshold, "area_threshold");
  if (!o.area_threshold && o.max_size == 0) return ar.astype(DType::bool_, stream);
  return binary_result(ar, o.connectivity, true, small, stream);
}

void check_out(std::string_view fn, const Array& ar, const Array& out, DType dt) {
  cd::expect_valid(out, fn, "out");
  expect(out.shape() == ar.shape(), fn, "out", "must have the input's shape ", shape_str(ar.shape()), ", got ",
         shape_str(out.shape()));
  expect(out.dtype() == dt, fn, "out", "must have dtype ", dtype_name(dt), ", got ", dtype_name(out.dtype()));
  expect(out.device() == ar.device(), fn, "out", "must be on the input's device ", ar.device().str(), ", got ",
         out.device().str());
}

}  // namespace

Array remove_small_objects(const Array& ar, const RemoveSmallObjectsOptions& o, const Stream& s) {
  return remove_objects(ar, o, s);
}

void remove_small_objects_into(const Array& ar, Array& out, const RemoveSmallObjectsOptions& o, const Stream& s) {
  expect_input("morphology.remove_small_objects", ar);
  check_out("morphology.remove_small_objects", ar, out, ar.dtype());
  const Array r = remove_objects(ar, o, s);
  out.copy_from(r, s);
}

Array remove_small_holes(const Array& ar, const RemoveSmallHolesOptions& o, const Stream& s) {
  return remove_holes(ar, o, s);
}

void remove_small_holes_into(const Array& ar, Array& out, const RemoveSmallHolesOptions& o, const Stream& s) {
  expect_input("morphology.remove_small_holes", ar);
  check_out("morphology.remove_small_holes", ar, out, DType::bool_);
  const Array r = remove_holes(ar, o, s);
  out.copy_from(r, s);
}

}  // namespace cuskimage::morphology
