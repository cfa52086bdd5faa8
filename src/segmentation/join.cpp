// segmentation._join: relabel_sequential (sorted distinct values, then one lookup pass), ArrayMap
// and join_segmentations (scikit-image's recipe: relabel both, factor * s1 + s2 in NumPy's promoted
// dtype, relabel that; the maps are small and finished on the host). CUDA pieces:
// kernels/segmentation/join.cu.
#include "cuskimage/segmentation/join.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string_view>
#include <vector>

#include "src/core/device_guard.hpp"
#include "src/core/dispatch.hpp"
#include "src/core/validate.hpp"
#include "src/segmentation/join.hpp"

namespace cuskimage::segmentation {
namespace {

using cuskimage::detail::expect;
using cuskimage::detail::IntegerTypes;
using detail::grid_of;

template <class T>
Array sorted_unique(const Array& a, const Stream& stream) {
  return cuskimage::detail::on_backend(
      a, stream,
      [&] {
        std::vector<T> v = a.to_vector<T>();
        std::sort(v.begin(), v.end());
        v.erase(std::unique(v.begin(), v.end()), v.end());
        return Array::from_vector(v, {static_cast<std::int64_t>(v.size())});
      },
      [&](auto) { return detail::cuda_sorted_unique<T>(a.contiguous(stream), stream); });
}

template <class T, class O>
void run_map(const detail::SortedMap<T, O>& m, std::int64_t n, const Array& on, const Stream& stream) {
  cuskimage::detail::on_backend(
      on, stream,
      [&] {
        for (std::int64_t i = 0; i < n; ++i) m(i);
      },
      [&](auto) { detail::cuda_sorted_map<T, O>(m, n, stream); });
}

std::vector<std::int64_t> host_values(const Array& a, const Stream& stream) {
  return a.to(Device::cpu(), stream).to_vector<std::int64_t>();
}

DType sized(bool is_signed_type, std::size_t bytes) {
  switch (bytes) {
    case 1: return is_signed_type ? DType::int8 : DType::uint8;
    case 2: return is_signed_type ? DType::int16 : DType::uint16;
    case 4: return is_signed_type ? DType::int32 : DType::uint32;
    default: return is_signed_type ? DType::int64 : DType::uint64;
  }
}

/// NumPy's promote_types for two integer dtypes (float64 for uint64 with a signed type).
DType promote(DType a, DType b) {
  if (a == b) return a;
  const bool sa = is_signed(a), sb = is_signed(b);
  const std::size_t za = itemsize(a), zb = itemsize(b);
  if (sa == sb) return za >= zb ? a : b;
  const DType s = sa ? a : b, u = sa ? b : a;
  if (itemsize(s) > itemsize(u)) return s;
  return itemsize(u) < 8 ? sized(true, 2 * itemsize(u)) : DType::float64;
}

std::uint64_t dtype_max(DType dt) {
  const std::size_t bits = itemsize(dt) * 8;
  return is_signed(dt) ? (std::uint64_t{1} << (bits - 1)) - 1
                       : (bits == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << bits) - 1);
}

/// relabel_sequential's output dtype: the input's unless too small (np.min_scalar_type otherwise).
DType relabel_dtype(DType in, std::uint64_t last) {
  const DType required = last <= 0xFFu ? DType::uint8
                         : last <= 0xFFFFu ? DType::uint16
                         : last <= 0xFFFFFFFFu ? DType::uint32 : DType::uint64;
  if (itemsize(in) < itemsize(required)) return required;
  return last < dtype_max(in) ? in : required;
}

void expect_labels(const Array& a, std::string_view fn, std::string_view arg) {
  cuskimage::detail::expect_valid(a, fn, arg);
  expect(is_integer(a.dtype()), fn, arg, "must have an integer dtype, got ", dtype_name(a.dtype()));
  expect(a.size() > 0, fn, arg, "must not be empty");
  expect(a.ndim() <= cuskimage::detail::kMaxDims, fn, arg, "has too many dimensions (", a.ndim(), ")");
}

}  // namespace

