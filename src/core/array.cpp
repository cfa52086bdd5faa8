#include "cuskimage/array.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <numeric>
#include <sstream>

#include "cuskimage/memory.hpp"
#include "src/core/backend.hpp"
#include "src/core/buffer.hpp"
#include "src/core/cuda_check.hpp"
#include "src/core/device_guard.hpp"
#include "src/core/validate.hpp"

namespace cuskimage {

using detail::Buffer;
using detail::expect;

Strides contiguous_strides(const Shape& shape) {
  Strides s(shape.size());
  std::int64_t acc = 1;
  for (std::size_t i = shape.size(); i-- > 0;) {
    s[i] = acc;
    acc *= std::max<std::int64_t>(shape[i], 1);
  }
  return s;
}

std::int64_t shape_size(const Shape& shape) {
  std::int64_t n = 1;
  for (auto s : shape) n *= s;
  return n;
}

std::string shape_str(const Shape& shape) {
  std::ostringstream os;
  os << '[';
  for (std::size_t i = 0; i < shape.size(); ++i) os << (i ? ", " : "") << shape[i];
  os << ']';
  return os.str();
}

struct ArrayAccess {
  static Array make(std::shared_ptr<Buffer> buf, void* data, DType dt, Device dev, Shape shape, Strides strides) {
    Array a;
    a.buf_ = std::move(buf);
    a.data_ = data;
    a.dtype_ = dt;
    a.device_ = dev;
    a.shape_ = std::move(shape);
    a.strides_ = std::move(strides);
    return a;
  }
  static const std::shared_ptr<Buffer>& buffer(const Array& a) { return a.buf_; }
};

namespace {

void check_shape(const Shape& shape, std::string_view fn) {
  for (std::size_t i = 0; i < shape.size(); ++i)
    expect(shape[i] >= 0, fn, "shape", "must have non-negative extents, got ", shape_str(shape));
}

std::shared_ptr<Buffer> allocate(std::size_t bytes, Device device, const Stream& stream) {
  if (device.is_cpu()) {
    const std::size_t rounded = (std::max<std::size_t>(bytes, 1) + 63) / 64 * 64;
    void* p = std::aligned_alloc(64, rounded);
    if (!p) throw OutOfMemory("Array::empty: cannot allocate " + std::to_string(bytes) + " bytes of host memory");
    return std::make_shared<Buffer>(p, bytes, device, [](void* q) { std::free(q); });
  }
  detail::DeviceGuard guard(device.index());
  auto res = device_resource(device.index());
  void* p = res->allocate(bytes, stream);
  return std::make_shared<Buffer>(p, bytes, device, [res, bytes, stream](void* q) {
    res->deallocate(q, bytes, stream);
  });
}

/// Lowest and highest byte offsets (relative to data) that a strided layout touches.
std::pair<std::int64_t, std::int64_t> byte_extent(const Shape& shape, const Strides& strides, std::size_t item) {
  std::int64_t lo = 0, hi = 0;
  for (std::size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] == 0) return {0, 0};
    const std::int64_t span = (shape[d] - 1) * strides[d];
    (span < 0 ? lo : hi) += span;
  }
  return {lo * static_cast<std::int64_t>(item), (hi + 1) * static_cast<std::int64_t>(item)};
}

// Pinned double-buffered staging for host<->device copies of contiguous bytes. Sets are pooled
// process-wide rather than per thread: allocating pinned memory (cudaMallocHost) implicitly
// synchronises the device, so it must happen once, not on every new thread's first transfer.
// An event per chunk buffer guards its reuse.
struct Staging {
  static constexpr std::size_t kChunk = std::size_t(32) << 20;
  std::shared_ptr<void> buf[2];
  cudaEvent_t done[2] = {nullptr, nullptr};
  int device = -1;
  Staging() = default;
  Staging(const Staging&) = delete;
  ~Staging() {
    for (auto e : done)
      if (e) cudaEventDestroy(e);
  }
  void init(int dev) {
    if (device == dev) return;
    for (auto& e : done)
      if (e) cudaEventSynchronize(e), cudaEventDestroy(e), e = nullptr;  // buffers idle before reuse
    for (int i = 0; i < 2; ++i) {
      if (!buf[i]) buf[i] = allocate_pinned(kChunk);
      CUSK_CUDA_CHECK(cudaEventCreateWithFlags(&done[i], cudaEventDisableTiming));
    }
    device = dev;
  }
};

