// PNG and JPEG: reference files decode exactly as scikit-image decodes them; writes read back.
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

class IoPngGolden : public ::testing::TestWithParam<const char*> {};

TEST_P(IoPngGolden, MatchesSkimage) {
  const std::string name = GetParam();
  Array expected = load_golden("io/png_" + name + ".expected.npy");
  Array got = io::imread(io_golden("png_" + name + ".png"));
  EXPECT_ARRAY_EQ(expected, got);
}

INSTANTIATE_TEST_SUITE_P(Files, IoPngGolden,
                         ::testing::Values("gray8", "gray1", "gray2", "gray4", "gray16", "gray8_trns", "la8", "la8_4rows", "rgb8",
                                           "rgba8", "rgb8_trns", "pal1", "pal4", "pal8", "pal8_trns", "imageio_rgb8",
                                           "rgb16", "rgba16", "la16"));

TEST(IoPng, SixteenBitColourKeepsWhatPillowTruncates) {
  // skimage (Pillow) keeps the high byte of 16-bit RGB/RGBA; ours >> 8 equals that.
  for (const char* name : {"rgb16", "rgba16"}) {
    SCOPED_TRACE(name);
    Array sk = load_golden(std::string("io/png_") + name + ".skimage.npy");
    Array got = io::imread(io_golden(std::string("png_") + name + ".png"));
    ASSERT_EQ(got.dtype(), DType::uint16);
    auto g = got.to_vector<std::uint16_t>();
    auto s = sk.to_vector<std::uint8_t>();
    ASSERT_EQ(g.size(), s.size());
    for (std::size_t i = 0; i < g.size(); ++i) ASSERT_EQ(g[i] >> 8, s[i]) << i;
  }
}

TEST(IoPng, RoundTrip) {
  int seed = 0;
  for (DType dt : {DType::uint8, DType::uint16})
    for (const Shape& shape : {Shape{17, 23}, Shape{17, 23, 1}, Shape{5, 23, 2}, Shape{17, 23, 3}, Shape{17, 9, 4}, Shape{1, 1}}) {
      SCOPED_TRACE(std::string(cuskimage::dtype_name(dt)) + cuskimage::shape_str(shape));
      Array a = random_array(shape, dt, 300 + seed++);
      const std::string p = temp_path("rt.png");
      io::imsave(p, a, {.check_contrast = false});
      Array back = io::imread(p);
      if (shape.size() == 3 && shape[2] == 1) {
        EXPECT_ARRAY_EQ(a.reshape({shape[0], shape[1]}), back);
      } else {
        EXPECT_ARRAY_EQ(a, back);
      }
    }
}

TEST(IoPng, BoolWrittenAs0And255) {
  Array a = random_array({6, 8}, DType::bool_, 2);
  const std::string p = temp_path("mask.png");
  ::testing::internal::CaptureStderr();
  io::imsave(p, a);
  ::testing::internal::GetCapturedStderr();
  Array back = io::imread(p);
  ASSERT_EQ(back.dtype(), DType::uint8);
  auto va = a.to_vector<std::uint8_t>(), vb = back.to_vector<std::uint8_t>();
  for (std::size_t i = 0; i < va.size(); ++i) EXPECT_EQ(vb[i], va[i] ? 255 : 0);
}

TEST(IoPng, UnsupportedDtypeAndShape) {
  const std::string p = temp_path("bad.png");
  for (DType dt : {DType::float32, DType::float64, DType::int16, DType::int32, DType::uint32}) {
    EXPECT_TRUE(throws_with<InvalidArgument>([&] { io::imsave(p, random_array({4, 4}, dt, 1)); },
                                             {"io.imsave", "'image'", p, std::string(cuskimage::dtype_name(dt))}));
  }
  EXPECT_TRUE(throws_with<InvalidArgument>([&] { io::imsave(p, random_array({4, 4, 5}, DType::uint8, 1)); }, {p, "shape"}));
  EXPECT_TRUE(throws_with<InvalidArgument>([&] { io::imsave(p, random_array({2, 4, 4, 3}, DType::uint8, 1)); }, {p, "shape"}));
  EXPECT_FALSE(std::filesystem::exists(p));
}

TEST(IoPng, TruncatedAndCorrupt) {
  const auto bytes = read_bytes(io_golden("png_rgb8.png"));
  const std::string p = temp_path("cut.png");
  for (std::size_t keep : {bytes.size() - 20, bytes.size() / 2, std::size_t(40), std::size_t(12)}) {
    SCOPED_TRACE(keep);
    write_bytes(p, std::vector<char>(bytes.begin(), bytes.begin() + keep));
    EXPECT_TRUE(throws_with<FormatError>([&] { io::imread(p); }, {"io.imread", p, "PNG"}));
  }
  auto bad = bytes;
  for (std::size_t i = 60; i < bad.size() - 20; i += 7) bad[i] = static_cast<char>(bad[i] ^ 0x33);
  write_bytes(p, bad);
  EXPECT_TRUE(throws_with<FormatError>([&] { io::imread(p); }, {"io.imread", p, "corrupt PNG"}));
  bad = bytes;
  bad[16] = 0x7f;  // IHDR width, breaks its CRC
  write_bytes(p, bad);
  EXPECT_TRUE(throws_with<FormatError>([&] { io::imread(p); }, {"io.imread", p, "corrupt PNG header"}));
}

