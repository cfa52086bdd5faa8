// Array: owning N-d array with a runtime dtype, int64 shape and strides (in elements), the device it
// lives on and shared ownership of its buffer.
//
// Arrays are move-only: `Array b = a;` does not compile, so it is never ambiguous whether data is
// shared. `a.share()` returns another handle to the same memory (like a NumPy view), `a.copy()` a
// new contiguous buffer. Slicing (`slice`, `index`, `transpose`, `as_strided`) returns views that
// share the buffer and keep it alive.
#pragma once

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "cuskimage/device.hpp"
#include "cuskimage/dtype.hpp"
#include "cuskimage/error.hpp"
#include "cuskimage/stream.hpp"

namespace cuskimage {

using Shape = std::vector<std::int64_t>;
using Strides = std::vector<std::int64_t>;  // in elements, may be zero or negative

/// One axis of a NumPy-style slice `start:stop:step`; unset bounds mean the axis' ends.
struct Slice {
  std::optional<std::int64_t> start;
  std::optional<std::int64_t> stop;
  std::int64_t step = 1;
};

namespace detail {
class Buffer;
}

class Array {
 public:
  /// An empty handle (ndim 0, no buffer); `valid()` is false.
  Array() = default;
  Array(Array&&) noexcept = default;
  Array& operator=(Array&&) noexcept = default;
  Array(const Array&) = delete;
  Array& operator=(const Array&) = delete;
  ~Array() = default;

  // ---- creation -------------------------------------------------------------------------------
  /// Uninitialised contiguous (C-order) array. Device memory comes stream-ordered from the device's
  /// memory resource (pooled); host memory is 64-byte aligned.
  static Array empty(const Shape& shape, DType dtype, Device device = Device::cpu(),
                     const Stream& stream = {});
  static Array zeros(const Shape& shape, DType dtype, Device device = Device::cpu(),
                     const Stream& stream = {});
  /// Every element set to `value` converted to `dtype` (as NumPy's np.full).
  static Array full(const Shape& shape, double value, DType dtype, Device device = Device::cpu(),
                    const Stream& stream = {});
  /// Host array holding a copy of `values` (size must equal the product of `shape`).
  template <class T>
  static Array from_vector(const std::vector<T>& values, const Shape& shape);

  /// Wraps external host or device memory without copying. `deleter(data)` runs when the last
  /// handle goes; without one the caller keeps the memory alive. `strides` default to C-order.
  static Array wrap(void* data, const Shape& shape, DType dtype, Device device,
                    std::function<void(void*)> deleter = {}, const Strides& strides = {});

  // ---- properties ------------------------------------------------------------------------------
  bool valid() const { return static_cast<bool>(buf_); }
  DType dtype() const { return dtype_; }
  Device device() const { return device_; }
  int ndim() const { return static_cast<int>(shape_.size()); }
  const Shape& shape() const { return shape_; }
  /// Extent of `axis`; negative axes count from the end.
  std::int64_t shape(int axis) const;
  const Strides& strides() const { return strides_; }
  std::int64_t size() const;
  std::size_t itemsize() const { return cuskimage::itemsize(dtype_); }
  std::size_t nbytes() const { return static_cast<std::size_t>(size()) * itemsize(); }
  bool is_contiguous() const;
  /// Address of element (0, ..., 0).
  void* data() const { return data_; }
  template <class T>
  T* data() const {
    check_dtype<T>("Array::data");
    return static_cast<T*>(data_);
  }
  /// "uint8[512, 512] on cuda:0"
  std::string str() const;

  // ---- views (no copies) -----------------------------------------------------------------------
  Array share() const;
  /// NumPy basic slicing: one Slice per leading axis; missing trailing axes are taken whole.
  Array slice(std::span<const Slice> slices) const;
  Array slice(std::initializer_list<Slice> slices) const {
    return slice(std::span<const Slice>(slices.begin(), slices.size()));
  }
  /// Selects `i` along `axis` and drops the axis (e.g. one channel of an RGB image).
  Array index(int axis, std::int64_t i) const;
  Array transpose(const std::vector<int>& axes) const;
  /// Same elements, new shape; a view when the array is contiguous, else NotSupported.
  Array reshape(const Shape& shape) const;
  Array expand_dims(int axis) const;
  Array squeeze(int axis) const;
  /// Arbitrary strided view of the same buffer (offset in elements from data()); every reachable
  /// element must lie inside the buffer, else InvalidArgument.
  Array as_strided(const Shape& shape, const Strides& strides, std::int64_t offset = 0) const;

