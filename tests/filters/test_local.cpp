// Local filters of skimage.filters: golden outputs of scikit-image 0.26 (cases_filters_local.py):
// median and rank_order exact; correlate_sparse, niblack/sauvola and threshold_local 'mean'/'median'/
// 'generic' exact bit for bit (same operations in the same order; 1e-6 relative allowed for float32
// niblack/sauvola whose sqrt/division may round once differently), threshold_local 'gaussian'
// within 1e-6 relative (float32) / 1e-12 (float64: the gaussian helper's pairwise-normalised
// kernel), window within 1e-12. The Gpu* suites compare the CUDA backend with the CPU one on fresh
// random inputs, contiguous and strided, every mode and a non-default stream.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "cuskimage/filters.hpp"
#include "cuskimage/io.hpp"
#include "tests/cli/cli_support.hpp"
#include "tests/common/test_support.hpp"

namespace filters = cuskimage::filters;
namespace ndimage = cuskimage::ndimage;
using cuskimage::Array;
using cuskimage::Device;
using cuskimage::DType;
using cuskimage::InvalidArgument;
using cuskimage::Shape;
using cuskimage::Slice;
using cuskimage::Stream;

namespace {

Array golden(const std::string& name) { return cusktest::load_golden("filters_local/" + name + ".npy"); }

const std::vector<std::string> kModes = {"reflect", "constant", "nearest", "mirror", "wrap"};

}  // namespace

// ---- median ----------------------------------------------------------------------------------------
TEST(LocalMedian, GoldenNdimageBehaviour) {
  const std::vector<std::string> cases = {"u8", "i16", "f32", "u16_3d", "f64_1d", "i64"};
  const std::vector<std::string> fps = {"default", "disk2", "even", "sq5", "row3"};
  int checked = 0;
  for (const auto& c : cases) {
    const Array img = golden("median_" + c + "_in");
    for (const auto& f : fps) {
      Array fp;
      if (f != "default") {
        fp = golden("median_fp_" + f);
        if (fp.ndim() != img.ndim()) continue;
      }
      for (const auto& m : kModes) {
        const double cval = m == "constant" ? 3.5 : 0.0;
        const Array r = filters::median(img, {.footprint = fp.valid() ? fp.share() : Array(),
                                              .mode = ndimage::mode_from_name(m), .cval = cval});
        EXPECT_ARRAY_EQ(golden("median_" + c + "_" + f + "_" + m), r) << c << " " << f << " " << m;
        ++checked;
      }
    }
  }
  EXPECT_GT(checked, 50);
  const Array v = golden("median_u16_3d_in");
  EXPECT_ARRAY_EQ(golden("median_u16_3d_ball1_reflect"),
                  filters::median(v, {.footprint = golden("median_fp_ball1"), .mode = ndimage::Mode::reflect}));
}

TEST(LocalMedian, GoldenRankBehaviour) {
  const auto rank = filters::MedianBehavior::rank;
  const Array u8 = golden("median_u8_in");
  EXPECT_ARRAY_EQ(golden("median_rank_u8_disk2"), filters::median(u8, {.footprint = golden("median_fp_disk2"), .behavior = rank}));
  EXPECT_ARRAY_EQ(golden("median_rank_u8_even"), filters::median(u8, {.footprint = golden("median_fp_even"), .behavior = rank}));
  EXPECT_ARRAY_EQ(golden("median_rank_u16_default"), filters::median(golden("median_rank_u16_in"), {.behavior = rank}));
  EXPECT_ARRAY_EQ(golden("median_rank_f64_disk2"),
                  filters::median(golden("median_rank_f64_in"), {.footprint = golden("median_fp_disk2"), .behavior = rank}));
  EXPECT_ARRAY_EQ(golden("median_rank_u16_3d_ball1"),
                  filters::median(golden("median_u16_3d_in"), {.footprint = golden("median_fp_ball1"), .behavior = rank}));
}