class StagingLease {
 public:
  explicit StagingLease(int dev) {
    {
      std::lock_guard lock(mutex());
      auto& pool = free_list();
      for (auto it = pool.begin(); it != pool.end(); ++it)
        if ((*it)->device == dev) {
          set_ = std::move(*it);
          pool.erase(it);
          break;
        }
      if (!set_ && !pool.empty()) {
        set_ = std::move(pool.back());
        pool.pop_back();
      }
    }
    if (!set_) set_ = std::make_unique<Staging>();
    set_->init(dev);
  }
  ~StagingLease() {
    std::lock_guard lock(mutex());
    free_list().push_back(std::move(set_));
  }
  StagingLease(const StagingLease&) = delete;
  Staging* operator->() const { return set_.get(); }

 private:
  static std::mutex& mutex() {
    static std::mutex m;
    return m;
  }
  // Leaked on purpose: pinned memory must not be freed after the CUDA runtime has shut down.
  static std::vector<std::unique_ptr<Staging>>& free_list() {
    static auto* v = new std::vector<std::unique_ptr<Staging>>();
    return *v;
  }
  std::unique_ptr<Staging> set_;
};

void host_to_device(void* dst, const void* src, std::size_t bytes, int dev, cudaStream_t stream) {
  StagingLease st(dev);
  const auto* s = static_cast<const unsigned char*>(src);
  auto* d = static_cast<unsigned char*>(dst);
  for (std::size_t off = 0, k = 0; off < bytes; off += Staging::kChunk, k ^= 1) {
    const std::size_t n = std::min(Staging::kChunk, bytes - off);
    CUSK_CUDA_CHECK(cudaEventSynchronize(st->done[k]));  // the DMA that last read this chunk is done
    std::memcpy(st->buf[k].get(), s + off, n);
    CUSK_CUDA_CHECK(cudaMemcpyAsync(d + off, st->buf[k].get(), n, cudaMemcpyHostToDevice, stream));
    CUSK_CUDA_CHECK(cudaEventRecord(st->done[k], stream));
  }
}

void device_to_host(void* dst, const void* src, std::size_t bytes, int dev, cudaStream_t stream) {
  StagingLease st(dev);
  const auto* s = static_cast<const unsigned char*>(src);
  auto* d = static_cast<unsigned char*>(dst);
  // Chunk k+1's DMA runs while chunk k is copied out of its pinned buffer.
  std::size_t pending_off = 0, pending_n = 0;
  int pending_k = -1;
  for (std::size_t off = 0, k = 0; off < bytes; off += Staging::kChunk, k ^= 1) {
    const std::size_t n = std::min(Staging::kChunk, bytes - off);
    CUSK_CUDA_CHECK(cudaEventSynchronize(st->done[k]));
    CUSK_CUDA_CHECK(cudaMemcpyAsync(st->buf[k].get(), s + off, n, cudaMemcpyDeviceToHost, stream));
    CUSK_CUDA_CHECK(cudaEventRecord(st->done[k], stream));
    if (pending_k >= 0) {
      CUSK_CUDA_CHECK(cudaEventSynchronize(st->done[pending_k]));
      std::memcpy(d + pending_off, st->buf[pending_k].get(), pending_n);
    }
    pending_off = off, pending_n = n, pending_k = static_cast<int>(k);
  }
  if (pending_k >= 0) {
    CUSK_CUDA_CHECK(cudaEventSynchronize(st->done[pending_k]));
    std::memcpy(d + pending_off, st->buf[pending_k].get(), pending_n);
  }
}

}  // namespace