Array ArrayMap::operator()(const Array& labels, const Stream& stream) const {
  constexpr std::string_view fn = "segmentation.ArrayMap";
  expect_labels(labels, fn, "labels");
  cuskimage::detail::expect_valid(in_values, fn, "in_values");
  expect(in_values.ndim() == 1 && out_values.valid() && out_values.shape() == in_values.shape(), fn, "out_values",
         "must be 1-D like in_values");
  cuskimage::detail::expect_same_device(labels, in_values, fn, "labels", "in_values");
  const Array keyed = labels.dtype() == in_values.dtype() ? labels.share() : labels.astype(in_values.dtype(), stream);
  const Array keys = in_values.contiguous(stream);
  const Array table = out_values.astype(DType::int64, stream);
  Array out = Array::empty(labels.shape(), DType::int64, labels.device(), stream);
  cuskimage::detail::dispatch<IntegerTypes>(keys.dtype(), fn, [&]<class T>() {
    detail::SortedMap<T, std::int64_t> m;
    m.in = static_cast<const T*>(keyed.data());
    m.g = grid_of(keyed);
    m.keys = static_cast<const T*>(keys.data());
    m.nkeys = keys.size();
    m.table = static_cast<const std::int64_t*>(table.data());
    m.out = static_cast<std::int64_t*>(out.data());
    run_map(m, out.size(), labels, stream);
  });
  return out_values.dtype() == DType::int64 ? std::move(out) : out.astype(out_values.dtype(), stream);
}

RelabelResult relabel_sequential(const Array& label_field, const RelabelSequentialOptions& opts,
                                 const Stream& stream) {
  constexpr std::string_view fn = "segmentation.relabel_sequential";
  expect(opts.offset > 0, fn, "offset", "must be strictly positive, got ", opts.offset);
  expect_labels(label_field, fn, "label_field");
  RelabelResult r;
  cuskimage::detail::dispatch<IntegerTypes>(label_field.dtype(), fn, [&]<class T>() {
    const std::int64_t n = label_field.size();
    // CUDA, labels of a small range (measure.label's, typically): presence flags and their prefix
    // sum give the distinct values and a rank table, no sort.
    detail::DenseRanks dense;
    Array contig;
    if (label_field.device().is_cuda() && n < (std::int64_t{1} << 30)) {
      cuskimage::detail::on_backend(label_field, stream, [] {}, [&](auto) {
        contig = label_field.contiguous(stream);
        dense = detail::cuda_dense_ranks<T>(contig, 2 * n + 1024, stream);
      });
      expect(!dense.negative, fn, "label_field", "cannot relabel an array that contains negative values");
    }
    Array uniq = dense.used ? std::move(dense.uniq) : sorted_unique<T>(label_field, stream);
    const T first = dense.used ? static_cast<T>(dense.min)
                               : uniq.slice({Slice{0, 1}}).to(Device::cpu(), stream).template to_vector<T>()[0];
    if constexpr (std::is_signed_v<T>)
      expect(first >= 0, fn, "label_field", "cannot relabel an array that contains negative values");
    const std::int64_t k = uniq.size();
    const bool has0 = first == T(0);
    const std::uint64_t last = static_cast<std::uint64_t>(has0 && k == 1 ? 0 : opts.offset + k - 1 - (has0 ? 1 : 0));
    const DType odt = relabel_dtype(label_field.dtype(), last);
    const bool direct = odt == label_field.dtype();  // else through uint64, then astype
    Array res = Array::empty(label_field.shape(), direct ? odt : DType::uint64, label_field.device(), stream);
    const auto map_into = [&]<class O>() {
      O* out = static_cast<O*>(res.data());
      if (dense.used) {
        cuskimage::detail::on_backend(label_field, stream, [] {}, [&](auto) {
          detail::cuda_dense_map<T, O>(static_cast<const T*>(contig.data()),
                                       static_cast<const std::int32_t*>(dense.rank.data()), n, opts.offset, has0, out,
                                       stream);
        });
        return;
      }
      detail::SortedMap<T, O> m;
      m.in = static_cast<const T*>(label_field.data());
      m.g = grid_of(label_field);
      m.keys = static_cast<const T*>(uniq.data());
      m.nkeys = k;
      m.offset = opts.offset;
      m.has0 = has0;
      m.out = out;
      run_map(m, n, label_field, stream);
    };
    if (direct) map_into.template operator()<T>();
    else map_into.template operator()<std::uint64_t>();
    r.relabeled = direct ? std::move(res) : res.astype(odt, stream);
    std::vector<std::uint64_t> outv(static_cast<std::size_t>(k));
    for (std::int64_t i = 0; i < k; ++i)
      outv[i] = has0 && i == 0 ? 0 : static_cast<std::uint64_t>(opts.offset + i - (has0 ? 1 : 0));
    Array out_values = Array::from_vector(outv, {k}).astype(odt).to(label_field.device(), stream);
    r.forward = ArrayMap{uniq.share(), out_values.share()};
    r.inverse = ArrayMap{std::move(out_values), std::move(uniq)};
  });
  return r;
}

