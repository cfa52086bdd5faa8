#include "src/core/validate.hpp"

#include <algorithm>

#include "src/core/dispatch.hpp"
#include "src/core/indexer.hpp"

namespace cuskimage::detail {

void expect_valid(const Array& a, std::string_view fn, std::string_view arg) {
  expect(a.valid(), fn, arg, "must be an array, got an empty handle");
}

void expect_ndim(const Array& a, std::string_view fn, std::string_view arg, int lo, int hi) {
  expect_valid(a, fn, arg);
  if (lo == hi)
    expect(a.ndim() == lo, fn, arg, "must have ndim ", lo, ", got ", a.ndim(), " (shape ", shape_str(a.shape()), ")");
  else
    expect(a.ndim() >= lo && a.ndim() <= hi, fn, arg, "must have ndim in [", lo, ", ", hi, "], got ", a.ndim(),
           " (shape ", shape_str(a.shape()), ")");
}

void expect_same_shape(const Array& a, const Array& b, std::string_view fn, std::string_view arg_a,
                       std::string_view arg_b) {
  expect(a.shape() == b.shape(), fn, arg_b, "must have the shape of '", arg_a, "' ", shape_str(a.shape()), ", got ",
         shape_str(b.shape()));
}

void expect_same_device(const Array& a, const Array& b, std::string_view fn, std::string_view arg_a,
                        std::string_view arg_b) {
  expect(a.device() == b.device(), fn, arg_b, "must be on the device of '", arg_a, "' (", a.device().str(), "), got ",
         b.device().str());
}

void expect_dtype(const Array& a, std::string_view fn, std::string_view arg, std::initializer_list<DType> allowed) {
  expect_valid(a, fn, arg);
  if (std::find(allowed.begin(), allowed.end(), a.dtype()) != allowed.end()) return;
  std::string names;
  for (DType d : allowed) names += (names.empty() ? "" : ", ") + std::string(dtype_name(d));
  fail(fn, "argument '", arg, "' must have dtype in {", names, "}, got ", dtype_name(a.dtype()));
}

int normalize_axis(int axis, int ndim, std::string_view fn, std::string_view arg) {
  expect(axis >= -ndim && axis < ndim, fn, arg, "must be in [", -ndim, ", ", ndim - 1, "] for an array of ndim ", ndim,
         ", got ", axis);
  return axis < 0 ? axis + ndim : axis;
}

void throw_unsupported_dtype(DType dt, std::string_view fn) {
  fail(fn, "dtype ", dtype_name(dt), " is not supported");
}

Indexer Layout::indexer(std::size_t operand) const {
  Indexer ix;
  ix.ndim = static_cast<int>(shape.size());
  for (int d = 0; d < ix.ndim; ++d) {
    ix.shape[d] = shape[d];
    ix.stride[d] = strides[operand][d];
  }
  return ix;
}

Layout coalesce(const std::vector<std::int64_t>& shape, const std::vector<std::vector<std::int64_t>>& strides) {
  Layout L;
  L.strides.resize(strides.size());
  for (std::size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] == 1) continue;
    if (shape[d] == 0) {  // empty: one zero-length axis says it all
      L.shape = {0};
      for (auto& s : L.strides) s = {1};
      return L;
    }
    bool merge = !L.shape.empty();
    for (std::size_t k = 0; merge && k < strides.size(); ++k)
      merge = L.strides[k].back() == shape[d] * strides[k][d];
    if (merge) {
      L.shape.back() *= shape[d];
      for (std::size_t k = 0; k < strides.size(); ++k) L.strides[k].back() = strides[k][d];
    } else {
      L.shape.push_back(shape[d]);
      for (std::size_t k = 0; k < strides.size(); ++k) L.strides[k].push_back(strides[k][d]);
    }
  }
  if (static_cast<int>(L.shape.size()) > kMaxDims)
    throw NotSupported("array layout: more than " + std::to_string(kMaxDims) + " non-mergeable axes");
  return L;
}

Layout layout_of(std::initializer_list<const Array*> operands) {
  std::vector<std::vector<std::int64_t>> strides;
  for (const Array* a : operands) strides.push_back(a->strides());
  return coalesce((*operands.begin())->shape(), strides);
}

}  // namespace cuskimage::detail
