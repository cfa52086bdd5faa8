// TIFF: files written by tifffile and Pillow/libtiff read exactly as scikit-image reads them, and
// every dtype x layout x compression written by imsave reads back unchanged.
#include "cuskimage/io.hpp"
#include "tests/io/io_test_util.hpp"

namespace {

using namespace cusktest;
using namespace cusktest::io;
using cuskimage::Array;
using cuskimage::DType;
using cuskimage::FormatError;
using cuskimage::InvalidArgument;
using cuskimage::Shape;
namespace io = cuskimage::io;

class IoTiffGolden : public ::testing::TestWithParam<const char*> {};

TEST_P(IoTiffGolden, MatchesSkimage) {
  const std::string name = GetParam();
  Array expected = load_golden("io/tif_" + name + ".expected.npy");
  Array got = io::imread(io_golden("tif_" + name + ".tif"));
  EXPECT_ARRAY_EQ(expected, got);
}

INSTANTIATE_TEST_SUITE_P(
    Files, IoTiffGolden,
    ::testing::Values("uint8_gray", "int8_gray", "uint16_gray", "int16_gray", "uint32_gray", "int32_gray",
                      "uint64_gray", "int64_gray", "float32_gray", "float64_gray", "bool_1bit", "uint8_rgb",
                      "uint16_rgba", "float32_rgb", "uint8_rgb_planar", "uint16_rgba_planar", "uint8_pages",
                      "uint8_pages3", "uint8_rgb_pages", "uint16_tiled", "uint8_rgb_tiled_deflate",
                      "uint16_deflate_predictor", "int16_strips", "uint8_bigtiff", "float32_bigendian",
                      "uint16_bigendian_rgb", "camera", "lzw_rgb", "lzw_gray", "uint8_4d", "two_series",
                      "mixed_pages"));

// JPEG-in-TIFF: the reference is Pillow's decode (libtiff + libjpeg-turbo with the same islow IDCT).
TEST(IoTiff, JpegCompressedMatchesPillow) {
  for (const char* name : {"jpeg_rgb", "jpeg_gray"}) {
    SCOPED_TRACE(name);
    Array expected = load_golden(std::string("io/tif_") + name + ".expected.npy");
    Array got = io::imread(io_golden(std::string("tif_") + name + ".tif"));
    EXPECT_ARRAY_EQ(expected, got);
  }
}

TEST(IoTiff, PlanarShapeFollowsSkimage) {
  // tifffile gives (3, rows, cols); skimage.io.imread moves the samples last.
  EXPECT_EQ(io::imread(io_golden("tif_uint8_rgb_planar.tif")).shape(), (Shape{20, 30, 3}));
  EXPECT_EQ(io::imread(io_golden("tif_uint8_pages.tif")).shape(), (Shape{5, 12, 10}));
  EXPECT_EQ(io::imread(io_golden("tif_uint8_pages3.tif")).shape(), (Shape{12, 10, 3}));
  EXPECT_EQ(io::imread(io_golden("tif_uint8_rgb_pages.tif")).shape(), (Shape{2, 12, 10, 3}));
}

// ---- round trips ----------------------------------------------------------------------------------
struct TiffCase {
  DType dtype;
  Shape shape;
  std::string compression;
  std::array<std::int64_t, 2> tile;
};

std::string case_name(const TiffCase& c) {
  std::string s = std::string(cuskimage::dtype_name(c.dtype)) + "_" + cuskimage::shape_str(c.shape) + "_" + c.compression;
  if (c.tile[0]) s += "_tiled";
  return s;
}

TEST(IoTiff, RoundTripEveryDtypeLayoutCompression) {
  const DType dtypes[] = {DType::uint8,  DType::int8,   DType::uint16, DType::int16,   DType::uint32,
                          DType::int32,  DType::uint64, DType::int64,  DType::float32, DType::float64};
  const Shape shapes[] = {{37, 41}, {37, 41, 3}, {23, 19, 4}, {3, 37, 41}, {4, 21, 17}, {5, 20, 30}, {2, 20, 30, 3}};
  int n = 0;
  for (DType dt : dtypes)
    for (const Shape& shape : shapes)
      for (const char* comp : {"none", "deflate", "lzw"})
        for (bool tiled : {false, true}) {
          const TiffCase c{dt, shape, comp, tiled ? std::array<std::int64_t, 2>{16, 32} : std::array<std::int64_t, 2>{0, 0}};
          SCOPED_TRACE(case_name(c));
          Array a = random_array(shape, dt, 1000 + n++);
          const std::string p = temp_path("rt.tif");
          io::imsave(p, a, {.check_contrast = false, .compression = comp, .tile = c.tile});
          Array back = io::imread(p);
          // (3|4, rows, cols) is written planar and read back channel-last, as skimage does.
          if (shape.size() == 3 && (shape[0] == 3 || shape[0] == 4)) {
            EXPECT_ARRAY_EQ(a.transpose({1, 2, 0}), back);
          } else {
            EXPECT_ARRAY_EQ(a, back);
          }
        }
}

TEST(IoTiff, BoolIsWrittenAsUint8Like_skimage) {
  Array a = random_array({9, 7}, DType::bool_, 5);
  const std::string p = temp_path("bool.tif");
  ::testing::internal::CaptureStderr();
  io::imsave(p, a);
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("boolean image"), std::string::npos) << err;
  Array back = io::imread(p);
  ASSERT_EQ(back.dtype(), DType::uint8);
  auto va = a.to_vector<std::uint8_t>();
  auto vb = back.to_vector<std::uint8_t>();
  for (std::size_t i = 0; i < va.size(); ++i) EXPECT_EQ(vb[i], va[i] ? 255 : 0);
}