// ---- creation ------------------------------------------------------------------------------------
Array Array::empty(const Shape& shape, DType dtype, Device device, const Stream& stream) {
  check_shape(shape, "Array::empty");
  const std::size_t bytes = static_cast<std::size_t>(shape_size(shape)) * cuskimage::itemsize(dtype);
  auto buf = allocate(bytes, device, stream);
  void* data = buf->ptr();
  return ArrayAccess::make(std::move(buf), data, dtype, device, shape, contiguous_strides(shape));
}

Array Array::zeros(const Shape& shape, DType dtype, Device device, const Stream& stream) {
  Array a = empty(shape, dtype, device, stream);
  if (device.is_cpu()) {
    std::memset(a.data_, 0, a.nbytes());
  } else {
    detail::DeviceGuard g(device.index());
    CUSK_CUDA_CHECK(cudaMemsetAsync(a.data_, 0, a.nbytes(), stream.handle()));
  }
  return a;
}

Array Array::full(const Shape& shape, double value, DType dtype, Device device, const Stream& stream) {
  Array a = empty(shape, dtype, device, stream);
  a.fill(value, stream);
  return a;
}

Array Array::wrap(void* data, const Shape& shape, DType dtype, Device device, std::function<void(void*)> deleter,
                  const Strides& strides) {
  check_shape(shape, "Array::wrap");
  expect(data != nullptr || shape_size(shape) == 0, "Array::wrap", "data", "must not be null");
  expect(strides.empty() || strides.size() == shape.size(), "Array::wrap", "strides", "must have ", shape.size(),
         " entries (one per axis), got ", strides.size());
  Strides st = strides.empty() ? contiguous_strides(shape) : strides;
  const auto [lo, hi] = byte_extent(shape, st, cuskimage::itemsize(dtype));
  auto* base = static_cast<unsigned char*>(data) + lo;
  auto buf = std::make_shared<Buffer>(base, static_cast<std::size_t>(hi - lo), device,
                                      deleter ? std::function<void(void*)>([deleter, data](void*) { deleter(data); })
                                              : std::function<void(void*)>());
  return ArrayAccess::make(std::move(buf), data, dtype, device, shape, std::move(st));
}

// ---- properties ----------------------------------------------------------------------------------
std::int64_t Array::shape(int axis) const {
  return shape_[detail::normalize_axis(axis, ndim(), "Array::shape", "axis")];
}

std::int64_t Array::size() const { return shape_size(shape_); }

bool Array::is_contiguous() const {
  std::int64_t acc = 1;
  for (std::size_t i = shape_.size(); i-- > 0;) {
    if (shape_[i] == 0) return true;
    if (shape_[i] != 1 && strides_[i] != acc) return false;
    acc *= shape_[i];
  }
  return true;
}

std::string Array::str() const {
  return std::string(dtype_name(dtype_)) + shape_str(shape_) + " on " + device_.str();
}

void Array::throw_dtype_mismatch(const char* fn, DType requested) const {
  throw InvalidArgument(std::string(fn) + ": array has dtype " + std::string(dtype_name(dtype_)) + ", requested " +
                        std::string(dtype_name(requested)));
}

std::int64_t Array::element_offset(std::initializer_list<std::int64_t> index) const {
  expect(static_cast<int>(index.size()) == ndim(), "Array::at", "index", "must have ", ndim(), " entries, got ",
         index.size());
  std::int64_t off = 0;
  int d = 0;
  for (auto i : index) {
    expect(i >= 0 && i < shape_[d], "Array::at", "index", "is out of bounds for axis ", d, " with size ", shape_[d],
           ", got ", i);
    off += i * strides_[d++];
  }
  return off;
}

// ---- views ---------------------------------------------------------------------------------------
Array Array::share() const { return ArrayAccess::make(buf_, data_, dtype_, device_, shape_, strides_); }

