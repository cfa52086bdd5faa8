// GPU tier of the util tests: every function on device arrays equals the CPU backend (bit-exact,
// fresh random inputs, contiguous and strided, odd and degenerate shapes), golden data on the device,
// a non-default stream without the legacy default stream, and a device array past 2^31 elements.
#include <cmath>

#include "tests/util/util_test_common.hpp"

namespace util = cuskimage::util;
using namespace utiltest;
using cuskimage::InvalidArgument;

namespace {

const std::vector<DType> kAll = {DType::bool_, DType::uint8,  DType::int8,  DType::uint16,  DType::int16,  DType::uint32,
                                 DType::int32, DType::uint64, DType::int64, DType::float32, DType::float64};

Array dev(const Array& h, const Stream& s = {}) { return h.to(Device::cuda(), s); }

/// Random input of `dt`: floats in [-1, 1], integers over their range (or [lo, hi]).
Array fresh(const Shape& shape, DType dt, std::uint64_t seed, double lo = 0, double hi = 0) {
  if (cuskimage::is_floating(dt) && lo == 0 && hi == 0) return cusktest::random_array(shape, dt, seed, -1, 1);
  return cusktest::random_array(shape, dt, seed, lo, hi);
}

const std::vector<Shape>& shapes() {
  static const std::vector<Shape> s = {{17, 23}, {0, 5}, {3, 5, 7}, {1031}};
  return s;
}

}  // namespace

TEST(GpuUtilDtype, ConvertMatchesCpuEveryPair) {
  CUSK_REQUIRE_GPU();
  std::uint64_t seed = 1;
  for (const Shape& shape : shapes()) {
    for (DType in : kAll) {
      // Full range, and a range whose maximum fits 8 bits (scikit-image's data-dependent downcast).
      for (int variant = 0; variant < 2; ++variant) {
        if (variant == 1 && !cuskimage::is_integer(in)) continue;
        const Array h = variant == 0 ? fresh(shape, in, seed++) : fresh(shape, in, seed++, cuskimage::is_signed(in) ? -100 : 0, 200);
        const Array d = dev(h);
        for (DType out : kAll) {
          SCOPED_TRACE(std::string(cuskimage::dtype_name(in)) + " -> " + std::string(cuskimage::dtype_name(out)) +
                       " " + cuskimage::shape_str(shape) + " variant " + std::to_string(variant));
          Array expected;
          try {
            expected = util::convert(h, out);
          } catch (const InvalidArgument&) {
            EXPECT_THROW((void)util::convert(d, out), InvalidArgument);
            continue;
          }
          EXPECT_ARRAY_EQ(expected, util::convert(d, out));
          EXPECT_ARRAY_EQ(expected, util::convert(strided_twin(d), out));
          if (cuskimage::is_floating(in) && cuskimage::is_integer(out))
            EXPECT_ARRAY_EQ(util::convert(h, out, {.uniform = true}), util::convert(d, out, {.uniform = true}));
        }
      }
    }
  }
}

TEST(GpuUtilDtype, GoldenOnDevice) {
  CUSK_REQUIRE_GPU();
  for (const auto& name : dtype_inputs()) {
    const Array in = dev(golden("in_" + name));
    SCOPED_TRACE(name);
    EXPECT_ARRAY_EQ(golden("img_as_float_" + name), util::img_as_float(in));
    EXPECT_ARRAY_EQ(golden("img_as_float32_" + name), util::img_as_float32(in));
    EXPECT_ARRAY_EQ(golden("img_as_ubyte_" + name), util::img_as_ubyte(in));
    EXPECT_ARRAY_EQ(golden("img_as_uint_" + name), util::img_as_uint(in));
    EXPECT_ARRAY_EQ(golden("img_as_int_" + name), util::img_as_int(in));
    EXPECT_ARRAY_EQ(golden("img_as_bool_" + name), util::img_as_bool(in));
  }
  const Array bad = dev(Array::from_vector<float>({0.f, 1.5f}, {2}));
  EXPECT_TRUE(throws_with<InvalidArgument>([&] { (void)util::img_as_ubyte(bad); }, {"util.img_as_ubyte", "'image'"}));
  const Array d = dev(golden("in_camera"));
  EXPECT_TRUE(util::img_as_float32(d).device().is_cuda());
  EXPECT_EQ(util::img_as_ubyte(d).data(), d.data());
}