TEST(LocalMedian, StridedOutAndErrors) {
  const Array img = golden("median_u8_in");
  const Array view = img.slice({Slice{1, std::nullopt, 2}, Slice{std::nullopt, std::nullopt, -1}});
  EXPECT_ARRAY_EQ(filters::median(view.copy()), filters::median(view));
  Array big = Array::zeros({img.shape(0), img.shape(1) * 2}, DType::uint8);
  Array out = big.slice({Slice{}, Slice{std::nullopt, std::nullopt, 2}});
  filters::median_into(img, out, {});
  EXPECT_ARRAY_EQ(filters::median(img), out);
  EXPECT_THROW(filters::median(Array()), InvalidArgument);
  EXPECT_THROW(filters::median(Array::zeros({4, 4}, DType::bool_)), InvalidArgument);
  EXPECT_THROW(filters::median(img, {.footprint = Array::zeros({3, 3}, DType::uint8)}), InvalidArgument);
  EXPECT_THROW(filters::median(img, {.footprint = Array::zeros({3}, DType::uint8)}), InvalidArgument);
  EXPECT_THROW(filters::median(Array::zeros({4, 4}, DType::bool_), {.behavior = filters::MedianBehavior::rank}),
               InvalidArgument);
  EXPECT_THROW(filters::median(Array::zeros({4}, DType::uint8), {.behavior = filters::MedianBehavior::rank}),
               InvalidArgument);
  Array wrong = Array::zeros(img.shape(), DType::uint16);
  EXPECT_THROW(filters::median_into(img, wrong), InvalidArgument);
}

// ---- rank_order, correlate_sparse, window -------------------------------------------------------------
TEST(LocalRankOrder, Golden) {
  for (const std::string c : {"i32", "f64"}) {
    const auto r = filters::rank_order(golden("rank_order_" + c + "_in"));
    EXPECT_ARRAY_EQ(golden("rank_order_" + c + "_labels"), r.labels) << c;
    EXPECT_ARRAY_EQ(golden("rank_order_" + c + "_values"), r.original_values) << c;
  }
  EXPECT_THROW(filters::rank_order(Array::empty({0}, DType::uint8)), InvalidArgument);
}

TEST(LocalCorrelateSparse, Golden) {
  const Array k = golden("sparse_kernel");
  for (const std::string c : {"f32", "u8"}) {
    const Array img = golden("sparse_" + c + "_in");
    for (const std::string m : {"reflect", "constant", "nearest", "mirror", "wrap", "valid"})
      EXPECT_ARRAY_EQ(golden("sparse_" + c + "_" + m), filters::correlate_sparse(img, k, {.mode = m})) << c << m;
  }
  EXPECT_ARRAY_EQ(golden("sparse_f64_3d_reflect"),
                  filters::correlate_sparse(golden("sparse_f64_3d_in"), golden("sparse_kernel3")));
  const Array img = golden("sparse_f32_in");
  EXPECT_THROW(filters::correlate_sparse(img, Array::zeros({4, 3}, DType::float64)), InvalidArgument);
  EXPECT_THROW(filters::correlate_sparse(img, k, {.mode = "grid-wrap"}), InvalidArgument);
  EXPECT_THROW(filters::correlate_sparse(img, Array::zeros({3}, DType::float64)), InvalidArgument);
}

namespace {
struct WindowCase {
  filters::WindowType type;
  Shape shape;
};
std::vector<WindowCase> window_cases() {
  const double nan = std::nan("");
  return {{{"hann"}, {17, 23}},          {{"tukey", {0.3}}, {16, 16}},     {{"hamming"}, {9, 9, 7}},
          {{"kaiser", {5.0}}, {20}},     {{"boxcar"}, {10, 13}},           {{"gaussian", {3.0}}, {7, 30}},
          {{"blackman"}, {12, 12}},      {{"triang"}, {11}},               {{"triang"}, {12}},
          {{"bartlett"}, {9, 14}},       {{"flattop"}, {15}},              {{"parzen"}, {13, 13}},
          {{"parzen"}, {16}},            {{"bohman"}, {10}},               {{"blackmanharris"}, {11}},
          {{"nuttall"}, {11}},           {{"barthann"}, {12}},             {{"cosine"}, {9}},
          {{"exponential"}, {10}},       {{"exponential", {nan, 3.0}}, {9}}, {{"general_gaussian", {1.5, 2.0}}, {14}},
          {{"general_hamming", {0.6}}, {10}}, {{"lanczos"}, {11}},         {{"lanczos"}, {10}},
          {{"taylor"}, {20}},            {{"taylor", {5, 35, 0}}, {21}},   {{"hann_periodic"}, {10}},
          {{"tukey"}, {1}}};
}
}  // namespace