Array Array::slice(std::span<const Slice> slices) const {
  expect(static_cast<int>(slices.size()) <= ndim(), "Array::slice", "slices", "has ", slices.size(),
         " entries for an array of ndim ", ndim());
  Shape shape = shape_;
  Strides strides = strides_;
  std::int64_t offset = 0;
  for (std::size_t d = 0; d < slices.size(); ++d) {
    const Slice& s = slices[d];
    const std::int64_t n = shape_[d];
    expect(s.step != 0, "Array::slice", "step", "must not be zero");
    // Python's slice.indices(): clamp, negative values count from the end.
    auto norm = [&](std::optional<std::int64_t> v, std::int64_t dflt) {
      if (!v) return dflt;
      std::int64_t x = *v < 0 ? *v + n : *v;
      if (s.step > 0) return std::clamp<std::int64_t>(x, 0, n);
      return std::clamp<std::int64_t>(x, -1, n - 1);
    };
    const std::int64_t start = norm(s.start, s.step > 0 ? 0 : n - 1);
    const std::int64_t stop = norm(s.stop, s.step > 0 ? n : -1);
    std::int64_t len = 0;
    if (s.step > 0 && stop > start) len = (stop - start + s.step - 1) / s.step;
    if (s.step < 0 && start > stop) len = (start - stop - s.step - 1) / (-s.step);
    if (len > 0) offset += start * strides_[d];
    shape[d] = len;
    strides[d] = strides_[d] * s.step;
  }
  void* data = static_cast<unsigned char*>(data_) + offset * static_cast<std::int64_t>(itemsize());
  return ArrayAccess::make(buf_, data, dtype_, device_, std::move(shape), std::move(strides));
}

Array Array::index(int axis, std::int64_t i) const {
  const int ax = detail::normalize_axis(axis, ndim(), "Array::index", "axis");
  const std::int64_t n = shape_[ax];
  expect(i >= -n && i < n, "Array::index", "i", "must be in [", -n, ", ", n - 1, "] for axis ", ax, ", got ", i);
  if (i < 0) i += n;
  Shape shape = shape_;
  Strides strides = strides_;
  shape.erase(shape.begin() + ax);
  strides.erase(strides.begin() + ax);
  void* data = static_cast<unsigned char*>(data_) + i * strides_[ax] * static_cast<std::int64_t>(itemsize());
  return ArrayAccess::make(buf_, data, dtype_, device_, std::move(shape), std::move(strides));
}

Array Array::transpose(const std::vector<int>& axes) const {
  expect(static_cast<int>(axes.size()) == ndim(), "Array::transpose", "axes", "must have ", ndim(), " entries, got ",
         axes.size());
  Shape shape(axes.size());
  Strides strides(axes.size());
  std::vector<bool> seen(axes.size(), false);
  for (std::size_t i = 0; i < axes.size(); ++i) {
    const int a = detail::normalize_axis(axes[i], ndim(), "Array::transpose", "axes");
    expect(!seen[a], "Array::transpose", "axes", "must be a permutation, axis ", a, " repeats");
    seen[a] = true;
    shape[i] = shape_[a];
    strides[i] = strides_[a];
  }
  return ArrayAccess::make(buf_, data_, dtype_, device_, std::move(shape), std::move(strides));
}

Array Array::reshape(const Shape& shape) const {
  check_shape(shape, "Array::reshape");
  expect(shape_size(shape) == size(), "Array::reshape", "shape", "must keep the size ", size(), ", got ",
         shape_str(shape));
  if (!is_contiguous()) throw NotSupported("Array::reshape: array is not contiguous; call contiguous() first");
  return ArrayAccess::make(buf_, data_, dtype_, device_, shape, contiguous_strides(shape));
}

Array Array::expand_dims(int axis) const {
  const int ax = detail::normalize_axis(axis, ndim() + 1, "Array::expand_dims", "axis");
  Shape shape = shape_;
  Strides strides = strides_;
  shape.insert(shape.begin() + ax, 1);
  strides.insert(strides.begin() + ax, ax < ndim() ? strides_[ax] * shape_[ax] : 1);
  return ArrayAccess::make(buf_, data_, dtype_, device_, std::move(shape), std::move(strides));
}