JoinResult join_segmentations_with_mapping(const Array& s1, const Array& s2, const Stream& stream) {
  constexpr std::string_view fn = "segmentation.join_segmentations";
  expect_labels(s1, fn, "s1");
  expect_labels(s2, fn, "s2");
  expect(s1.shape() == s2.shape(), fn, "s2", "cannot join segmentations of different shape: s1.shape ",
         shape_str(s1.shape()), ", s2.shape ", shape_str(s2.shape()));
  cuskimage::detail::expect_same_device(s1, s2, fn, "s1", "s2");
  RelabelResult r1 = relabel_sequential(s1, {}, stream);
  RelabelResult r2 = relabel_sequential(s2, {}, stream);
  // factor = s2.max() + np.uint8(1), in NumPy's dtype (wrapping as NumPy does).
  const DType fdt = promote(s2.dtype(), DType::uint8);
  const std::int64_t s2max = host_values(r2.forward.in_values, stream).back();
  const std::uint64_t fbits = itemsize(fdt) * 8;
  std::uint64_t factor_u = static_cast<std::uint64_t>(s2max) + 1;
  if (fbits < 64) factor_u &= (std::uint64_t{1} << fbits) - 1;
  const DType pdt = promote(fdt, promote(r1.relabeled.dtype(), r2.relabeled.dtype()));
  expect(pdt != DType::float64, fn, "s1", "labels of dtypes ", dtype_name(s1.dtype()), " and ",
         dtype_name(s2.dtype()), " combine to float64 in NumPy, which relabel_sequential refuses");
  const Array a = r1.relabeled.astype(pdt, stream), b = r2.relabeled.astype(pdt, stream);
  Array joint = Array::empty(s1.shape(), pdt, s1.device(), stream);
  cuskimage::detail::dispatch<IntegerTypes>(pdt, fn, [&]<class T>() {
    const T f = static_cast<T>(factor_u);
    const T* pa = static_cast<const T*>(a.data());
    const T* pb = static_cast<const T*>(b.data());
    T* po = static_cast<T*>(joint.data());
    const std::int64_t n = joint.size();
    cuskimage::detail::on_backend(
        s1, stream,
        [&] {
          using U = std::make_unsigned_t<T>;
          for (std::int64_t i = 0; i < n; ++i)
            po[i] = static_cast<T>(static_cast<U>(static_cast<U>(pa[i]) * static_cast<U>(f) + static_cast<U>(pb[i])));
        },
        [&](auto) { detail::cuda_combine<T>(pa, pb, f, po, n, stream); });
  });
  RelabelResult rj = relabel_sequential(joint, {}, stream);
  JoinResult out;
  out.joined = std::move(rj.relabeled);
  // labels_j = unique(j_initial); divmod by the factor names the pair of relabelled values, which
  // the inverse maps of s1 and s2 turn back into their labels (0 where a value is not mapped).
  const std::vector<std::int64_t> lj = host_values(rj.forward.in_values, stream);
  const auto back = [&](const RelabelResult& r, bool quotient, DType dt) {
    const std::vector<std::int64_t> from = host_values(r.inverse.in_values, stream);
    const std::vector<std::int64_t> to = host_values(r.inverse.out_values, stream);
    const auto f = static_cast<std::int64_t>(factor_u);
    std::vector<std::int64_t> vals(lj.size());
    for (std::size_t i = 0; i < lj.size(); ++i) {
      const std::int64_t key = f == 0 ? 0 : (quotient ? lj[i] / f : lj[i] % f);
      const auto it = std::lower_bound(from.begin(), from.end(), key);
      vals[i] = it != from.end() && *it == key ? to[it - from.begin()] : 0;
    }
    return Array::from_vector(vals, {static_cast<std::int64_t>(vals.size())}).astype(dt).to(s1.device(), stream);
  };
  out.map_to_s1 = ArrayMap{rj.inverse.in_values.share(), back(r1, true, s1.dtype())};
  out.map_to_s2 = ArrayMap{rj.inverse.in_values.share(), back(r2, false, s2.dtype())};
  return out;
}

Array join_segmentations(const Array& s1, const Array& s2, const Stream& stream) {
  return std::move(join_segmentations_with_mapping(s1, s2, stream).joined);
}

}  // namespace cuskimage::segmentation