TEST(LocalWindow, Golden) {
  const auto cases = window_cases();
  for (std::size_t i = 0; i < cases.size(); ++i)
    EXPECT_ARRAY_NEAR(golden("window_" + std::to_string(i)), filters::window(cases[i].type, cases[i].shape), 0, 1e-12)
        << cases[i].type.name;
  EXPECT_THROW(filters::window("nope", {4}), InvalidArgument);
  EXPECT_THROW(filters::window("hann", {}), InvalidArgument);
  EXPECT_THROW(filters::window("hann", {-1, 3}), InvalidArgument);
  EXPECT_THROW(filters::window("kaiser", {4}), InvalidArgument);
  EXPECT_THROW(filters::window({"hann", {1.0}}, {4}), InvalidArgument);
}

// ---- local thresholds ----------------------------------------------------------------------------------
TEST(LocalThreshold, Golden) {
  using M = filters::ThresholdLocalMethod;
  for (const std::string c : {"u8", "f32"}) {
    const Array img = golden("local_" + c + "_in");
    const double tol = c == "f32" ? 1e-6 : 1e-12;
    EXPECT_ARRAY_NEAR(golden("local_" + c + "_gaussian"), filters::threshold_local(img, {.block_size = {7}}), tol, 0);
    EXPECT_ARRAY_NEAR(golden("local_" + c + "_gaussian_param"),
                      filters::threshold_local(img, {.block_size = {5}, .offset = 0.1, .mode = ndimage::Mode::nearest,
                                                     .param = {2.0}}),
                      tol, 1e-7);
    EXPECT_ARRAY_EQ(golden("local_" + c + "_mean"),
                    filters::threshold_local(img, {.block_size = {5, 3}, .method = M::mean, .offset = -2,
                                                   .mode = ndimage::Mode::constant, .cval = 1.5}));
    EXPECT_ARRAY_EQ(golden("local_" + c + "_median"),
                    filters::threshold_local(img, {.block_size = {5}, .method = M::median, .mode = ndimage::Mode::wrap}));
    auto mx = [](const std::vector<double>& v) { return *std::max_element(v.begin(), v.end()); };
    EXPECT_ARRAY_EQ(golden("local_" + c + "_generic"),
                    filters::threshold_local(img, {.block_size = {3}, .method = M::generic, .function = mx}));
    const double ftol = c == "f32" ? 1e-6 : 0;
    EXPECT_ARRAY_NEAR(golden("niblack_" + c), filters::threshold_niblack(img, {.window_size = {7}, .k = 0.3}), ftol, 0);
    EXPECT_ARRAY_NEAR(golden("niblack_" + c + "_rect"), filters::threshold_niblack(img, {.window_size = {5, 9}}), ftol, 0);
    EXPECT_ARRAY_NEAR(golden("sauvola_" + c), filters::threshold_sauvola(img, {.window_size = {9}}), ftol, 0);
    EXPECT_ARRAY_NEAR(golden("sauvola_" + c + "_r"),
                      filters::threshold_sauvola(img, {.window_size = {5}, .k = 0.5, .r = 64.0}), ftol, 0);
  }
  const Array v = golden("local_f64_3d_in");
  EXPECT_ARRAY_EQ(golden("niblack_f64_3d"), filters::threshold_niblack(v, {.window_size = {3}}));
  EXPECT_ARRAY_EQ(golden("sauvola_f64_3d"), filters::threshold_sauvola(v, {.window_size = {3, 5, 3}}));
  EXPECT_ARRAY_EQ(golden("local_f64_3d_mean"), filters::threshold_local(v, {.block_size = {3}, .method = M::mean}));
  EXPECT_THROW(filters::threshold_local(v, {.block_size = {4}}), InvalidArgument);
  EXPECT_THROW(filters::threshold_local(v, {.block_size = {3, 3}}), InvalidArgument);
  EXPECT_THROW(filters::threshold_local(v, {.method = M::generic}), InvalidArgument);
  EXPECT_THROW(filters::threshold_niblack(v, {.window_size = {4}}), InvalidArgument);
  EXPECT_THROW(filters::threshold_sauvola(Array(), {}), InvalidArgument);
}

