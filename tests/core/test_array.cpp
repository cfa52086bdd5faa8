#include <gtest/gtest.h>

#include <cuda_runtime.h>
#include <dlpack/dlpack.h>

#include "cuskimage/cuskimage.hpp"
#include "tests/common/test_support.hpp"

using namespace cuskimage;
using cusktest::random_array;

TEST(Dtype, NamesRoundTrip) {
  for (int i = 0; i <= static_cast<int>(DType::float64); ++i) {
    const DType d = static_cast<DType>(i);
    EXPECT_EQ(dtype_from_name(dtype_name(d)), d);
  }
  EXPECT_EQ(itemsize(DType::uint16), 2u);
  EXPECT_TRUE(is_floating(DType::float32));
  EXPECT_FALSE(is_integer(DType::bool_));
  EXPECT_THROW(dtype_from_name("complex64"), InvalidArgument);
}

TEST(Device, Parse) {
  EXPECT_EQ(Device::parse("cpu"), Device::cpu());
  EXPECT_EQ(Device::parse("cuda:1"), Device::cuda(1));
  EXPECT_THROW(Device::parse("tpu"), InvalidArgument);
}

TEST(Array, EmptyShapeStrides) {
  Array a = Array::empty({4, 5, 3}, DType::uint16);
  EXPECT_EQ(a.ndim(), 3);
  EXPECT_EQ(a.size(), 60);
  EXPECT_EQ(a.nbytes(), 120u);
  EXPECT_EQ(a.strides(), (Strides{15, 3, 1}));
  EXPECT_TRUE(a.is_contiguous());
  EXPECT_EQ(a.shape(-1), 3);
  EXPECT_THROW(Array::empty({3, -1}, DType::uint8), InvalidArgument);
}

TEST(Array, FullAndZeros) {
  Array a = Array::full({3, 2}, 7.9, DType::int32);
  for (auto v : a.to_vector<std::int32_t>()) EXPECT_EQ(v, 7);
  Array z = Array::zeros({5}, DType::float64);
  for (auto v : z.to_vector<double>()) EXPECT_EQ(v, 0.0);
}

TEST(Array, SliceMatchesNumpy) {
  std::vector<int> v(20);
  for (int i = 0; i < 20; ++i) v[i] = i;
  Array a = Array::from_vector(v, {4, 5});
  Array s = a.slice({Slice{1, 3}, Slice{.start = {}, .stop = {}, .step = 2}});  // a[1:3, ::2]
  EXPECT_EQ(s.shape(), (Shape{2, 3}));
  EXPECT_FALSE(s.is_contiguous());
  EXPECT_EQ(s.to_vector<int>(), (std::vector<int>{5, 7, 9, 10, 12, 14}));
  Array r = a.slice({Slice{.start = {}, .stop = {}, .step = -1}, Slice{-2, {}}});  // a[::-1, -2:]
  EXPECT_EQ(r.to_vector<int>(), (std::vector<int>{18, 19, 13, 14, 8, 9, 3, 4}));
  Array e = a.slice({Slice{3, 1}});  // empty
  EXPECT_EQ(e.shape(), (Shape{0, 5}));
  EXPECT_THROW(a.slice({Slice{.start = 0, .stop = 2, .step = 0}}), InvalidArgument);
}

TEST(Array, IndexTransposeReshape) {
  std::vector<float> v(24);
  for (int i = 0; i < 24; ++i) v[i] = float(i);
  Array a = Array::from_vector(v, {2, 4, 3});
  Array g = a.index(2, 1);  // a[..., 1]
  EXPECT_EQ(g.shape(), (Shape{2, 4}));
  EXPECT_EQ(g.at<float>({1, 2}), 1 * 12 + 2 * 3 + 1);
  Array t = a.transpose({2, 0, 1});
  EXPECT_EQ(t.shape(), (Shape{3, 2, 4}));
  EXPECT_EQ(t.at<float>({2, 1, 3}), a.at<float>({1, 3, 2}));
  EXPECT_EQ(a.reshape({6, 4}).at<float>({5, 3}), 23.f);
  EXPECT_THROW(t.reshape({24}), NotSupported);
  EXPECT_THROW(a.reshape({5, 5}), InvalidArgument);
  EXPECT_EQ(a.expand_dims(0).shape(), (Shape{1, 2, 4, 3}));
  EXPECT_EQ(a.expand_dims(0).squeeze(0).shape(), a.shape());
  EXPECT_THROW(a.squeeze(0), InvalidArgument);
  EXPECT_THROW(a.index(3, 0), InvalidArgument);
}