TEST(IoTiff, BigTiffRoundTrip) {
  Array a = random_array({3, 30, 20}, DType::uint16, 7);  // (3, rows, cols): planar RGB
  Array b = random_array({6, 30, 20}, DType::float32, 8);
  const std::string p = temp_path("big.tif");
  io::imsave(p, b, {.check_contrast = false, .bigtiff = true});
  const auto bytes = read_bytes(p);
  ASSERT_GE(bytes.size(), 4u);
  EXPECT_EQ(bytes[2], 43);  // BigTIFF version number
  EXPECT_ARRAY_EQ(b, io::imread(p));
  io::imsave(p, a, {.check_contrast = false, .compression = "deflate", .tile = {16, 16}, .bigtiff = true});
  EXPECT_ARRAY_EQ(a.transpose({1, 2, 0}), io::imread(p));
}

TEST(IoTiff, JpegCompressionRoundTripIsClose) {
  Array img = load_golden("io/npy_camera.npy");  // 128x128 uint8
  const std::string p = temp_path("jpeg.tif");
  io::imsave(p, img, {.quality = 95, .compression = "jpeg"});
  Array back = io::imread(p);
  EXPECT_ARRAY_NEAR(img, back, 0, 40);
  Array rgb = load_golden("io/tif_lzw_rgb.expected.npy");  // astronaut 64x64x3
  io::imsave(p, rgb, {.quality = 95, .compression = "jpeg", .tile = {32, 32}});
  Array back_rgb = io::imread(p);
  EXPECT_EQ(back_rgb.shape(), rgb.shape());
  EXPECT_ARRAY_NEAR(rgb, back_rgb, 0, 80);
  // Mean error small.
  auto x = rgb.to_vector<double>(), y = back_rgb.to_vector<double>();
  double err = 0;
  for (std::size_t i = 0; i < x.size(); ++i) err += std::abs(x[i] - y[i]);
  EXPECT_LT(err / x.size(), 6.0);
  EXPECT_THROW(io::imsave(p, random_array({8, 8}, DType::uint16, 1), {.compression = "jpeg"}), InvalidArgument);
}

TEST(IoTiff, BadArguments) {
  const std::string p = temp_path("bad.tif");
  EXPECT_TRUE(throws_with<InvalidArgument>([&] { io::imsave(p, random_array({4, 4, 4, 5}, DType::uint8, 1)); },
                                           {"io.imsave", "image", p, "shape"}));
  EXPECT_TRUE(throws_with<InvalidArgument>([&] { io::imsave(p, random_array({7}, DType::uint8, 1)); }, {"io.imsave", p}));
  EXPECT_TRUE(throws_with<InvalidArgument>(
      [&] { io::imsave(p, random_array({8, 8}, DType::uint8, 1), {.compression = "zstd"}); }, {"compression", "zstd"}));
  EXPECT_TRUE(throws_with<InvalidArgument>(
      [&] { io::imsave(p, random_array({8, 8}, DType::uint8, 1), {.tile = {10, 16}}); }, {"tile"}));
  EXPECT_FALSE(std::filesystem::exists(p));
  EXPECT_EQ(temp_leftovers(std::filesystem::path(p).parent_path().string()), 0);
}

TEST(IoTiff, TruncatedAndCorrupt) {
  const auto bytes = read_bytes(io_golden("tif_uint16_gray.tif"));
  const std::string p = temp_path("cut.tif");
  for (std::size_t keep : {bytes.size() / 2, std::size_t(100), std::size_t(6)}) {
    SCOPED_TRACE(keep);
    write_bytes(p, std::vector<char>(bytes.begin(), bytes.begin() + keep));
    EXPECT_TRUE(throws_with<FormatError>([&] { io::imread(p); }, {"io.imread", p}));
  }
  // Deflate stream corrupted in the middle of the data.
  auto z = read_bytes(io_golden("tif_uint8_rgb_tiled_deflate.tif"));
  for (std::size_t i = 200; i < 2000 && i < z.size(); i += 3) z[i] = static_cast<char>(z[i] ^ 0x5a);
  write_bytes(p, z);
  EXPECT_TRUE(throws_with<FormatError>([&] { io::imread(p); }, {"io.imread", p}));
}

}  // namespace