TEST(GpuUtilInvert, MatchesCpu) {
  CUSK_REQUIRE_GPU();
  std::uint64_t seed = 100;
  for (const Shape& shape : shapes())
    for (DType dt : kAll) {
      SCOPED_TRACE(std::string(cuskimage::dtype_name(dt)) + " " + cuskimage::shape_str(shape));
      const Array h = fresh(shape, dt, seed++);
      const Array d = dev(h);
      EXPECT_ARRAY_EQ(util::invert(h), util::invert(d));
      EXPECT_ARRAY_EQ(util::invert(h), util::invert(strided_twin(d)));
      EXPECT_ARRAY_EQ(util::invert(h, {.signed_float = true}), util::invert(d, {.signed_float = true}));
    }
  // Unaligned (offset by one element) contiguous data takes the scalar path.
  const Array h = fresh({4097}, DType::uint8, 7);
  const Array d = dev(h).slice({Slice{1, std::nullopt}});
  EXPECT_ARRAY_EQ(util::invert(h.slice({Slice{1, std::nullopt}})), util::invert(d));
  EXPECT_ARRAY_EQ(util::img_as_float32(h.slice({Slice{1, std::nullopt}})), util::img_as_float32(d));
}

TEST(GpuUtilNoise, BitIdenticalToCpu) {
  CUSK_REQUIRE_GPU();
  using util::NoiseMode;
  const Array cam = golden("in_camera");
  const Array sgn = golden("in_noise_signed");
  for (const Array* img : {&cam, &sgn}) {
    for (NoiseMode m : {NoiseMode::gaussian, NoiseMode::localvar, NoiseMode::poisson, NoiseMode::salt,
                        NoiseMode::pepper, NoiseMode::s_and_p, NoiseMode::speckle}) {
      for (bool clip : {true, false}) {
        SCOPED_TRACE(std::string(util::noise_mode_name(m)) + (clip ? " clip" : " noclip"));
        const util::RandomNoiseOptions o{.mode = m, .rng = 77, .clip = clip, .mean = 0.05, .var = 0.02, .amount = 0.3};
        EXPECT_ARRAY_EQ(util::random_noise(*img, o), util::random_noise(dev(*img), o));
        const Array f32 = util::img_as_float32(*img);
        EXPECT_ARRAY_EQ(util::random_noise(f32, o), util::random_noise(strided_twin(dev(f32)), o));
      }
    }
  }
  // Large means (PTRS branch) and a broadcast local_vars.
  const Array big = Array::full({64, 64}, 0.7, DType::float64);
  std::vector<double> many(4096);
  for (int i = 0; i < 4096; ++i) many[i] = i / 4095.0;  // 4096 distinct values: vals = 4096, means up to 4096
  const Array ramp = Array::from_vector(many, {64, 64});
  const util::RandomNoiseOptions po{.mode = NoiseMode::poisson, .rng = 5, .clip = false};
  EXPECT_ARRAY_EQ(util::random_noise(ramp, po), util::random_noise(dev(ramp), po));
  EXPECT_ARRAY_EQ(util::random_noise(big, po), util::random_noise(dev(big), po));
  const Array lv = Array::from_vector<float>({0.01f, 0.02f, 0.05f, 0.1f}, {1, 4});
  const Array img4 = fresh({6, 4}, DType::float64, 3, 0, 1);
  EXPECT_ARRAY_EQ(util::random_noise(img4, {.mode = NoiseMode::localvar, .rng = 2, .local_vars = lv.share()}),
                  util::random_noise(dev(img4), {.mode = NoiseMode::localvar, .rng = 2, .local_vars = dev(lv)}));
}