// ---- JPEG ----------------------------------------------------------------------------------------
class IoJpegGolden : public ::testing::TestWithParam<const char*> {};

// skimage reads JPEG through Pillow's libjpeg-turbo with the same accurate integer IDCT and fancy
// upsampling: the decode is exact.
TEST_P(IoJpegGolden, MatchesSkimageExactly) {
  const std::string name = GetParam();
  Array expected = load_golden("io/jpg_" + name + ".expected.npy");
  Array got = io::imread(io_golden("jpg_" + name + ".jpg"));
  EXPECT_ARRAY_EQ(expected, got);
}

INSTANTIATE_TEST_SUITE_P(Files, IoJpegGolden,
                         ::testing::Values("gray", "rgb420", "rgb444", "rgb422", "rgb_progressive", "odd_size"));

TEST(IoJpeg, RoundTripIsClose) {
  Array cam = load_golden("io/npy_camera.npy");
  Array astro = load_golden("io/tif_lzw_rgb.expected.npy");
  const std::string p = temp_path("rt.jpg");
  for (int q : {75, 95}) {
    io::imsave(p, cam, {.quality = q});
    Array g = io::imread(p);
    EXPECT_EQ(g.shape(), cam.shape());
    EXPECT_ARRAY_NEAR(cam, g, 0, q == 95 ? 40 : 80);
    io::imsave(p, astro, {.quality = q});
    Array c = io::imread(p);
    EXPECT_EQ(c.shape(), astro.shape());
    auto x = astro.to_vector<double>(), y = c.to_vector<double>();
    double err = 0;
    for (std::size_t i = 0; i < x.size(); ++i) err += std::abs(x[i] - y[i]);
    EXPECT_LT(err / x.size(), q == 95 ? 6.0 : 10.0);
  }
  // Higher quality gives a bigger file.
  io::imsave(p, astro, {.quality = 30});
  const auto small = read_bytes(p).size();
  io::imsave(p, astro, {.quality = 98});
  EXPECT_GT(read_bytes(p).size(), small);
  // (h, w, 1) is written as grey.
  io::imsave(p, cam.reshape({128, 128, 1}), {.quality = 90});
  EXPECT_EQ(io::imread(p).shape(), (Shape{128, 128}));
}

TEST(IoJpeg, UnsupportedDtypeShapeQuality) {
  const std::string p = temp_path("bad.jpg");
  EXPECT_TRUE(throws_with<InvalidArgument>([&] { io::imsave(p, random_array({8, 8}, DType::uint16, 1)); }, {"io.imsave", p, "uint16"}));
  EXPECT_TRUE(throws_with<InvalidArgument>([&] { io::imsave(p, random_array({8, 8}, DType::float64, 1)); }, {p, "float64"}));
  EXPECT_TRUE(throws_with<InvalidArgument>([&] { io::imsave(p, random_array({8, 8, 4}, DType::uint8, 1)); }, {p, "shape"}));
  EXPECT_TRUE(throws_with<InvalidArgument>([&] { io::imsave(p, random_array({8, 8}, DType::uint8, 1), {.quality = 0}); }, {"quality"}));
  EXPECT_TRUE(throws_with<InvalidArgument>([&] { io::imsave(p, random_array({8, 8}, DType::uint8, 1), {.quality = 101}); }, {"quality"}));
  EXPECT_FALSE(std::filesystem::exists(p));
}

TEST(IoJpeg, TruncatedAndCorrupt) {
  const auto bytes = read_bytes(io_golden("jpg_rgb420.jpg"));
  const std::string p = temp_path("cut.jpg");
  for (std::size_t keep : {bytes.size() - 10, bytes.size() / 2, std::size_t(300), std::size_t(4)}) {
    SCOPED_TRACE(keep);
    write_bytes(p, std::vector<char>(bytes.begin(), bytes.begin() + keep));
    EXPECT_TRUE(throws_with<FormatError>([&] { io::imread(p); }, {"io.imread", p, "JPEG"}));
  }
  auto bad = bytes;
  bad.resize(200);  // SOI and part of the tables only
  for (std::size_t i = 2; i < bad.size(); ++i) bad[i] = static_cast<char>(0xFF);
  write_bytes(p, bad);
  EXPECT_TRUE(throws_with<FormatError>([&] { io::imread(p); }, {"io.imread", p, "JPEG"}));
}

}  // namespace