  // ---- copies and conversions ------------------------------------------------------------------
  /// New contiguous array on the same device with the same values.
  Array copy(const Stream& stream = {}) const;
  /// This array when already contiguous (shared), else a contiguous copy.
  Array contiguous(const Stream& stream = {}) const;
  /// The array on `device`: shared when already there, else a contiguous copy. Host to device
  /// copies from pageable memory go through pinned staging buffers. A device to host copy returns
  /// with the data in place: it has waited for `stream` up to the copy (no further synchronize).
  Array to(Device device, const Stream& stream = {}) const;
  /// Element-wise conversion as NumPy's astype (not img_as_*): integers wrap modulo 2^bits as in
  /// NumPy; floats truncate toward zero and saturate at an integer target's range (NaN becomes 0,
  /// where NumPy leaves it undefined); anything non-zero becomes true for bool.
  Array astype(DType dtype, const Stream& stream = {}) const;
  /// Copies `src` (same shape, any device, any strides; dtype converted as astype) into this array.
  void copy_from(const Array& src, const Stream& stream = {});
  /// Sets every element to `value` (converted as np.full).
  void fill(double value, const Stream& stream = {});

  /// Host element read for tests and small tools (host arrays only).
  template <class T>
  T at(std::initializer_list<std::int64_t> index) const;
  /// Contiguous host copy of all values as T (converted as astype); handy in tests.
  template <class T>
  std::vector<T> to_vector() const;

 private:
  template <class T>
  void check_dtype(const char* fn) const {
    if (dtype_v<std::remove_const_t<T>> != dtype_) throw_dtype_mismatch(fn, dtype_v<std::remove_const_t<T>>);
  }
  [[noreturn]] void throw_dtype_mismatch(const char* fn, DType requested) const;
  std::int64_t element_offset(std::initializer_list<std::int64_t> index) const;

  friend struct ArrayAccess;
  std::shared_ptr<detail::Buffer> buf_;
  void* data_ = nullptr;
  DType dtype_ = DType::uint8;
  Device device_ = Device::cpu();
  Shape shape_;
  Strides strides_;
};

/// C-order strides (in elements) for `shape`.
Strides contiguous_strides(const Shape& shape);
/// Product of the extents (1 for a 0-d shape).
std::int64_t shape_size(const Shape& shape);
/// "[512, 512, 3]"
std::string shape_str(const Shape& shape);

// ---- template definitions ------------------------------------------------------------------------
template <class T>
Array Array::from_vector(const std::vector<T>& values, const Shape& shape) {
  Array a = empty(shape, dtype_v<T>, Device::cpu());
  if (static_cast<std::int64_t>(values.size()) != a.size())
    throw InvalidArgument("Array::from_vector: argument 'values' has " + std::to_string(values.size()) +
                          " elements, shape " + shape_str(shape) + " needs " + std::to_string(a.size()));
  T* p = static_cast<T*>(a.data_);
  for (std::size_t i = 0; i < values.size(); ++i) p[i] = values[i];
  return a;
}

template <class T>
T Array::at(std::initializer_list<std::int64_t> index) const {
  check_dtype<T>("Array::at");
  if (!device_.is_cpu()) throw InvalidArgument("Array::at: array is on " + device_.str() + ", expected cpu");
  return static_cast<const T*>(data_)[element_offset(index)];
}

template <class T>
std::vector<T> Array::to_vector() const {
  Array host = to(Device::cpu()).astype(dtype_v<T>);
  Stream().synchronize();
  const T* p = static_cast<const T*>(host.data_);
  return std::vector<T>(p, p + host.size());
}

}  // namespace cuskimage