TEST(GpuUtilOps, MontageCompareMapViewsCropMatchCpu) {
  CUSK_REQUIRE_GPU();
  // montage
  for (const std::string name : {"in_montage_gray", "in_montage_f32", "in_montage_i16"}) {
    const Array h = golden(name);
    const Array d = dev(h);
    SCOPED_TRACE(name);
    EXPECT_ARRAY_EQ(util::montage(h), util::montage(d));
    EXPECT_ARRAY_EQ(util::montage(h, {.rescale_intensity = true, .padding_width = 2}),
                    util::montage(d, {.rescale_intensity = true, .padding_width = 2}));
  }
  EXPECT_ARRAY_EQ(golden("montage_rgb"), util::montage(dev(golden("in_montage_rgb")), {.channel_axis = -1}));
  EXPECT_ARRAY_EQ(golden("montage_gray_mean"), util::montage(dev(golden("in_montage_gray"))));
  // compare_images
  const Array cam = golden("in_camera");
  const Array inv = util::invert(cam);
  for (auto m : {util::CompareMethod::diff, util::CompareMethod::blend, util::CompareMethod::checkerboard})
    EXPECT_ARRAY_EQ(util::compare_images(cam, inv, {.method = m}), util::compare_images(dev(cam), dev(inv), {.method = m}));
  EXPECT_ARRAY_EQ(golden("compare_mixed_blend"),
                  util::compare_images(dev(golden("in_compare_f32")), dev(golden("in_compare_f64")),
                                       {.method = util::CompareMethod::blend}));
  // map_array, every key dtype and several output widths
  std::uint64_t seed = 300;
  for (DType kt : {DType::uint8, DType::int8, DType::uint16, DType::int16, DType::uint32, DType::int32, DType::uint64,
                   DType::int64}) {
    const Array labels = fresh({33, 17}, kt, seed++, 0, 60);
    const Array keys = fresh({25}, DType::int64, seed++, 0, 70);
    for (DType vt : {DType::bool_, DType::uint16, DType::float32, DType::float64}) {
      const Array vals = fresh({25}, vt, seed++);
      EXPECT_ARRAY_EQ(util::map_array(labels, keys, vals), util::map_array(dev(labels), dev(keys), dev(vals)));
    }
  }
  EXPECT_ARRAY_EQ(golden("map_labels_f"),
                  util::map_array(dev(golden("in_map_labels")), golden("in_map_vals"), golden("in_map_out_f")));
  // views and crop keep the device and alias its memory
  const Array dv = dev(golden("in_views"));
  EXPECT_EQ(util::view_as_blocks(dv, {2, 3, 5}).data(), dv.data());
  EXPECT_ARRAY_EQ(golden("blocks_2_3_5"), util::view_as_blocks(dv, {2, 3, 5}));
  EXPECT_ARRAY_EQ(golden("windows_2_3_2_step"), util::view_as_windows(dv, {2, 3, 2}, {.step = {2, 1, 3}}));
  const Array ast = dev(golden("in_astronaut"));
  EXPECT_ARRAY_EQ(golden("crop_per_axis"), util::crop(ast, {{{1, 2}, {10, 0}, {0, 1}}}));
  EXPECT_ARRAY_EQ(golden("crop_copy_F"), util::crop(ast, {{{2, 2}, {3, 3}, {0, 0}}}, {.copy = true, .order = 'F'}));
}

TEST(GpuUtilOps, ExtrasMatchCpu) {
  CUSK_REQUIRE_GPU();
  EXPECT_ARRAY_EQ(golden("seeds_3d"), util::regular_seeds({3, 50, 60}, 40, DType::int64, Device::cuda()));
  EXPECT_ARRAY_EQ(golden("label_points"), util::label_points(dev(golden("in_label_points")), {9, 5}));
  EXPECT_ARRAY_EQ(golden("unique_rows_u8"), util::unique_rows(dev(golden("in_unique_rows_u8"))));
  EXPECT_ARRAY_EQ(golden("unique_rows_i32"), util::unique_rows(dev(golden("in_unique_rows_i32"))));
  const Array img = fresh({37, 29}, DType::float32, 12, 0, 1);
  auto twice = [](const Array& a, const Stream& s) {
    return util::compare_images(a, a, {.method = util::CompareMethod::blend}, s);
  };
  for (const std::string mode : {"reflect", "periodic", "nearest", "constant", "none"})
    EXPECT_ARRAY_EQ(util::apply_parallel(twice, img, {.chunks = {8, 7}, .depth = {2}, .mode = mode}),
                    util::apply_parallel(twice, dev(img), {.chunks = {8, 7}, .depth = {2}, .mode = mode}));
}

