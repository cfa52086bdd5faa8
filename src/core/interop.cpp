#include "cuskimage/interop.hpp"

#include <dlpack/dlpack.h>

#include "src/core/validate.hpp"

namespace cuskimage {
namespace {

constexpr std::uint8_t kDLBoolCode = 6;  // kDLBool (DLPack >= 0.8); this header may predate it

DType dtype_from_dl(DLDataType t) {
  if (t.lanes != 1) throw NotSupported("from_dlpack: vector dtypes (lanes != 1) are not supported");
  if (t.code == kDLBoolCode && t.bits == 8) return DType::bool_;
  if (t.code == kDLUInt) switch (t.bits) {
      case 8: return DType::uint8;
      case 16: return DType::uint16;
      case 32: return DType::uint32;
      case 64: return DType::uint64;
    }
  if (t.code == kDLInt) switch (t.bits) {
      case 8: return DType::int8;
      case 16: return DType::int16;
      case 32: return DType::int32;
      case 64: return DType::int64;
    }
  if (t.code == kDLFloat && t.bits == 32) return DType::float32;
  if (t.code == kDLFloat && t.bits == 64) return DType::float64;
  throw NotSupported("from_dlpack: dtype code " + std::to_string(t.code) + " with " + std::to_string(t.bits) +
                     " bits is not supported");
}

DLDataType dl_from_dtype(DType dt) {
  DLDataType t{};
  t.lanes = 1;
  t.bits = static_cast<std::uint8_t>(itemsize(dt) * 8);
  t.code = dt == DType::bool_      ? kDLBoolCode
           : is_floating(dt)       ? std::uint8_t(kDLFloat)
           : is_signed(dt)         ? std::uint8_t(kDLInt)
                                   : std::uint8_t(kDLUInt);
  return t;
}

struct Exported {
  Array array;
  std::vector<std::int64_t> shape, strides;
  DLManagedTensor tensor{};
};

}  // namespace

Array from_dlpack(DLManagedTensor* t) {
  detail::expect(t != nullptr, "from_dlpack", "tensor", "must not be null");
  const DLTensor& x = t->dl_tensor;
  Device dev;
  switch (x.device.device_type) {
    case kDLCPU:
    case kDLCUDAHost: dev = Device::cpu(); break;
    case kDLCUDA: dev = Device::cuda(x.device.device_id); break;
    default:
      throw NotSupported("from_dlpack: device type " + std::to_string(x.device.device_type) +
                         " is not supported (cpu, cuda and cuda-host are)");
  }
  const DType dt = dtype_from_dl(x.dtype);
  Shape shape(x.shape, x.shape + x.ndim);
  Strides strides = x.strides ? Strides(x.strides, x.strides + x.ndim) : contiguous_strides(shape);
  void* data = static_cast<unsigned char*>(x.data) + x.byte_offset;
  return Array::wrap(data, shape, dt, dev, [t](void*) { if (t->deleter) t->deleter(t); }, strides);
}

DLManagedTensor* to_dlpack(const Array& a) {
  detail::expect_valid(a, "to_dlpack", "a");
  auto* e = new Exported{a.share(), a.shape(), a.strides(), {}};
  DLTensor& x = e->tensor.dl_tensor;
  x.data = a.data();
  x.device = a.device().is_cpu() ? DLDevice{kDLCPU, 0} : DLDevice{kDLCUDA, a.device().index()};
  x.ndim = a.ndim();
  x.dtype = dl_from_dtype(a.dtype());
  x.shape = e->shape.data();
  x.strides = e->strides.data();
  x.byte_offset = 0;
  e->tensor.manager_ctx = e;
  e->tensor.deleter = [](DLManagedTensor* self) { delete static_cast<Exported*>(self->manager_ctx); };
  return &e->tensor;
}

}  // namespace cuskimage