Array Array::squeeze(int axis) const {
  const int ax = detail::normalize_axis(axis, ndim(), "Array::squeeze", "axis");
  expect(shape_[ax] == 1, "Array::squeeze", "axis", "must select an axis of size 1, axis ", ax, " has size ",
         shape_[ax]);
  return index(ax, 0);
}

Array Array::as_strided(const Shape& shape, const Strides& strides, std::int64_t offset) const {
  check_shape(shape, "Array::as_strided");
  expect(strides.size() == shape.size(), "Array::as_strided", "strides", "must have ", shape.size(),
         " entries, got ", strides.size());
  const auto item = static_cast<std::int64_t>(itemsize());
  auto* data = static_cast<unsigned char*>(data_) + offset * item;
  if (shape_size(shape) > 0) {
    const auto [lo, hi] = byte_extent(shape, strides, itemsize());
    const auto* base = static_cast<unsigned char*>(buf_->ptr());
    expect(data + lo >= base && data + hi <= base + buf_->bytes(), "Array::as_strided", "strides",
           "reach outside the array's buffer (shape ", shape_str(shape), ")");
  }
  return ArrayAccess::make(buf_, data, dtype_, device_, shape, strides);
}

// ---- copies --------------------------------------------------------------------------------------
Array Array::copy(const Stream& stream) const { return astype(dtype_, stream); }

Array Array::contiguous(const Stream& stream) const { return is_contiguous() ? share() : copy(stream); }

Array Array::to(Device device, const Stream& stream) const {
  detail::expect_valid(*this, "Array::to", "self");
  if (device == device_) return share();
  Array out = empty(shape_, dtype_, device, stream);
  out.copy_from(*this, stream);
  return out;
}

Array Array::astype(DType dtype, const Stream& stream) const {
  detail::expect_valid(*this, "Array::astype", "self");
  Array out = empty(shape_, dtype, device_, stream);
  out.copy_from(*this, stream);
  return out;
}

void Array::copy_from(const Array& src, const Stream& stream) {
  detail::expect_valid(src, "Array::copy_from", "src");
  detail::expect_same_shape(*this, src, "Array::copy_from", "self", "src");
  if (size() == 0) return;
  if (src.device_ == device_) {
    if (device_.is_cpu()) return detail::cpu_convert(src, *this);
    detail::DeviceGuard g(device_.index());
    return detail::cuda_convert(src, *this, stream);
  }
  // Across devices: move src's bytes contiguous and in its own dtype, then convert on this device.
  Array s = src.contiguous(stream);
  const bool direct = is_contiguous() && dtype_ == src.dtype_;
  Array tmp = direct ? share() : empty(shape_, src.dtype_, device_, stream);
  const std::size_t bytes = s.nbytes();
  if (s.device_.is_cpu()) {
    detail::DeviceGuard g(device_.index());
    host_to_device(tmp.data_, s.data_, bytes, device_.index(), stream.handle());
  } else if (device_.is_cpu()) {
    detail::DeviceGuard g(s.device_.index());
    device_to_host(tmp.data_, s.data_, bytes, s.device_.index(), stream.handle());
  } else {
    detail::DeviceGuard g(device_.index());
    CUSK_CUDA_CHECK(cudaMemcpyPeerAsync(tmp.data_, device_.index(), s.data_, s.device_.index(), bytes,
                                        stream.handle()));
  }
  if (!direct) copy_from(tmp, stream);
}

void Array::fill(double value, const Stream& stream) {
  detail::expect_valid(*this, "Array::fill", "self");
  unsigned char element[8];
  detail::element_from_double(dtype_, value, element);
  if (size() == 0) return;
  if (device_.is_cpu()) return detail::cpu_fill(*this, element);
  detail::DeviceGuard g(device_.index());
  detail::cuda_fill(*this, element, stream);
}

}  // namespace cuskimage