TEST(GpuUtilStreams, NonDefaultStreamWithoutLegacyStream) {
  CUSK_REQUIRE_GPU();
  const Array cam = golden("in_camera");
  const Array h16 = fresh({64, 48}, DType::uint16, 5, 0, 200);
  const Array hf = fresh({64, 48}, DType::float32, 6);
  const Array stack = golden("in_montage_gray");
  const Array labels = golden("in_map_labels");
  // Inputs are uploaded first; the guarded part runs every op on the guard's stream.
  const Array dcam = dev(cam), d16 = dev(h16), df = dev(hf), dstack = dev(stack), dlabels = dev(labels);
  const Array keys = dev(golden("in_map_vals")), vals = dev(golden("in_map_out_f"));
  Stream().synchronize();
  Array r_inv, r_f32, r_ub, r_ub16, r_noise, r_poisson, r_montage, r_map, r_cmp;
  EXPECT_TRUE(cusktest::runs_without_legacy_stream([&](const Stream& s) {
    r_inv = util::invert(dcam, {}, s);
    r_f32 = util::img_as_float32(dcam, {}, s);
    r_ub = util::img_as_ubyte(df.slice({Slice{std::nullopt, std::nullopt, 1}}), {}, s);  // range check: syncs s
    r_ub16 = util::img_as_ubyte(d16, {}, s);                                            // data-dependent max
    r_noise = util::random_noise(dcam, {.rng = 3}, s);
    r_poisson = util::random_noise(dcam, {.mode = util::NoiseMode::poisson, .rng = 3}, s);
    r_montage = util::montage(dstack, {.rescale_intensity = true}, s);
    r_map = util::map_array(dlabels, keys, vals, s);
    r_cmp = util::compare_images(dcam, r_inv, {.method = util::CompareMethod::checkerboard}, s);
    s.synchronize();
  }));
  EXPECT_ARRAY_EQ(util::invert(cam), r_inv);
  EXPECT_ARRAY_EQ(util::img_as_float32(cam), r_f32);
  EXPECT_ARRAY_EQ(util::img_as_ubyte(hf), r_ub);
  EXPECT_ARRAY_EQ(util::img_as_ubyte(h16), r_ub16);
  EXPECT_ARRAY_EQ(util::random_noise(cam, {.rng = 3}), r_noise);
  EXPECT_ARRAY_EQ(util::random_noise(cam, {.mode = util::NoiseMode::poisson, .rng = 3}), r_poisson);
  EXPECT_ARRAY_EQ(util::montage(stack, {.rescale_intensity = true}), r_montage);
  EXPECT_ARRAY_EQ(golden("map_labels_f"), r_map);
  EXPECT_ARRAY_EQ(golden("compare_checker"), r_cmp);
}

TEST(GpuUtilHuge, MoreThan2To31Elements) {
  CUSK_REQUIRE_GPU();
  // 50000 x 50000 uint8 (2.5e9 elements): input 2.5 GB, invert 2.5 GB, float32 10 GB.
  constexpr std::int64_t n = 50000;
  auto pattern = [](std::int64_t k) { return static_cast<std::uint8_t>((k * 7919) % 251); };
  std::vector<std::uint8_t> row(2 * n);
  for (std::int64_t k = 0; k < 2 * n; ++k) row[k] = pattern(k);
  const Array buf = dev(Array::from_vector(row, {2 * n}));
  // Element (r, c) = pattern(r + c): a strided view over the small buffer, materialised on the device.
  Array img = Array::empty({n, n}, DType::uint8, Device::cuda());
  img.copy_from(buf.as_strided({n, n}, {1, 1}));
  const Array inv = util::invert(img);
  const Array f = util::img_as_float32(img);
  Stream().synchronize();
  const float scale = static_cast<float>(1.0 / 255.0);
  for (std::int64_t r : {0LL, 1LL, 12345LL, 42949LL, 49999LL}) {
    for (std::int64_t c : {0LL, 7LL, 31337LL, 49998LL, 49999LL}) {
      const std::uint8_t p = pattern(r + c);
      const Array iv = inv.slice({Slice{r, r + 1}, Slice{c, c + 1}}).to(Device::cpu());
      const Array fv = f.slice({Slice{r, r + 1}, Slice{c, c + 1}}).to(Device::cpu());
      EXPECT_EQ(iv.at<std::uint8_t>({0, 0}), 255 - p) << r << "," << c;
      EXPECT_EQ(fv.at<float>({0, 0}), static_cast<float>(p) * scale) << r << "," << c;
    }
  }
  // The last rows in full (linear indices near 2.5e9).
  const Array tail = inv.slice({Slice{n - 2, std::nullopt}}).to(Device::cpu());
  for (std::int64_t r = 0; r < 2; ++r)
    for (std::int64_t c = 0; c < n; c += 997)
      ASSERT_EQ(tail.at<std::uint8_t>({r, c}), 255 - pattern(n - 2 + r + c));
  const Array ftail = f.slice({Slice{n - 1, std::nullopt}, Slice{n - 4096, std::nullopt}}).to(Device::cpu());
  for (std::int64_t c = 0; c < 4096; ++c)
    ASSERT_EQ(ftail.at<float>({0, c}), static_cast<float>(pattern(2 * n - 1 - 4096 + c)) * scale);
}