TEST(Array, AsStridedIsBoundsChecked) {
  Array a = Array::from_vector(std::vector<std::uint8_t>{0, 1, 2, 3, 4, 5}, {6});
  Array w = a.as_strided({4, 3}, {1, 1});  // sliding windows of 3
  EXPECT_EQ(w.to_vector<std::uint8_t>(), (std::vector<std::uint8_t>{0, 1, 2, 1, 2, 3, 2, 3, 4, 3, 4, 5}));
  EXPECT_THROW(a.as_strided({5, 3}, {1, 1}), InvalidArgument);
}

TEST(Array, AstypeFollowsNumpy) {
  Array f = Array::from_vector(std::vector<double>{-1.7, 0.5, 2.9, 300.0, -5e20, 1e30}, {6});
  EXPECT_EQ(f.astype(DType::int32).to_vector<std::int32_t>(),
            (std::vector<std::int32_t>{-1, 0, 2, 300, INT32_MIN, INT32_MAX}));
  EXPECT_EQ(f.astype(DType::uint8).to_vector<std::uint8_t>(), (std::vector<std::uint8_t>{0, 0, 2, 255, 0, 255}));
  Array i = Array::from_vector(std::vector<std::int32_t>{300, -1, 0}, {3});
  EXPECT_EQ(i.astype(DType::uint8).to_vector<std::uint8_t>(), (std::vector<std::uint8_t>{44, 255, 0}));
  EXPECT_EQ(i.astype(DType::bool_).to_vector<std::uint8_t>(), (std::vector<std::uint8_t>{1, 1, 0}));
}

TEST(Array, CopyOfStridedViewIsContiguous) {
  Array a = random_array({7, 9}, DType::float32, 1);
  Array v = a.slice({Slice{1, 6, 2}, Slice{{}, {}, -3}});
  Array c = v.copy();
  EXPECT_TRUE(c.is_contiguous());
  EXPECT_ARRAY_EQ(v, c);
}

TEST(Array, WrapExternalMemoryCallsDeleter) {
  static int deleted = 0;
  deleted = 0;
  auto* mem = new std::int16_t[6]{1, 2, 3, 4, 5, 6};
  {
    Array a = Array::wrap(mem, {2, 3}, DType::int16, Device::cpu(), [](void* p) {
      delete[] static_cast<std::int16_t*>(p);
      ++deleted;
    });
    Array v = a.index(0, 1);
    a = Array();
    EXPECT_EQ(deleted, 0);  // the view keeps the memory alive
    EXPECT_EQ(v.to_vector<std::int16_t>(), (std::vector<std::int16_t>{4, 5, 6}));
  }
  EXPECT_EQ(deleted, 1);
}

TEST(Array, DlpackRoundTripSharesMemory) {
  Array a = random_array({3, 4}, DType::uint16, 2);
  DLManagedTensor* t = to_dlpack(a.slice({Slice{1, 3}}));
  EXPECT_EQ(t->dl_tensor.ndim, 2);
  EXPECT_EQ(t->dl_tensor.dtype.code, kDLUInt);
  Array b = from_dlpack(t);
  EXPECT_EQ(b.data(), static_cast<std::uint16_t*>(a.data()) + 4);
  EXPECT_ARRAY_EQ(a.slice({Slice{1, 3}}), b);
}

TEST(Array, ViewsAreTypedMdspans) {
  Array a = random_array({5, 6}, DType::float32, 3);
  auto v = make_view<float, 2>(a.slice({Slice{}, Slice{1, 6, 2}}));
  EXPECT_EQ(v.extent(1), 3);
  EXPECT_EQ(v(4, 2), a.at<float>({4, 5}));
  EXPECT_THROW((make_view<float, 3>(a)), InvalidArgument);
  EXPECT_THROW((make_view<std::uint8_t, 2>(a)), InvalidArgument);
}

TEST(Stream, LegacyDefaultStreamIsRejected) {
  EXPECT_THROW(Stream(static_cast<cudaStream_t>(nullptr)), InvalidArgument);
  static_assert(!std::is_constructible_v<Stream, int>);
  static_assert(!std::is_constructible_v<Stream, std::nullptr_t>);
  static_assert(!std::is_copy_constructible_v<Array>);
}