// ---- hysteresis, try_all -------------------------------------------------------------------------------
TEST(LocalHysteresis, Golden) {
  const Array f = golden("hyst_f32_in");
  EXPECT_ARRAY_EQ(golden("hyst_f32"), filters::apply_hysteresis_threshold(f, 0.48, 0.53));
  EXPECT_ARRAY_EQ(golden("hyst_f32_swapped"), filters::apply_hysteresis_threshold(f, 0.55, 0.5));
  EXPECT_ARRAY_EQ(golden("hyst_u8"), filters::apply_hysteresis_threshold(golden("hyst_u8_in"), 150, 240));
  const Array view = f.slice({Slice{std::nullopt, std::nullopt, -1}});
  EXPECT_ARRAY_EQ(filters::apply_hysteresis_threshold(view.copy(), 0.48, 0.53),
                  filters::apply_hysteresis_threshold(view, 0.48, 0.53));
  EXPECT_THROW(filters::apply_hysteresis_threshold(Array(), 0, 1), InvalidArgument);
}

TEST(LocalTryAll, Golden) {
  const Array cam = golden("try_all_in");
  const Array masks = golden("try_all_masks");
  const auto r = filters::try_all_threshold(cam);
  const std::vector<std::string> names = {"Isodata", "Li", "Mean", "Minimum", "Otsu", "Triangle", "Yen"};
  ASSERT_EQ(r.size(), names.size());
  for (std::size_t i = 0; i < r.size(); ++i) {
    EXPECT_EQ(r[i].first, names[i]);
    EXPECT_ARRAY_EQ(masks.index(0, static_cast<std::int64_t>(i)).copy(), r[i].second) << names[i];
  }
}

// ---- GPU: device == CPU on fresh random inputs ---------------------------------------------------------
namespace {

Array dev(const Array& h, const Stream& s) { return h.to(Device::cuda(), s); }

}  // namespace

TEST(GpuLocalMedian, MatchesCpu) {
  CUSK_REQUIRE_GPU();
  const Stream s = Stream::create();
  std::uint64_t seed = 500;
  const std::vector<Array> fps = [] {
    std::vector<Array> v;
    v.push_back(Array());
    v.push_back(Array::full({5, 5}, 1, DType::uint8));
    v.push_back(golden("median_fp_disk2"));
    v.push_back(golden("median_fp_even"));
    return v;
  }();
  for (DType dt : {DType::uint8, DType::int8, DType::uint16, DType::int16, DType::uint32, DType::int32,
                   DType::uint64, DType::int64, DType::float32, DType::float64}) {
    for (const Shape& shape : std::vector<Shape>{{67, 301}, {1, 9}, {130, 5}}) {
      const Array h = cusktest::random_array(shape, dt, seed++);
      const Array d = dev(h, s);
      for (const auto& fp : fps)
        for (const auto& m : kModes) {
          const filters::MedianOptions o{.footprint = fp.valid() ? fp.share() : Array(),
                                         .mode = ndimage::mode_from_name(m), .cval = m == "constant" ? 7.0 : 0.0};
          EXPECT_ARRAY_EQ(filters::median(h, o), filters::median(d, o, s)) << cuskimage::dtype_name(dt) << m;
        }
      // inexact cval (double-key radix path) and a strided view
      const filters::MedianOptions oc{.mode = ndimage::Mode::constant, .cval = 0.5};
      EXPECT_ARRAY_EQ(filters::median(h, oc), filters::median(d, oc, s));
      const Array hv = h.slice({Slice{}, Slice{std::nullopt, std::nullopt, -2}});
      const Array dv = d.slice({Slice{}, Slice{std::nullopt, std::nullopt, -2}});
      EXPECT_ARRAY_EQ(filters::median(hv), filters::median(dv, {}, s));
    }
  }
  // 3-D, big uint8 image (network path over many blocks), rank behaviour.
  const Array v = cusktest::random_array({9, 20, 37}, DType::float32, 9);
  EXPECT_ARRAY_EQ(filters::median(v), filters::median(dev(v, s), {}, s));
  const Array big = cusktest::random_array({1031, 2053}, DType::uint8, 10);
  const Array dbig = dev(big, s);
  EXPECT_ARRAY_EQ(filters::median(big, {.footprint = Array::full({5, 5}, 1, DType::uint8)}),
                  filters::median(dbig, {.footprint = Array::full({5, 5}, 1, DType::uint8)}, s));
  for (DType dt : {DType::uint8, DType::uint16}) {
    const Array h = cusktest::random_array({45, 61}, dt, 11);
    const filters::MedianOptions o{.footprint = golden("median_fp_disk2"), .behavior = filters::MedianBehavior::rank};
    EXPECT_ARRAY_EQ(filters::median(h, o), filters::median(dev(h, s), o, s));
  }
}

