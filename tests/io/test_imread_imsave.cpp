// imread/imsave behaviour common to every format: detection, errors, atomic writes, as_gray,
// check_contrast and devices.
#include <filesystem>

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
namespace fs = std::filesystem;

TEST(IoImread, MissingFileNamesPathForEveryFormat) {
  for (const char* ext : {".tif", ".png", ".jpg", ".npy", ".xyz", ""}) {
    const std::string p = temp_path(std::string("missing") + ext);
    EXPECT_TRUE(throws_with<FormatError>([&] { io::imread(p); }, {"io.imread", p, "no such file"}));
  }
  const std::string dir = fs::path(temp_path("unused")).parent_path().string();  // exists: temp_path made it
  EXPECT_TRUE(throws_with<FormatError>([&] { io::imread(dir); }, {"io.imread", "directory"}));
}

TEST(IoImread, EmptyAndUnknownFiles) {
  const std::string e = temp_path("empty.png");
  write_bytes(e, {});
  EXPECT_TRUE(throws_with<FormatError>([&] { io::imread(e); }, {"io.imread", e, "empty"}));
  const std::string u = temp_path("text.dat");
  write_bytes(u, {'h', 'e', 'l', 'l', 'o'});
  EXPECT_TRUE(throws_with<FormatError>([&] { io::imread(u); }, {"io.imread", u, "unrecognised"}));
  // Unknown content with a known extension: that format's decoder explains.
  for (const char* ext : {".png", ".jpg", ".tif", ".npy"}) {
    SCOPED_TRACE(ext);
    const std::string p = temp_path(std::string("text") + ext);
    write_bytes(p, {'h', 'e', 'l', 'l', 'o', ' ', 'w', 'o', 'r', 'l', 'd', '!', '!', '!', '!', '!'});
    EXPECT_TRUE(throws_with<FormatError>([&] { io::imread(p); }, {"io.imread", p}));
  }
}

TEST(IoImread, ContentWinsOverExtension) {
  // A PNG named .jpg and a TIFF named .npy read by their content.
  const std::string p1 = temp_path("really_png.jpg");
  fs::copy_file(io_golden("png_rgb8.png"), p1, fs::copy_options::overwrite_existing);
  EXPECT_ARRAY_EQ(load_golden("io/png_rgb8.expected.npy"), io::imread(p1));
  const std::string p2 = temp_path("really_tiff.npy");
  fs::copy_file(io_golden("tif_uint16_gray.tif"), p2, fs::copy_options::overwrite_existing);
  EXPECT_ARRAY_EQ(load_golden("io/tif_uint16_gray.expected.npy"), io::imread(p2));
}

TEST(IoImsave, FormatByExtensionCaseInsensitive) {
  Array a = random_array({10, 12, 3}, DType::uint8, 3);
  for (const char* name : {"a.TIF", "a.Tiff", "a.PNG", "a.npy", "a.NPY"}) {
    SCOPED_TRACE(name);
    const std::string p = temp_path(name);
    io::imsave(p, a, {.check_contrast = false});
    EXPECT_ARRAY_EQ(a, io::imread(p));
  }
  const std::string j = temp_path("a.JPEG");
  io::imsave(j, a, {.check_contrast = false});
  EXPECT_EQ(io::imread(j).shape(), a.shape());
}

TEST(IoImsave, UnknownExtensionIsInvalidArgument) {
  Array a = random_array({4, 4}, DType::uint8, 3);
  for (const char* name : {"a.bmp", "a", "a.tif.gz"}) {
    const std::string p = temp_path(name);
    EXPECT_TRUE(throws_with<InvalidArgument>([&] { io::imsave(p, a); }, {"io.imsave", "'path'", p, "extension"}));
    EXPECT_FALSE(fs::exists(p));
  }
}

TEST(IoImsave, InvalidImage) {
  const std::string p = temp_path("x.png");
  EXPECT_TRUE(throws_with<InvalidArgument>([&] { io::imsave(p, Array()); }, {"io.imsave", "image"}));
  EXPECT_TRUE(throws_with<InvalidArgument>([&] { io::imsave(p, Array::zeros({0, 5}, DType::uint8)); }, {"io.imsave", "no pixels"}));
  EXPECT_TRUE(throws_with<InvalidArgument>([&] { io::imsave(temp_path("x.tif"), Array::zeros({3, 0, 2}, DType::uint8)); }, {"no pixels"}));
  // An empty array is a valid NPY.
  io::imsave(temp_path("x.npy"), Array::zeros({0, 5}, DType::uint8));
  EXPECT_EQ(io::imread(temp_path("x.npy")).shape(), (Shape{0, 5}));
}

TEST(IoImsave, FailureLeavesExistingFileAndNoTemporaries) {
  const std::string p = temp_path("keep.png");
  Array good = random_array({8, 8}, DType::uint8, 9);
  io::imsave(p, good, {.check_contrast = false});
  const auto before = read_bytes(p);
  EXPECT_THROW(io::imsave(p, random_array({8, 8}, DType::float32, 1)), InvalidArgument);
  EXPECT_EQ(read_bytes(p), before);
  // Failing at the very end (the target is a directory): the temporary file is removed.
  const std::string dir_target = temp_path("occupied.npy");
  fs::create_directories(dir_target + "/child");
  EXPECT_TRUE(throws_with<FormatError>([&] { io::imsave(dir_target, good); }, {"io.imsave", dir_target}));
  EXPECT_EQ(temp_leftovers(fs::path(p).parent_path().string()), 0);
  // A directory that does not exist.
  const std::string nowhere = temp_path("no/such/dir/a.tif");
  EXPECT_TRUE(throws_with<FormatError>([&] { io::imsave(nowhere, good); }, {"io.imsave", nowhere}));
}