// ---- GPU tier ------------------------------------------------------------------------------------
TEST(GpuArray, RoundTripAllDtypes) {
  CUSK_REQUIRE_GPU();
  for (int i = 0; i <= static_cast<int>(DType::float64); ++i) {
    Array a = random_array({37, 53}, static_cast<DType>(i), 10 + i);
    Array d = a.to(Device::cuda());
    EXPECT_EQ(d.device(), Device::cuda());
    EXPECT_ARRAY_EQ(a, d.to(Device::cpu()));
  }
}

TEST(GpuArray, AstypeMatchesCpu) {
  CUSK_REQUIRE_GPU();
  Stream s = Stream::create();
  for (int i = 0; i <= static_cast<int>(DType::float64); ++i)
    for (int j = 0; j <= static_cast<int>(DType::float64); ++j) {
      Array a = random_array({65, 33}, static_cast<DType>(i), 100 * i + j, -300, 300);
      Array v = a.slice({Slice{1, {}, 2}});
      Array cpu = v.astype(static_cast<DType>(j));
      Array gpu = v.to(Device::cuda(), s).astype(static_cast<DType>(j), s);
      EXPECT_ARRAY_EQ(cpu, gpu) << dtype_name(static_cast<DType>(i)) << "->" << dtype_name(static_cast<DType>(j));
    }
}

TEST(GpuArray, LargeTransferIsChunkedCorrectly) {
  CUSK_REQUIRE_GPU();
  Array a = random_array({9000, 10001}, DType::uint8, 5);  // > 2 staging chunks, odd size
  Array back = a.to(Device::cuda()).to(Device::cpu());
  EXPECT_ARRAY_EQ(a, back);
}

TEST(GpuArray, FillAndStridedCopyFrom) {
  CUSK_REQUIRE_GPU();
  Array d = Array::full({40, 30}, -2.5, DType::float64, Device::cuda());
  Array h = random_array({20, 10}, DType::float64, 9);
  Array view = d.slice({Slice{0, 40, 2}, Slice{5, 15}});
  view.copy_from(h);
  Array back = d.to(Device::cpu());
  EXPECT_ARRAY_EQ(h, back.slice({Slice{0, 40, 2}, Slice{5, 15}}));
  EXPECT_EQ(back.at<double>({1, 7}), -2.5);
  EXPECT_EQ(back.at<double>({0, 4}), -2.5);
}

TEST(GpuArray, NoLegacyDefaultStream) {
  CUSK_REQUIRE_GPU();
  Array h = random_array({512, 512}, DType::uint8, 4);
  EXPECT_TRUE(cusktest::runs_without_legacy_stream([&](const Stream& s) {
    Array d = h.to(Device::cuda(), s);
    Array f = d.astype(DType::float32, s);
    f.fill(1.0, s);
  }));
}

// A wrapper of a created stream's handle shares its ownership: an array allocated through the
// wrapper (as the library's kernel code does) keeps the stream alive after the caller's Stream
// object is gone, so its stream-ordered free does not run on a destroyed stream.
TEST(GpuStream, WrapperOfCreatedStreamSharesOwnership) {
  CUSK_REQUIRE_GPU();
  const Array h = random_array({64, 64}, DType::float32, 9);
  Array kept;
  cudaStream_t handle = nullptr;
  {
    const Stream s = Stream::create();
    handle = s.handle();
    const Stream w(handle);  // what detail code does with the handle it is given
    kept = h.to(Device::cuda(), w).astype(DType::float64, w);
  }
  // The creator is gone; the array's buffer holds the only reference, so the stream still works.
  EXPECT_EQ(cudaStreamQuery(handle) == cudaSuccess || cudaStreamQuery(handle) == cudaErrorNotReady, true);
  EXPECT_ARRAY_EQ(h.astype(DType::float64), kept);
  kept = Array();  // freed on its own (still live) stream; then the stream is destroyed
  // An external handle (not made by Stream::create) is wrapped without ownership.
  cudaStream_t ext = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&ext, cudaStreamNonBlocking), cudaSuccess);
  {
    const Stream w(ext);
    Array a = h.to(Device::cuda(), w);
    w.synchronize();
  }
  EXPECT_EQ(cudaStreamDestroy(ext), cudaSuccess);
}

TEST(GpuArray, DlpackDeviceExport) {
  CUSK_REQUIRE_GPU();
  Array d = random_array({8, 8}, DType::float32, 6).to(Device::cuda());
  DLManagedTensor* t = to_dlpack(d);
  EXPECT_EQ(t->dl_tensor.device.device_type, kDLCUDA);
  Array b = from_dlpack(t);
  EXPECT_EQ(b.device(), Device::cuda());
  EXPECT_ARRAY_EQ(d, b);
}