TEST(GpuLocalOthers, MatchCpu) {
  CUSK_REQUIRE_GPU();
  const Stream s = Stream::create();
  // rank_order
  for (DType dt : {DType::uint8, DType::int16, DType::int64, DType::float32, DType::float64}) {
    const Array h = cusktest::random_array({37, 29}, dt, 20, 0, 50);
    const auto a = filters::rank_order(h), b = filters::rank_order(dev(h, s), s);
    EXPECT_ARRAY_EQ(a.labels, b.labels);
    EXPECT_ARRAY_EQ(a.original_values, b.original_values);
  }
  // correlate_sparse (bit-equal: same order, no FMA)
  const Array k = golden("sparse_kernel");
  for (DType dt : {DType::uint8, DType::float32, DType::float64}) {
    const Array h = cusktest::random_array({41, 53}, dt, 21);
    for (const std::string m : {"reflect", "constant", "nearest", "mirror", "wrap", "valid"})
      EXPECT_ARRAY_EQ(filters::correlate_sparse(h, k, {.mode = m}), filters::correlate_sparse(dev(h, s), k, {.mode = m}, s));
  }
  // window (generated on the device)
  for (const auto& c : window_cases())
    EXPECT_ARRAY_NEAR(filters::window(c.type, c.shape),
                      filters::window(c.type, c.shape, {.device = Device::cuda()}, s), 0, 1e-15);
  // niblack/sauvola (same sequential sums: bit-equal), threshold_local
  for (DType dt : {DType::uint8, DType::float32, DType::float64}) {
    for (const Shape& shape : std::vector<Shape>{{47, 39}, {7, 11, 13}, {40}}) {
      const Array h = cusktest::random_array(shape, dt, 22);
      const Array d = dev(h, s);
      EXPECT_ARRAY_EQ(filters::threshold_niblack(h, {.window_size = {5}}), filters::threshold_niblack(d, {.window_size = {5}}, s));
      EXPECT_ARRAY_EQ(filters::threshold_sauvola(h, {.window_size = {3}}), filters::threshold_sauvola(d, {.window_size = {3}}, s));
      using M = filters::ThresholdLocalMethod;
      // median selects an input value: bit-equal. mean sums the window in another order on the
      // device (and contracts to fused multiply-adds): within a few float64 ulps.
      const filters::ThresholdLocalOptions om{.block_size = {5}, .method = M::median, .offset = 0.25};
      EXPECT_ARRAY_EQ(filters::threshold_local(h, om), filters::threshold_local(d, om, s));
      const filters::ThresholdLocalOptions oa{.block_size = {5}, .method = M::mean, .offset = 0.25};
      EXPECT_ARRAY_NEAR(filters::threshold_local(h, oa), filters::threshold_local(d, oa, s), 1e-13, 1e-15);
      const filters::ThresholdLocalOptions og{.block_size = {7}, .offset = 0.25};
      EXPECT_ARRAY_NEAR(filters::threshold_local(h, og), filters::threshold_local(d, og, s), 1e-5, 1e-6);
    }
  }
  // hysteresis (2-D, 3-D, strided) and try_all
  for (DType dt : {DType::uint8, DType::float32, DType::float64}) {
    for (const Shape& shape : std::vector<Shape>{{300, 211}, {13, 17, 19}, {1000}}) {
      const Array h = cusktest::random_array(shape, dt, 23);
      const double lo = dt == DType::uint8 ? 100 : 0.4, hi = dt == DType::uint8 ? 220 : 0.9;
      EXPECT_ARRAY_EQ(filters::apply_hysteresis_threshold(h, lo, hi),
                      filters::apply_hysteresis_threshold(dev(h, s), lo, hi, s));
    }
  }
  const Array cam = golden("try_all_in");
  const auto a = filters::try_all_threshold(cam);
  const auto b = filters::try_all_threshold(dev(cam, s), s);
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) EXPECT_ARRAY_EQ(a[i].second, b[i].second) << a[i].first;
}

