// NPY: reading every dtype in every encoding numpy writes, and writing byte-identical files.
#include <cstring>

#include "cuskimage/io.hpp"
#include "tests/io/io_test_util.hpp"

namespace {

using namespace cusktest;
using namespace cusktest::io;
using cuskimage::Array;
using cuskimage::DType;
using cuskimage::FormatError;
namespace io = cuskimage::io;

const char* const kDtypes[] = {"bool",  "uint8",  "int8",   "uint16",  "int16",  "uint32",
                               "int32", "uint64", "int64", "float32", "float64"};

TEST(IoNpy, KnownValues) {
  Array a = io::imread(io_golden("npy_arange_int32.npy"));
  ASSERT_EQ(a.dtype(), DType::int32);
  ASSERT_EQ(a.shape(), (cuskimage::Shape{2, 3, 4}));
  auto v = a.to_vector<std::int32_t>();
  for (int i = 0; i < 24; ++i) EXPECT_EQ(v[i], i);
}

TEST(IoNpy, ScalarOneDimAndEmpty) {
  Array s = io::imread(io_golden("npy_scalar_float64.npy"));
  EXPECT_EQ(s.ndim(), 0);
  EXPECT_EQ(s.to_vector<double>().at(0), 2.5);
  Array v = io::imread(io_golden("npy_1d_uint16.npy"));
  ASSERT_EQ(v.shape(), (cuskimage::Shape{7}));
  EXPECT_EQ(v.to_vector<std::uint16_t>()[6], 6);
  Array e = io::imread(io_golden("npy_empty_float32.npy"));
  EXPECT_EQ(e.shape(), (cuskimage::Shape{0, 3}));
  EXPECT_EQ(e.dtype(), DType::float32);
}

class IoNpyDtype : public ::testing::TestWithParam<const char*> {};

TEST_P(IoNpyDtype, EveryEncodingReadsTheSameArray) {
  const std::string dt = GetParam();
  Array ref = io::imread(io_golden("npy_" + dt + ".npy"));
  EXPECT_EQ(ref.dtype(), cuskimage::dtype_from_name(dt));
  EXPECT_EQ(ref.shape(), (cuskimage::Shape{3, 4, 5}));
  std::vector<std::string> variants = {"_fortran", "_v2", "_v3"};
  if (dt != "bool" && dt != "uint8" && dt != "int8") variants.push_back("_be");
  for (const auto& v : variants) {
    SCOPED_TRACE(v);
    Array a = io::imread(io_golden("npy_" + dt + v + ".npy"));
    EXPECT_TRUE(a.is_contiguous());
    EXPECT_ARRAY_EQ(ref, a);
  }
}

TEST_P(IoNpyDtype, WriteIsByteIdenticalToNumpy) {
  const std::string dt = GetParam();
  const std::string src = io_golden("npy_" + dt + ".npy");
  Array a = io::imread(src);
  const std::string out = temp_path("out_" + dt + ".npy");
  io::imsave(out, a);
  EXPECT_EQ(read_bytes(src), read_bytes(out));
  // A strided view is written as its C-order copy.
  Array t = a.transpose({2, 1, 0});
  io::imsave(out, t);
  Array back = io::imread(out);
  EXPECT_ARRAY_EQ(t, back);
}

INSTANTIATE_TEST_SUITE_P(AllDtypes, IoNpyDtype, ::testing::ValuesIn(kDtypes));

TEST(IoNpy, WriteShapesByteIdentical) {
  for (const char* name : {"npy_scalar_float64", "npy_1d_uint16", "npy_empty_float32", "npy_camera",
                           "npy_arange_int32"}) {
    SCOPED_TRACE(name);
    const std::string src = io_golden(std::string(name) + ".npy");
    const std::string out = temp_path(std::string(name) + ".npy");
    io::imsave(out, io::imread(src));
    EXPECT_EQ(read_bytes(src), read_bytes(out));
  }
}

TEST(IoNpy, UnsupportedDtypesRaiseFormatError) {
  for (const char* name : {"complex", "float16", "structured", "object"}) {
    SCOPED_TRACE(name);
    const std::string p = io_golden(std::string("npy_bad_") + name + ".npy");
    EXPECT_TRUE(throws_with<FormatError>([&] { io::imread(p); }, {"io.imread", p, "not supported"}));
  }
}

TEST(IoNpy, TruncatedAndCorrupt) {
  const auto bytes = read_bytes(io_golden("npy_float64.npy"));
  // Cut in the data, in the header and in the preamble.
  for (std::size_t keep : {bytes.size() - 1, std::size_t(100), std::size_t(9), std::size_t(3)}) {
    SCOPED_TRACE(keep);
    const std::string p = temp_path("cut.npy");
    write_bytes(p, std::vector<char>(bytes.begin(), bytes.begin() + keep));
    EXPECT_TRUE(throws_with<FormatError>([&] { io::imread(p); }, {"io.imread", p, "truncated"}));
  }
  // Corrupt header text.
  auto bad = bytes;
  const std::string key = "'shape'";
  auto it = std::search(bad.begin(), bad.end(), key.begin(), key.end());
  ASSERT_NE(it, bad.end());
  std::memcpy(&*it, "'shapz'", 7);
  const std::string p = temp_path("corrupt.npy");
  write_bytes(p, bad);
  EXPECT_TRUE(throws_with<FormatError>([&] { io::imread(p); }, {"io.imread", p, "invalid NPY header"}));
  // Wrong version.
  bad = bytes;
  bad[6] = 9;
  write_bytes(p, bad);
  EXPECT_TRUE(throws_with<FormatError>([&] { io::imread(p); }, {p, "version"}));
}

TEST(GpuIoNpy, ReadToDeviceAndWriteFromDevice) {
  CUSK_REQUIRE_GPU();
  auto stream = cuskimage::Stream::create();
  Array a = io::imread(io_golden("npy_float32.npy"), {.device = cuskimage::Device::cuda()}, stream);
  EXPECT_TRUE(a.device().is_cuda());
  Array ref = io::imread(io_golden("npy_float32.npy"));
  EXPECT_ARRAY_EQ(ref, a);
  const std::string out = temp_path("dev.npy");
  io::imsave(out, a.transpose({1, 0, 2}), {}, stream);
  EXPECT_ARRAY_EQ(ref.transpose({1, 0, 2}), io::imread(out));
}

}  // namespace