TEST(IoImsave, CheckContrastWarnsLikeSkimage) {
  const std::string p = temp_path("c.png");
  const auto warns = [&](const Array& a, bool check = true) {
    ::testing::internal::CaptureStderr();
    io::imsave(p, a, {.check_contrast = check});
    return ::testing::internal::GetCapturedStderr().find("low contrast") != std::string::npos;
  };
  EXPECT_TRUE(warns(Array::full({16, 16}, 128, DType::uint8)));
  EXPECT_FALSE(warns(Array::full({16, 16}, 128, DType::uint8), false));
  EXPECT_FALSE(warns(random_array({16, 16}, DType::uint8, 1)));
  EXPECT_TRUE(warns(random_array({16, 16}, DType::uint8, 1, 100, 110)));  // range 10/255 < 5 %
  EXPECT_FALSE(warns(random_array({16, 16}, DType::uint8, 1, 100, 130)));
  EXPECT_TRUE(warns(random_array({16, 16, 3}, DType::uint8, 2, 60, 65)));
  EXPECT_TRUE(warns(random_array({16, 16}, DType::uint16, 2, 0, 3000)));  // 3000/65535
  EXPECT_FALSE(warns(random_array({16, 16}, DType::uint16, 2, 0, 60000)));
  // Float images are judged against [-1, 1] (TIFF).
  ::testing::internal::CaptureStderr();
  io::imsave(temp_path("f.tif"), random_array({16, 16}, DType::float32, 3, 0, 0.05));
  EXPECT_NE(::testing::internal::GetCapturedStderr().find("low contrast"), std::string::npos);
  // NPY is data, not an image: never warned about.
  ::testing::internal::CaptureStderr();
  io::imsave(temp_path("f.npy"), Array::zeros({4, 4}, DType::uint8));
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "");
}

// ---- as_gray ---------------------------------------------------------------------------------------
class IoAsGray : public ::testing::TestWithParam<const char*> {};

TEST_P(IoAsGray, MatchesSkimage) {
  std::string file = GetParam();
  std::string key = file;
  std::replace(key.begin(), key.end(), '.', '_');
  Array expected = load_golden("io/asgray_" + key + ".npy");
  Array got = io::imread(io_golden(file), {.as_gray = true});
  ASSERT_EQ(expected.dtype(), got.dtype());
  // skimage computes rgb @ weights through BLAS for contiguous input (its kernel may fuse multiply-adds
  // or sum in another order: results differ by up to 1 ulp); planar input takes numpy's plain loop and
  // matches exactly. Allow a few ulp.
  EXPECT_ARRAY_NEAR(expected, got, got.dtype() == DType::float32 ? 1e-6 : 1e-14, 0);
}

INSTANTIATE_TEST_SUITE_P(Files, IoAsGray,
                         ::testing::Values("png_rgb8.png", "png_rgba8.png", "jpg_rgb420.jpg", "tif_float32_rgb.tif",
                                           "png_gray8.png", "tif_uint16_rgba.tif", "tif_uint8_rgb_planar.tif"));

TEST(IoAsGray, GreyStaysAsIsAndTwoChannelsFail) {
  Array g = io::imread(io_golden("png_gray8.png"), {.as_gray = true});
  EXPECT_EQ(g.dtype(), DType::uint8);
  const std::string p = io_golden("png_la8.png");
  EXPECT_TRUE(throws_with<InvalidArgument>([&] { io::imread(p, {.as_gray = true}); }, {"io.imread", "as_gray", p}));
}

// ---- devices ---------------------------------------------------------------------------------------
TEST(GpuIo, ImreadToDeviceOnStreamAndImsaveFromDevice) {
  CUSK_REQUIRE_GPU();
  auto stream = cuskimage::Stream::create();
  for (const char* name : {"png_rgb8.png", "tif_uint8_rgb_planar.tif", "jpg_gray.jpg"}) {
    SCOPED_TRACE(name);
    Array host = io::imread(io_golden(name));
    Array dev = io::imread(io_golden(name), {.device = cuskimage::Device::cuda()}, stream);
    EXPECT_TRUE(dev.device().is_cuda());
    stream.synchronize();
    EXPECT_ARRAY_EQ(host, dev);
    Array gray = io::imread(io_golden(name), {.as_gray = true, .device = cuskimage::Device::cuda()}, stream);
    EXPECT_TRUE(gray.device().is_cuda());
  }
  Array a = random_array({20, 30, 3}, DType::uint16, 4).to(cuskimage::Device::cuda(), stream);
  for (const char* ext : {".tif", ".png", ".npy"}) {
    const std::string p = temp_path(std::string("dev") + ext);
    io::imsave(p, a.slice({{2, 18}, {1, 29, 2}}), {.check_contrast = false}, stream);  // strided device view
    EXPECT_ARRAY_EQ(a.slice({{2, 18}, {1, 29, 2}}), io::imread(p));
  }
}

TEST(GpuIo, NoLegacyDefaultStream) {
  CUSK_REQUIRE_GPU();
  Array a = random_array({64, 64}, DType::uint8, 4);
  const std::string p = temp_path("s.png");
  io::imsave(p, a, {.check_contrast = false});
  EXPECT_TRUE(runs_without_legacy_stream([&](const cuskimage::Stream& s) {
    Array d = io::imread(p, {.device = cuskimage::Device::cuda()}, s);
    io::imsave(temp_path("s2.npy"), d, {}, s);
  }));
}

}  // namespace