TEST(GpuLocalOthers, NonDefaultStreamWithoutLegacyStream) {
  CUSK_REQUIRE_GPU();
  const Array h = cusktest::random_array({257, 263}, DType::uint8, 30);
  const Array d = h.to(Device::cuda());
  Stream().synchronize();
  Array m3, m5, hy, nb;
  EXPECT_TRUE(cusktest::runs_without_legacy_stream([&](const Stream& s) {
    m3 = filters::median(d, {}, s);
    m5 = filters::median(d, {.footprint = Array::full({5, 5}, 1, DType::uint8)}, s);
    hy = filters::apply_hysteresis_threshold(d, 100, 200, s);
    nb = filters::threshold_niblack(d, {}, s);
    s.synchronize();
  }));
  EXPECT_ARRAY_EQ(filters::median(h), m3);
  EXPECT_ARRAY_EQ(filters::median(h, {.footprint = Array::full({5, 5}, 1, DType::uint8)}), m5);
  EXPECT_ARRAY_EQ(filters::apply_hysteresis_threshold(h, 100, 200), hy);
  EXPECT_ARRAY_EQ(filters::threshold_niblack(h), nb);
}

// ---- CLI: the filters.* commands of this group call the library with the options given --------
namespace {

TEST(FiltersLocal, Cli) {
  using cuskclitest::describe;
  const auto run_cli = [](const std::vector<std::string>& a) { return cuskclitest::run_cli_cpu(a); };
  const Array img = cusktest::random_array({40, 52}, DType::uint8, 77);
  const std::string in = cusktest::temp_path("local_cli_in.png"), out = cusktest::temp_path("local_cli_out.npy");
  cuskimage::io::imsave(in, img, {.check_contrast = false});
  const Array h = cuskimage::io::imread(in);

  auto r = run_cli({"filters.median", in, out, "--mode", "reflect"});
  ASSERT_EQ(r.rc, 0) << describe(r);
  EXPECT_ARRAY_EQ(filters::median(h, {.mode = ndimage::Mode::reflect}), cuskimage::io::imread(out));

  r = run_cli({"filters.threshold_local", in, out, "--block_size", "7", "--method", "mean", "--offset", "2"});
  ASSERT_EQ(r.rc, 0) << describe(r);
  EXPECT_ARRAY_EQ(filters::threshold_local(h, {.block_size = {7}, .method = filters::ThresholdLocalMethod::mean,
                                               .offset = 2.0}),
                  cuskimage::io::imread(out));

  r = run_cli({"filters.threshold_sauvola", in, out, "--window_size", "9", "--k", "0.3"});
  ASSERT_EQ(r.rc, 0) << describe(r);
  EXPECT_ARRAY_EQ(filters::threshold_sauvola(h, {.window_size = {9}, .k = 0.3}), cuskimage::io::imread(out));

  r = run_cli({"filters.apply_hysteresis_threshold", in, out, "--low", "90", "--high", "200"});
  ASSERT_EQ(r.rc, 0) << describe(r);
  EXPECT_ARRAY_EQ(filters::apply_hysteresis_threshold(h, 90, 200), cuskimage::io::imread(out));

  r = run_cli({"filters.window", out, "--window_type", "hann", "--shape", "6,8"});
  ASSERT_EQ(r.rc, 0) << describe(r);
  EXPECT_ARRAY_EQ(filters::window("hann", {6, 8}), cuskimage::io::imread(out));

  // Bad input is a library error (exit 1), a bad option a usage error (exit 2).
  r = run_cli({"filters.threshold_local", in, out, "--block_size", "4"});
  EXPECT_EQ(r.rc, 1) << describe(r);
  r = run_cli({"filters.median", in, out, "--behavior", "bogus"});
  EXPECT_EQ(r.rc, 2) << describe(r);
}

}  // namespace
