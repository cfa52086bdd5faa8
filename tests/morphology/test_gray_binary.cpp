// skimage.morphology grey (erosion ... black_tophat) and binary (binary_*) operators.
// CPU: golden outputs of scikit-image 0.26 (tests/golden/cases_morphology_ops.py), every op, mode,
// dtype and footprint kind (None, even/asymmetric, disk, decomposed sequences, num_iter 0).
// Min/max and the tophat difference are exact, so every comparison is exact, floats included.
// GPU (Gpu*): device vs CPU on fresh random inputs, contiguous and strided, 2-D and 3-D, every
// mode, on a non-default stream.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cuskimage/morphology.hpp"
#include "cuskimage/stream.hpp"
#include "cuskimage/io.hpp"
#include "tests/cli/cli_support.hpp"
#include "tests/common/test_support.hpp"

namespace {

using namespace cuskimage;
using namespace cuskimage::morphology;
using cusktest::load_golden;

const std::vector<std::string> kOps = {"erosion", "dilation", "opening", "closing", "white_tophat", "black_tophat"};
const std::vector<std::string> kModes = {"reflect", "constant", "nearest", "mirror", "wrap", "max", "min", "ignore"};
const std::vector<std::string> kBinOps = {"binary_erosion", "binary_dilation", "binary_opening", "binary_closing"};
const std::vector<std::string> kBinModes = {"max", "min", "ignore"};
const std::vector<std::string> kDtypes = {"bool", "uint8", "uint16", "int32", "float32", "float64"};

Array asym() { return Array::from_vector<std::uint8_t>({1, 0, 1, 1, 0, 1, 1, 0}, {2, 4}); }

std::vector<std::string> fp_names(int nd) {
  if (nd == 2) return {"none", "asym", "disk2", "diskseq3", "rectsep34", "iter0"};
  return {"none", "ball1", "asym3"};
}

Footprint make_fp(const std::string& name) {
  if (name == "none") return {};
  if (name == "asym") return asym();
  if (name == "disk2") return disk(2);
  if (name == "diskseq3") return disk(3, {.decomposition = Decomposition::sequence});
  if (name == "rectsep34") return footprint_rectangle({3, 4}, {.decomposition = Decomposition::separable});
  if (name == "iter0") {
    std::vector<FootprintElement> seq;
    seq.push_back({asym(), 0});
    seq.push_back({diamond(1).array().share(), 2});
    return Footprint(std::move(seq));
  }
  if (name == "ball1") return ball(1);
  if (name == "asym3") return Array::full({2, 1, 3}, 1, DType::uint8);
  throw std::runtime_error("unknown footprint " + name);
}

double cval_for(DType dt) {
  if (dt == DType::bool_) return 1.0;
  return (dt == DType::float32 || dt == DType::float64) ? 2.5 : 7.0;
}

Array gray(const std::string& op, const Array& img, const GrayOptions& o, const Stream& s = {}) {
  if (op == "erosion") return erosion(img, o, s);
  if (op == "dilation") return dilation(img, o, s);
  if (op == "opening") return opening(img, o, s);
  if (op == "closing") return closing(img, o, s);
  if (op == "white_tophat") return white_tophat(img, o, s);
  return black_tophat(img, o, s);
}

Array binary(const std::string& op, const Array& img, const BinaryOptions& o, const Stream& s = {}) {
  if (op == "binary_erosion") return binary_erosion(img, o, s);
  if (op == "binary_dilation") return binary_dilation(img, o, s);
  if (op == "binary_opening") return binary_opening(img, o, s);
  return binary_closing(img, o, s);
}

GrayOptions gopts(const std::string& fp, const std::string& mode, DType dt) {
  return {.footprint = make_fp(fp), .mode = morph_mode_from_name(mode), .cval = cval_for(dt)};
}

TEST(MorphologyGray, GoldenEveryOpModeDtypeFootprint) {
  int checked = 0;
  for (int nd : {2, 3}) {
    const std::vector<std::string> dts = nd == 2 ? kDtypes : std::vector<std::string>{"uint8", "float32"};
    for (const auto& dt : dts) {
      const std::string tag = std::to_string(nd) + "_" + dt;
      const Array img = load_golden("morphology_ops/in" + tag + ".npy");
      for (const auto& fp : fp_names(nd)) {
        const Array want = load_golden("morphology_ops/gray" + tag + "_" + fp + ".npy");
        for (std::size_t i = 0; i < kOps.size(); ++i)
          for (std::size_t j = 0; j < kModes.size(); ++j) {
            SCOPED_TRACE(kOps[i] + " " + kModes[j] + " " + tag + " " + fp);
            EXPECT_ARRAY_EQ(want.index(0, i).index(0, j), gray(kOps[i], img, gopts(fp, kModes[j], img.dtype())));
            ++checked;
          }
      }
    }
  }
  EXPECT_EQ(checked, (6 * 6 + 2 * 3) * 48);
}

TEST(MorphologyBinary, GoldenEveryOpModeFootprint) {
  for (int nd : {2, 3})
    for (const std::string src : {"bool", "uint8"}) {
      if (nd == 3 && src == "uint8") continue;
      const std::string tag = std::to_string(nd) + "_" + src;
      const Array img = load_golden("morphology_ops/binin" + tag + ".npy");
      for (const auto& fp : fp_names(nd)) {
        const Array want = load_golden("morphology_ops/bin" + tag + "_" + fp + ".npy");
        for (std::size_t i = 0; i < kBinOps.size(); ++i)
          for (std::size_t j = 0; j < kBinModes.size(); ++j) {
            SCOPED_TRACE(kBinOps[i] + " " + kBinModes[j] + " " + tag + " " + fp);
            const BinaryOptions o{.footprint = make_fp(fp), .mode = morph_mode_from_name(kBinModes[j])};
            EXPECT_ARRAY_EQ(want.index(0, i).index(0, j), binary(kBinOps[i], img, o));
          }
      }
    }
}

TEST(MorphologyGray, OutParameterStridedAndInPlace) {
  const Array img = load_golden("morphology_ops/in2_uint8.npy");
  const Array want = load_golden("morphology_ops/gray2_uint8_disk2.npy");
  // A strided `out` (every other column of a wider array).
  Array wide = Array::zeros({13, 28}, DType::uint8);
  Array out = wide.slice({Slice{}, Slice{.step = 2}});
  white_tophat_into(img, out, {.footprint = disk(2)});
  EXPECT_ARRAY_EQ(want.index(0, 4).index(0, 0), out);
  // out is the image itself (scikit-image allows it).
  Array same = img.copy();
  closing_into(same, same, {.footprint = disk(2)});
  EXPECT_ARRAY_EQ(want.index(0, 3).index(0, 0), same);
  // A strided input gives the result of its contiguous copy.
  const Array big = cusktest::random_array({26, 28}, DType::float32, 3);
  const Array view = big.slice({Slice{.step = 2}, Slice{.start = 1, .step = 2}});
  EXPECT_ARRAY_EQ(erosion(view.contiguous(), {.footprint = asym()}), erosion(view, {.footprint = asym()}));
  Array bout = Array::zeros({13, 14}, DType::bool_);
  binary_dilation_into(load_golden("morphology_ops/binin2_uint8.npy"), bout, {.footprint = asym()});
  EXPECT_ARRAY_EQ(load_golden("morphology_ops/bin2_uint8_asym.npy").index(0, 1).index(0, 2), bout);
}

TEST(MorphologyGray, BadArguments) {
  const Array img = Array::zeros({5, 5}, DType::uint8);
  auto throws = [](auto&& f, const std::string& what) {
    try {
      f();
      ADD_FAILURE() << "no exception, expected " << what;
    } catch (const InvalidArgument& e) {
      EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
    }
  };
  throws([&] { erosion(Array{}); }, "morphology.erosion");
  throws([&] { dilation(img, {.footprint = Array::full({3}, 1, DType::uint8)}); }, "footprint");
  throws([&] { opening(img, {.footprint = Footprint(std::vector<FootprintElement>{})}); }, "empty sequence");
  throws([&] { closing(Array::zeros({4, 4}, DType::int8)); }, "morphology.closing");
  throws([&] { morph_mode_from_name("grid-wrap"); }, "unsupported mode");
  throws([&] { erosion(img, {.footprint = Array::zeros({3, 3}, DType::uint8)}); }, "all-zero footprint");
  throws([&] { binary_erosion(img, {.mode = MorphMode::reflect}); }, "unsupported mode");
  Array out = Array::zeros({5, 4}, DType::uint8);
  throws([&] { erosion_into(img, out); }, "'out'");
  Array out2 = Array::zeros({5, 5}, DType::uint16);
  throws([&] { white_tophat_into(img, out2); }, "'out'");
  Array bout = Array::zeros({5, 5}, DType::uint8);
  throws([&] { binary_closing_into(img, bout); }, "'out'");
}

TEST(MorphologyGray, Cli) {
  const Array img = load_golden("morphology_ops/in2_uint8.npy");
  const std::string in = cusktest::temp_path("morph_ops_cli_in.npy"), out = cusktest::temp_path("morph_ops_cli_out.npy");
  const std::string fp = cusktest::temp_path("morph_ops_cli_fp.npy");
  io::imsave(in, img);
  io::imsave(fp, asym());
  auto run = [&](const std::vector<std::string>& args) {
    const auto r = cuskclitest::run_cli(args);
    if (r.rc != 0) ADD_FAILURE_AT(__FILE__, __LINE__) << cuskclitest::describe(r);
    return r.rc;
  };
  const Array want = load_golden("morphology_ops/gray2_uint8_asym.npy");
  ASSERT_EQ(run({"morphology.erosion", in, out, "--footprint", fp, "--mode", "ignore", "--device", "cpu"}), 0);
  EXPECT_ARRAY_EQ(want.index(0, 0).index(0, 7), io::imread(out));
  ASSERT_EQ(run({"morphology.black_tophat", in, out, "--footprint", fp, "--mode", "constant", "--cval", "7",
                 "--device", "cpu"}),
            0);
  EXPECT_ARRAY_EQ(want.index(0, 5).index(0, 1), io::imread(out));
  ASSERT_EQ(run({"morphology.dilation", in, out, "--device", "cpu"}), 0);
  EXPECT_ARRAY_EQ(load_golden("morphology_ops/gray2_uint8_none.npy").index(0, 1).index(0, 0), io::imread(out));
  ASSERT_EQ(run({"morphology.binary_opening", in, out, "--footprint", fp, "--mode", "max", "--device", "cpu"}), 0);
  EXPECT_ARRAY_EQ(binary_opening(img, {.footprint = asym(), .mode = MorphMode::max}), io::imread(out));
  EXPECT_EQ(cuskclitest::run_cli({"morphology.binary_closing", in, out, "--mode", "reflect"}).rc, 2);
}

TEST(MorphologyBinary, AllZeroFootprint) {
  // scipy: an empty structure erodes everything to true and dilates everything to false.
  const Array img = load_golden("morphology_ops/binin2_uint8.npy");
  const Array t = Array::full(img.shape(), 1, DType::bool_), f = Array::zeros(img.shape(), DType::bool_);
  const Array z = Array::zeros({3, 3}, DType::uint8);
  EXPECT_ARRAY_EQ(t, binary_erosion(img, {.footprint = z.share(), .mode = MorphMode::min}));
  EXPECT_ARRAY_EQ(f, binary_dilation(img, {.footprint = z.share(), .mode = MorphMode::max}));
  EXPECT_ARRAY_EQ(f, binary_opening(img, {.footprint = z.share()}));
  EXPECT_ARRAY_EQ(t, binary_closing(img, {.footprint = z.share()}));
}

// ---- GPU ------------------------------------------------------------------------------------------

Array fresh(const Shape& shape, DType dt, std::uint64_t seed) {
  if (dt == DType::int32) return cusktest::random_array(shape, dt, seed, -1000, 1000);
  if (dt == DType::float32 || dt == DType::float64) return cusktest::random_array(shape, dt, seed, -10, 10);
  return cusktest::random_array(shape, dt, seed);
}

TEST(GpuMorphologyGray, MatchesCpuEveryOpModeDtype) {
  CUSK_REQUIRE_GPU();
  const Stream s = Stream::create();
  std::uint64_t seed = 11;
  for (int nd : {2, 3})
    for (const auto& dtn : kDtypes) {
      const DType dt = dtype_from_name(dtn);
      const Shape shape = nd == 2 ? Shape{301, 517} : Shape{19, 37, 45};
      const Array h = fresh(shape, dt, seed++);
      const Array d = h.to(Device::cuda(), s);
      for (const auto& fp : nd == 2 ? std::vector<std::string>{"none", "asym", "disk2", "diskseq3", "rectsep34"}
                                    : fp_names(3))
        for (const auto& op : kOps)
          for (const auto& m : kModes) {
            SCOPED_TRACE(op + " " + m + " " + dtn + " " + fp + " " + std::to_string(nd) + "-D");
            const Array got = gray(op, d, gopts(fp, m, dt), s);
            EXPECT_EQ(got.device(), Device::cuda());
            EXPECT_ARRAY_EQ(gray(op, h, gopts(fp, m, dt)), got);
          }
    }
}

TEST(GpuMorphologyGray, StridedViewsAndOut) {
  CUSK_REQUIRE_GPU();
  const Stream s = Stream::create();
  const Array h = fresh({120, 130}, DType::uint8, 5);
  const Array hv = h.slice({Slice{.start = 1, .step = 2}, Slice{.step = 3}});
  const Array d = h.to(Device::cuda(), s);
  const Array dv = d.slice({Slice{.start = 1, .step = 2}, Slice{.step = 3}});
  for (const auto& op : kOps) {
    SCOPED_TRACE(op);
    EXPECT_ARRAY_EQ(gray(op, hv, {.footprint = disk(2)}), gray(op, dv, {.footprint = disk(2)}, s));
  }
  Array dout_wide = Array::zeros({120, 130}, DType::uint8, Device::cuda());
  Array dout = dout_wide.slice({Slice{.start = 1, .step = 2}, Slice{.step = 3}});
  black_tophat_into(dv, dout, {.footprint = asym(), .mode = MorphMode::ignore}, s);
  EXPECT_ARRAY_EQ(black_tophat(hv, {.footprint = asym(), .mode = MorphMode::ignore}), dout);
  const Array h3 = fresh({20, 22, 24}, DType::float32, 6);
  const Array d3 = h3.to(Device::cuda(), s);
  const Array dv3 = d3.slice({Slice{}, Slice{.step = 2}, Slice{.start = 3}});
  const Array hv3 = h3.slice({Slice{}, Slice{.step = 2}, Slice{.start = 3}});
  EXPECT_ARRAY_EQ(white_tophat(hv3, {.footprint = ball(1)}), white_tophat(dv3, {.footprint = ball(1)}, s));
}

TEST(GpuMorphologyBinary, MatchesCpuEveryOpMode) {
  CUSK_REQUIRE_GPU();
  const Stream s = Stream::create();
  std::uint64_t seed = 21;
  for (int nd : {2, 3})
    for (DType dt : {DType::bool_, DType::uint8, DType::float32}) {
      const Shape shape = nd == 2 ? Shape{257, 301} : Shape{17, 33, 29};
      const Array h = fresh(shape, dt, seed++);
      const Array d = h.to(Device::cuda(), s);
      for (const auto& fp : fp_names(nd))
        for (const auto& op : kBinOps)
          for (const auto& m : kBinModes) {
            SCOPED_TRACE(op + " " + m + " " + fp + " " + std::to_string(nd) + "-D");
            const BinaryOptions o{.footprint = make_fp(fp), .mode = morph_mode_from_name(m)};
            const Array got = binary(op, d, o, s);
            EXPECT_EQ(got.device(), Device::cuda());
            EXPECT_ARRAY_EQ(binary(op, h, o), got);
          }
    }
  // A strided view into a strided out.
  const Array h = fresh({100, 90}, DType::bool_, 9);
  const Array d = h.to(Device::cuda(), s);
  Array wide = Array::zeros({100, 90}, DType::bool_, Device::cuda());
  Array out = wide.slice({Slice{.step = 2}, Slice{}});
  binary_opening_into(d.slice({Slice{.step = 2}, Slice{}}), out, {.footprint = disk(2)}, s);
  EXPECT_ARRAY_EQ(binary_opening(h.slice({Slice{.step = 2}, Slice{}}), {.footprint = disk(2)}), out);
}

TEST(GpuMorphologyGray, NoLegacyStream) {
  CUSK_REQUIRE_GPU();
  const Array h = fresh({256, 256}, DType::uint8, 1);
  const Array d = h.to(Device::cuda());
  Stream().synchronize();
  EXPECT_TRUE(cusktest::runs_without_legacy_stream([&](const Stream& s) {
    Array a = white_tophat(d, {.footprint = disk(3, {.decomposition = Decomposition::sequence})}, s);
    Array b = black_tophat(d, {.footprint = asym(), .mode = MorphMode::ignore}, s);
    Array c = binary_closing(d, {.footprint = disk(2)}, s);
    s.synchronize();
  }));
}

}  // namespace
