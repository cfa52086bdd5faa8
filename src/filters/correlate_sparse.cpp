// filters.correlate_sparse: scikit-image's padded, term-by-term sparse correlation. The CPU backend
// sums the terms per output pixel in scikit-image's order and precision (what its whole-array
// additions compute element by element).
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "cuskimage/filters.hpp"
#include "src/core/device_guard.hpp"
#include "src/core/indexer.hpp"
#include "src/core/validate.hpp"
#include "src/filters/local_threshold.hpp"

namespace cuskimage::filters {
namespace detail {

/// CPU sparse correlation of `in` (F, any strides) into contiguous `out` (F).
template <class F>
void cpu_correlate_sparse(const Array& in, Array& out, const SparsePlan& P) {
  const int nd = in.ndim();
  const std::int64_t total = out.size();
  const F* ip = static_cast<const F*>(in.data());
  F* op = static_cast<F*>(out.data());
  const std::size_t K = P.val.size();
#pragma omp parallel for schedule(static) if (total > 32768)
  for (std::int64_t i = 0; i < total; ++i) {
    std::int64_t c[cuskimage::detail::kMaxDims];
    std::int64_t rest = i;
    for (int d = nd - 1; d >= 0; --d) c[d] = rest % out.shape()[d], rest /= out.shape()[d];
    F acc = F(0);
    for (std::size_t t = 0; t < K; ++t) {
      std::int64_t off = 0;
      bool zero = false;
      for (int d = 0; d < nd; ++d) {
        const std::int64_t p = c[d] + P.idx[t][d];
        const std::int64_t s = P.valid ? p : pad_index(p, P.kshape[d] / 2, in.shape()[d], P.mode);
        if (s < 0) zero = true;
        else off += s * in.strides()[d];
      }
      const F x = zero ? F(0) : ip[off];
      const F term = mul_rn(static_cast<F>(P.val[t]), x);
      acc = t == 0 ? term : add_rn(acc, term);
    }
    op[i] = acc;
  }
}
template void cpu_correlate_sparse<float>(const Array&, Array&, const SparsePlan&);
template void cpu_correlate_sparse<double>(const Array&, Array&, const SparsePlan&);

}  // namespace detail

Array correlate_sparse(const Array& image, const Array& kernel, const CorrelateSparseOptions& opts,
                       const Stream& stream) {
  constexpr std::string_view fn = "filters.correlate_sparse";
  using cuskimage::detail::expect;
  cuskimage::detail::expect_valid(image, fn, "image");
  cuskimage::detail::expect_valid(kernel, fn, "kernel");
  expect(image.dtype() != DType::bool_, fn, "image", "must be numeric, got bool");
  expect(image.ndim() >= 1 && image.ndim() <= cuskimage::detail::kMaxDims, fn, "image", "must have 1 to ",
         cuskimage::detail::kMaxDims, " dimensions, got ", image.ndim());
  expect(kernel.ndim() == image.ndim(), fn, "kernel", "must have the image's ndim ", image.ndim(), ", got ",
         kernel.ndim(), "-D");
  detail::SparsePlan P;
  P.kshape = kernel.shape();
  P.valid = opts.mode == "valid";
  if (!P.valid) {
    expect(opts.mode == "reflect" || opts.mode == "mirror" || opts.mode == "nearest" || opts.mode == "wrap" ||
               opts.mode == "constant",
           fn, "mode", "must be one of 'reflect', 'constant', 'nearest', 'mirror', 'wrap', 'valid', got '",
           opts.mode, "'");
    P.mode = ndimage::mode_from_name(opts.mode);
    for (auto w : P.kshape)
      expect(w % 2 == 1, fn, "kernel", "size must not be even on any dimension (Window size must not be even), "
                                       "got shape ", shape_str(P.kshape));
  }
  for (auto w : P.kshape) expect(w >= 1, fn, "kernel", "must have no empty axis, got ", shape_str(P.kshape));
  const DType F = image.dtype() == DType::float32 ? DType::float32 : DType::float64;
  // Terms: non-zero entries in C order, values rounded to F; the zero corner first if missing.
  const Array kh = kernel.to(Device::cpu(), stream).astype(DType::float64);
  const double* kv = static_cast<const double*>(kh.data());
  const int nd = image.ndim();
  std::vector<std::int64_t> c(nd);
  for (std::int64_t i = 0; i < kh.size(); ++i) {
    if (kv[i] == 0.0) continue;
    std::int64_t rest = i;
    for (int d = nd - 1; d >= 0; --d) c[d] = rest % P.kshape[d], rest /= P.kshape[d];
    P.idx.push_back(c);
    P.val.push_back(F == DType::float32 ? static_cast<double>(static_cast<float>(kv[i])) : kv[i]);
  }
  if (P.idx.empty() || P.idx[0] != std::vector<std::int64_t>(nd, 0)) {
    P.idx.insert(P.idx.begin(), std::vector<std::int64_t>(nd, 0));
    P.val.insert(P.val.begin(), 0.0);
  }
  Shape oshape = image.shape();
  if (P.valid)
    for (int d = 0; d < nd; ++d) oshape[d] = std::max<std::int64_t>(0, oshape[d] - P.kshape[d] + 1);
  const Array img = image.astype(F, stream);
  Array out = Array::empty(oshape, F, image.device(), stream);
  if (out.size() == 0) return out;
  cuskimage::detail::on_backend(
      img, stream,
      [&] {
        if (F == DType::float32) detail::cpu_correlate_sparse<float>(img, out, P);
        else detail::cpu_correlate_sparse<double>(img, out, P);
      },
      [&](const Stream& s) {
        if (nd > detail::kLocalMaxDims)
          cuskimage::detail::fail<NotSupported>(fn, "argument 'image' must be 1-D to 3-D on a CUDA device, got ", nd,
                                                "-D");
        if (F == DType::float32) detail::cuda_correlate_sparse<float>(img, out, P, s);
        else detail::cuda_correlate_sparse<double>(img, out, P, s);
      });
  return out;
}

}  // namespace cuskimage::filters
