// The CUDA fast paths of grey/binary morphology (kernels/morphology/row_chain.cu: integer images
// and footprints whose rows are nested runs; rows2d.cu: footprints whose rows are single runs;
// binary3x3.cu: a full 3x3 bool square) against the CPU backend, bit for bit, on random inputs:
// every mode and dtype, tile-sized and sub-tile shapes, odd/even widths, even and asymmetric
// footprints, empty footprint rows, 1-D/2-D/3-D, NaN and signed zeros, strided views, `out`, and a
// non-default stream. The CPU tier checks the footprint-to-runs split, which footprints the row
// chain takes, and runs the row-chain kernel's own per-warp code on the host (a 32-lane warp
// emulated with coroutines) against ndimage's min/max filters.
#include <gtest/gtest.h>
#include <ucontext.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "cuskimage/morphology.hpp"
#include "cuskimage/ndimage.hpp"
#include "cuskimage/stream.hpp"
#include "kernels/morphology/row_chain.cuh"
#include "src/morphology/morph_ops.hpp"
#include "tests/common/test_support.hpp"

namespace {

using namespace cuskimage;
using namespace cuskimage::morphology;

Array fp_from(const std::vector<std::uint8_t>& v, const Shape& shape) { return Array::from_vector(v, shape); }

// ---- CPU: footprint -> runs ---------------------------------------------------------------------

TEST(MorphologyFastRuns, DiskDiamondAndRejects) {
  using cuskimage::morphology::detail::footprint_runs;
  const auto d2 = footprint_runs(disk(2).array());
  ASSERT_EQ(d2.size(), 5u);
  EXPECT_EQ(d2[0].dy, -2);
  EXPECT_EQ(d2[0].lo, 0);
  EXPECT_EQ(d2[0].hi, 0);
  EXPECT_EQ(d2[2].dy, 0);
  EXPECT_EQ(d2[2].lo, -2);
  EXPECT_EQ(d2[2].hi, 2);
  // Even width 4: centre at index 2, so columns 0..3 are offsets -2..1; an empty row is skipped.
  const auto e = footprint_runs(fp_from({0, 1, 1, 1, 0, 0, 0, 0, 1, 1, 0, 0}, {3, 4}));
  ASSERT_EQ(e.size(), 2u);
  EXPECT_EQ(e[0].dy, -1);
  EXPECT_EQ(e[0].lo, -1);
  EXPECT_EQ(e[0].hi, 1);
  EXPECT_EQ(e[1].dy, 1);
  EXPECT_EQ(e[1].lo, -2);
  EXPECT_EQ(e[1].hi, -1);
  // Two runs on one row, or nothing at all: not a rows footprint.
  EXPECT_TRUE(footprint_runs(fp_from({1, 0, 1, 1, 1, 1, 1, 1, 1}, {3, 3})).empty());
  EXPECT_TRUE(footprint_runs(fp_from({0, 0, 0, 0}, {2, 2})).empty());
  const auto b = footprint_runs(ball(1).array());
  ASSERT_EQ(b.size(), 5u);  // (dz, dy): (-1,0) (0,-1) (0,0) (0,1) (1,0)
  EXPECT_EQ(b[0].dz, -1);
  EXPECT_EQ(b[2].dz, 0);
  EXPECT_EQ(b[2].lo, -1);
  EXPECT_EQ(b[2].hi, 1);
  EXPECT_EQ(b[4].dz, 1);
}

TEST(MorphologyFastRuns, CpuIsUntouched) {
  // The fast pass only ever takes device arrays.
  const Array h = cusktest::random_array({9, 9}, DType::uint8, 3);
  EXPECT_FALSE(cuskimage::morphology::detail::fast_minmax_pass(false, h, disk(1).array(), ndimage::Mode::reflect, 0.0, {}).valid());
}

// ---- GPU ------------------------------------------------------------------------------------------

const std::vector<MorphMode> kModes = {MorphMode::reflect, MorphMode::constant, MorphMode::nearest, MorphMode::mirror,
                                       MorphMode::wrap,    MorphMode::max,      MorphMode::min,     MorphMode::ignore};

Array fresh(const Shape& shape, DType dt, std::uint64_t seed) {
  if (dt == DType::int32) return cusktest::random_array(shape, dt, seed, -1000, 1000);
  if (dt == DType::float32 || dt == DType::float64) return cusktest::random_array(shape, dt, seed, -10, 10);
  if (dt == DType::uint8 || dt == DType::uint16) return cusktest::random_array(shape, dt, seed);
  return cusktest::random_array(shape, dt, seed);
}

/// Floats with NaNs, +0 and -0 sprinkled in (the window's tie and NaN order must survive).
Array nasty_float(const Shape& shape, DType dt, std::uint64_t seed) {
  Array a = fresh(shape, dt, seed);
  const Array pick = cusktest::random_array(shape, DType::uint8, seed + 99);
  const auto* p = pick.data<std::uint8_t>();
  for (std::int64_t i = 0; i < a.size(); ++i) {
    const double v = p[i] < 8 ? std::numeric_limits<double>::quiet_NaN() : p[i] < 40 ? 0.0 : p[i] < 72 ? -0.0 : 1.0;
    if (v == 1.0) continue;
    if (dt == DType::float32) a.data<float>()[i] = static_cast<float>(v);
    else a.data<double>()[i] = v;
  }
  return a;
}

Footprint named(const std::string& n) {
  if (n == "disk1") return disk(1);
  if (n == "disk3") return disk(3);
  if (n == "disk10") return disk(10);
  if (n == "diamond2") return diamond(2);
  if (n == "ellipse") return ellipse(3, 2);
  if (n == "octagon") return octagon(2, 1);
  if (n == "rect34") return footprint_rectangle({3, 4});
  if (n == "rect21") return footprint_rectangle({2, 1});
  // Rows of different, off-centre runs with an empty row and even sizes.
  if (n == "runs") return fp_from({0, 1, 1, 0, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1}, {4, 4});
  if (n == "col") return fp_from({1, 1, 1, 1, 1}, {5, 1});
  throw std::runtime_error("unknown footprint " + n);
}

const std::vector<std::string> kFps2 = {"disk1", "disk3", "disk10", "diamond2", "ellipse", "octagon",
                                        "rect34", "rect21", "runs", "col"};

double cval_for(DType dt) {
  if (dt == DType::bool_) return 1.0;
  return (dt == DType::float32 || dt == DType::float64) ? 2.5 : 7.0;
}

// ---- CPU: the row chain's plan and its per-warp code, emulated ------------------------------------

namespace chain = cuskimage::morphology::detail::chain;
using cuskimage::morphology::detail::footprint_runs;

/// Whether the row-chain kernel takes `fp` (a host footprint as fast_minmax_pass sees it).
bool chain_takes(const Array& fp) {
  const auto runs = footprint_runs(fp);
  const chain::Geom g{5, 64, 640};
  auto prepared = [&]<int H>() {
    chain::Plan<H> plan{};
    return chain::prepare_plan<H>(runs, 4, g, plan);
  };
  switch (chain::chain_bucket(runs)) {
    case 2: return prepared.template operator()<2>();
    case 5: return prepared.template operator()<5>();
    case 10: return prepared.template operator()<10>();
    case 15: return prepared.template operator()<15>();
    default: return false;
  }
}

/// 3 x 5: row -1 = [-1, 0], row 0 = [-2, 2], row 1 = [-1, 1]: a move that goes left only, one
/// that goes right only and two moves on one level.
Array asym_fp() { return fp_from({0, 1, 1, 0, 0, 1, 1, 1, 1, 1, 0, 1, 1, 1, 0}, {3, 5}); }

std::vector<std::pair<std::string, Array>> chain_footprints() {
  std::vector<std::pair<std::string, Array>> v;
  for (int r : {0, 1, 2, 3, 5, 7, 10, 12, 15}) v.push_back({"disk" + std::to_string(r), disk(r).array().share()});
  for (int r : {1, 4, 9, 15}) v.push_back({"diamond" + std::to_string(r), diamond(r).array().share()});
  v.push_back({"ellipse5_2", ellipse(5, 2).array().share()});
  v.push_back({"ellipse2_7", ellipse(2, 7).array().share()});
  v.push_back({"octagon3_2", octagon(3, 2).array().share()});
  v.push_back({"star3", star(3)});
  v.push_back({"rect3x4", footprint_rectangle({3, 4}).array().share()});
  v.push_back({"rect4x3", footprint_rectangle({4, 3}).array().share()});
  v.push_back({"rect1x9", footprint_rectangle({1, 9}).array().share()});
  v.push_back({"rect9x1", footprint_rectangle({9, 1}).array().share()});
  v.push_back({"disk4_padded_front", pad_footprint(Array(fp_from({0, 1, 1, 0, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1, 1, 0}, {4, 4})),
                                                   {.pad_end = false})});
  v.push_back({"asym", asym_fp()});
  return v;
}

TEST(MorphologyChainPlan, AcceptsNestedFootprintsOnly) {
  for (const auto& [name, fp] : chain_footprints()) EXPECT_TRUE(chain_takes(fp)) << name;
  for (int r = 1; r <= 5; ++r) EXPECT_TRUE(chain_takes(ball(r).array())) << "ball" << r;
  EXPECT_TRUE(chain_takes(octahedron(3).array()));
  EXPECT_TRUE(chain_takes(footprint_rectangle({2, 1, 3}).array()));
  EXPECT_TRUE(chain_takes(fp_from({1, 1, 1, 1, 0, 0}, {6})));
  // |dy| > 15; a triangle (rows widen downwards: the chain would have to shrink); a row without
  // column 0; two runs on a row; more than 31 planes; halo lanes outnumbering the working ones.
  EXPECT_FALSE(chain_takes(disk(16).array()));
  EXPECT_FALSE(chain_takes(fp_from({0, 0, 1, 0, 0, 0, 1, 1, 1, 0, 1, 1, 1, 1, 1}, {3, 5})));
  EXPECT_FALSE(chain_takes(named("runs").array()));
  EXPECT_FALSE(chain_takes(fp_from({1, 0, 1, 1, 1, 1, 1, 1, 1}, {3, 3})));
  EXPECT_FALSE(chain_takes(footprint_rectangle({33, 1, 1}).array()));
  EXPECT_FALSE(chain_takes(footprint_rectangle({1, 99}).array()));
  EXPECT_TRUE(chain_takes(footprint_rectangle({1, 97}).array()));  // half extent 48: 8 working lanes
}

TEST(MorphologyChainPlan, DiskAndAsymmetricLevels) {
  using chain::Level;
  chain::Plan<2> plan{};
  int wh = 0;
  ASSERT_TRUE(chain::build_plan<2>(footprint_runs(disk(2).array()), plan, wh));
  EXPECT_EQ(plan.npl, 1);
  EXPECT_EQ(wh, 2);
  EXPECT_EQ(plan.dy_min, -2);
  EXPECT_EQ(plan.dy_max, 2);
  // d = 2: rows +-2 are [0, 0] (no step); d = 1: one symmetric step to [-1, 1]; d = 0: one more.
  EXPECT_EQ(plan.lv[0][2], Level::kUp0 | Level::kUm0);
  EXPECT_EQ(plan.lv[0][1], Level::kUp0 | Level::kUm0 | Level::pack(1, 0, 0, 0));
  EXPECT_EQ(plan.lv[0][0], Level::kUp0 | Level::pack(1, 0, 0, 0));
  EXPECT_EQ(plan.sym, 1);
  ASSERT_TRUE(chain::build_plan<2>(footprint_runs(asym_fp()), plan, wh));
  EXPECT_EQ(plan.sym, 0);
  EXPECT_EQ(plan.lv[0][2], 0u);
  // d = 1: [0,0] -> [-1,0] (one left step) updates dy = -1, then -> [-1,1] (one right) dy = +1.
  EXPECT_EQ(plan.lv[0][1], Level::kUm0 | Level::kUp1 | Level::pack(0, -1, 0, 1));
  EXPECT_EQ(Level::one(plan.lv[0][1], 0), -1);
  EXPECT_EQ(Level::one(plan.lv[0][1], 1), 1);
  EXPECT_EQ(plan.lv[0][0], Level::kUp0 | Level::pack(1, 0, 0, 0));
  // Symmetric: balls, odd rectangles, odd octagons, stars; not: even widths (one-sided steps), even heights
  // (a row without its mirror).
  chain::Plan<5> p5{};
  std::vector<Array> sym, asym;
  sym.push_back(ball(3).array().share());
  sym.push_back(footprint_rectangle({3, 5}).array().share());
  sym.push_back(octagon(3, 2).array().share());
  sym.push_back(star(2));
  asym.push_back(footprint_rectangle({3, 4}).array().share());
  asym.push_back(footprint_rectangle({4, 3}).array().share());
  for (const auto& [fps, want] : {std::pair{&sym, 1}, std::pair{&asym, 0}})
    for (const Array& fp : *fps) {
      ASSERT_TRUE(chain::build_plan<5>(footprint_runs(fp), p5, wh));
      EXPECT_EQ(p5.sym, want) << shape_str(fp.shape());
    }
}

// A warp of 32 lanes on the host: each lane is a coroutine running the kernel's chain_warp; an
// exchange parks the lane until every lane has posted its value (double-buffered by parity).
class HostWarp {
 public:
  HostWarp() {
    for (auto& st : stacks_) st = std::make_unique<char[]>(kStack);
  }
  void run(const std::function<void(int)>& body) {
    body_ = &body;
    for (int l = 0; l < 32; ++l) {
      getcontext(&ctx_[l]);
      ctx_[l].uc_stack.ss_sp = stacks_[l].get();
      ctx_[l].uc_stack.ss_size = kStack;
      ctx_[l].uc_link = &main_;
      makecontext(&ctx_[l], &HostWarp::entry, 0);
      done_[l] = false;
      parity_[l] = 0;
    }
    for (bool any = true; any;) {
      any = false;
      for (int l = 0; l < 32; ++l)
        if (!done_[l]) {
          any = true;
          cur_ = l;
          self_ = this;
          swapcontext(&main_, &ctx_[l]);
        }
    }
  }
  std::uint32_t exchange(int lane, std::uint32_t v, int src) {
    const int ph = parity_[lane];
    slot_[ph][lane] = v;
    swapcontext(&ctx_[lane], &main_);
    parity_[lane] ^= 1;
    return src >= 0 && src < 32 ? slot_[ph][src] : v;
  }

 private:
  static constexpr std::size_t kStack = 256 * 1024;
  static void entry() {
    HostWarp* w = self_;
    const int lane = w->cur_;
    (*w->body_)(lane);
    w->done_[lane] = true;
  }
  static inline thread_local HostWarp* self_ = nullptr;
  const std::function<void(int)>* body_ = nullptr;
  ucontext_t main_{}, ctx_[32]{};
  std::unique_ptr<char[]> stacks_[32];
  std::uint32_t slot_[2][32]{};
  int parity_[32]{};
  bool done_[32]{};
  int cur_ = 0;
};

struct HostXchg {
  HostWarp* warp;
  int lane;
  template <class W>
  W up(W v) {
    return std::bit_cast<W>(warp->exchange(lane, std::bit_cast<std::uint32_t>(v), lane - 1));
  }
  template <class W>
  W down(W v) {
    return std::bit_cast<W>(warp->exchange(lane, std::bit_cast<std::uint32_t>(v), lane + 1));
  }
};

/// The row-chain pass of `img` (host, contiguous unless `shift` copies it one element off the
/// buffer's alignment) over `segs` row segments per strip, every warp run on the host. `variant`
/// 0 runs the kernel the launcher takes (symmetric where the plan allows, the plane loop only for
/// several planes), 1 the one for any plan (one-sided moves and the plane loop).
template <class S>
Array emulate_chain(const Array& img, const Array& fp, bool is_max, ndimage::Mode mode, S cval, std::int64_t segs,
                    bool shift, int variant) {
  const auto runs = footprint_runs(fp);
  const int nd = img.ndim();
  chain::Geom g{1, 1, 1};
  std::int64_t* dims[3] = {&g.nz, &g.ny, &g.nx};
  for (int d = 0; d < nd; ++d) *dims[3 - nd + d] = img.shape()[d];
  std::vector<S> buf(static_cast<std::size_t>(img.size()) + 1);
  const Array c = img.contiguous();
  std::memcpy(buf.data() + (shift ? 1 : 0), c.data(), static_cast<std::size_t>(img.nbytes()));
  const S* in = buf.data() + (shift ? 1 : 0);
  Array out = Array::empty(img.shape(), img.dtype());
  S* op = static_cast<S*>(out.data());
  HostWarp warp;
  auto go = [&]<int H>() {
    chain::Plan<H> plan{};
    EXPECT_TRUE(chain::prepare_plan<H>(runs, chain::Lanes<S>::P, g, plan));
    chain::set_segments(plan, g, segs);
    const bool vec_ok = chain::vector_ok<S>(chain::Lanes<S>::P, g.nx, in, op);
    const std::int64_t warps = plan.strips * plan.segs * g.nz;
    for (std::int64_t w = 0; w < warps; ++w) {
      const std::function<void(int)> body = [&](int lane) {
        HostXchg x{&warp, lane};
        auto pass = [&]<bool Mx, bool Sym, bool Multi>() {
          chain::chain_warp<S, Mx, H, chain::kBlockRows, Sym, Multi>(in, op, g, mode, cval, plan, vec_ok, w, lane, x);
        };
        auto pick = [&]<bool Mx>() {
          if (variant == 1) pass.template operator()<Mx, false, true>();
          else if (plan.npl > 1 && plan.sym) pass.template operator()<Mx, true, true>();
          else if (plan.npl > 1) pass.template operator()<Mx, false, true>();
          else if (plan.sym) pass.template operator()<Mx, true, false>();
          else pass.template operator()<Mx, false, false>();
        };
        if (is_max) pick.template operator()<true>();
        else pick.template operator()<false>();
      };
      warp.run(body);
    }
  };
  switch (chain::chain_bucket(runs)) {
    case 2: go.template operator()<2>(); break;
    case 5: go.template operator()<5>(); break;
    case 10: go.template operator()<10>(); break;
    case 15: go.template operator()<15>(); break;
    default: ADD_FAILURE() << "not a chain footprint";
  }
  return out;
}

template <class S>
void expect_chain_matches(const Array& img, const Array& fp, bool is_max, ndimage::Mode mode, double cval,
                          std::int64_t segs, bool shift) {
  const ndimage::RankFilterOptions o{.footprint = fp.share(), .mode = mode, .cval = cval};
  const Array expected = is_max ? ndimage::maximum_filter(img, o) : ndimage::minimum_filter(img, o);
  EXPECT_ARRAY_EQ(expected, emulate_chain<S>(img, fp, is_max, mode, static_cast<S>(cval), segs, shift, 0));
  chain::Plan<chain::kMaxH> plan{};
  int wh = 0;
  ASSERT_TRUE(chain::build_plan(footprint_runs(fp), plan, wh));
  // The general variant where the first run took another one.
  if (plan.sym || plan.npl == 1) {
    EXPECT_ARRAY_EQ(expected, emulate_chain<S>(img, fp, is_max, mode, static_cast<S>(cval), segs, shift, 1));
  }
}

const std::vector<ndimage::Mode> kNdModes = {ndimage::Mode::reflect, ndimage::Mode::constant, ndimage::Mode::nearest,
                                             ndimage::Mode::mirror, ndimage::Mode::wrap};

TEST(MorphologyChainPlan, Map32IsMapIndex) {
  // The kernel's 32-bit index map against ndimage's: every mode, extents 1..9 and large ones,
  // indices a few hundred outside either end.
  for (ndimage::Mode mode : {ndimage::Mode::reflect, ndimage::Mode::constant, ndimage::Mode::nearest,
                             ndimage::Mode::mirror, ndimage::Mode::wrap})
    for (int n : {1, 2, 3, 4, 5, 7, 9, 100, 8192, (1 << 30) - 1}) {
      for (int i = -300; i <= 300; ++i) {
        ASSERT_EQ(chain::map32(i, n, mode), ndimage::detail::map_index(i, n, mode)) << i << " " << n;
        ASSERT_EQ(chain::map32(n - 1 + i, n, mode), ndimage::detail::map_index(n - 1 + i, n, mode)) << i << " " << n;
      }
    }
}

TEST(MorphologyChainEmu, TwoDimensionalEveryFootprintDtypeMode) {
  // Shapes: one pixel, smaller than the footprints, a single row / column, two strips, vector and
  // byte-path widths; the rotation below pairs each footprint with several shapes, modes, dtypes.
  const std::vector<Shape> shapes = {{1, 1}, {3, 7}, {1, 57}, {41, 1}, {9, 130}, {37, 72}, {23, 205}};
  std::uint64_t seed = 500;
  int k = 0;
  for (const auto& [name, fp] : chain_footprints())
    for (int rep = 0; rep < 4; ++rep, ++k) {
      const Shape& shape = shapes[static_cast<std::size_t>(k) % shapes.size()];
      const ndimage::Mode mode = kNdModes[static_cast<std::size_t>(k) % kNdModes.size()];
      const bool is_max = k % 2 == 1;
      const std::int64_t segs = 1 + k % 3;
      const bool shift = k % 4 == 3;
      SCOPED_TRACE(name + " " + shape_str(shape) + " mode " + std::to_string(static_cast<int>(mode)) +
                   (is_max ? " max" : " min") + " segs " + std::to_string(segs) + (shift ? " shifted" : ""));
      switch (k % 3) {
        case 0: expect_chain_matches<std::uint8_t>(fresh(shape, DType::uint8, seed++), fp, is_max, mode, 7, segs, shift); break;
        case 1: expect_chain_matches<std::uint16_t>(fresh(shape, DType::uint16, seed++), fp, is_max, mode, 7, segs, shift); break;
        default: expect_chain_matches<std::int32_t>(fresh(shape, DType::int32, seed++), fp, is_max, mode, -7, segs, shift); break;
      }
    }
}

TEST(MorphologyChainEmu, DtypeExtremesAndEveryMode) {
  // Values at the dtype's ends (the lane identities and the uint8 high-byte packing).
  for (ndimage::Mode mode : kNdModes)
    for (bool is_max : {false, true}) {
      SCOPED_TRACE(std::to_string(static_cast<int>(mode)) + (is_max ? " max" : " min"));
      Array u8 = cusktest::random_array({19, 44}, DType::uint8, 61, 0, 1);
      for (std::int64_t i = 0; i < u8.size(); i += 3) u8.data<std::uint8_t>()[i] = 255;
      expect_chain_matches<std::uint8_t>(u8, disk(3).array(), is_max, mode, 255, 2, false);
      expect_chain_matches<std::uint8_t>(u8, disk(3).array(), is_max, mode, 0, 1, true);
      Array u16 = cusktest::random_array({19, 44}, DType::uint16, 62, 65534, 65535);
      for (std::int64_t i = 0; i < u16.size(); i += 5) u16.data<std::uint16_t>()[i] = 0;
      expect_chain_matches<std::uint16_t>(u16, ellipse(4, 2).array(), is_max, mode, 65535, 2, false);
      Array i32 = cusktest::random_array({19, 44}, DType::int32, 63, -1, 1);
      for (std::int64_t i = 0; i < i32.size(); i += 4)
        i32.data<std::int32_t>()[i] = i % 8 ? std::numeric_limits<std::int32_t>::max() : std::numeric_limits<std::int32_t>::min();
      expect_chain_matches<std::int32_t>(i32, diamond(2).array(), is_max, mode, 0, 3, false);
    }
}

TEST(MorphologyChainEmu, OneAndThreeDimensional) {
  std::uint64_t seed = 700;
  int k = 0;
  for (ndimage::Mode mode : kNdModes)
    for (bool is_max : {false, true}) {
      SCOPED_TRACE(std::to_string(static_cast<int>(mode)) + (is_max ? " max" : " min"));
      expect_chain_matches<std::uint8_t>(fresh({300}, DType::uint8, seed++), fp_from({1, 1, 1, 1, 0, 0}, {6}), is_max,
                                         mode, 3, 1, k % 2 == 1);
      expect_chain_matches<std::uint8_t>(fresh({5, 9, 37}, DType::uint8, seed++), ball(2).array(), is_max, mode, 3,
                                         1 + k % 2, false);
      expect_chain_matches<std::uint16_t>(fresh({4, 6, 21}, DType::uint16, seed++), ball(3).array(), is_max, mode, 9,
                                          2, k % 2 == 0);
      expect_chain_matches<std::int32_t>(fresh({3, 4, 5}, DType::int32, seed++),
                                         footprint_rectangle({2, 1, 3}).array(), is_max, mode, 1, 1, false);
      ++k;
    }
  // ball(5) on a volume thinner than the ball, all planes through the boundary rule.
  expect_chain_matches<std::uint8_t>(fresh({4, 12, 40}, DType::uint8, 799), ball(5).array(), false,
                                     ndimage::Mode::reflect, 0, 2, false);
  expect_chain_matches<std::uint8_t>(fresh({6, 13, 40}, DType::uint8, 798), octahedron(3).array(), true,
                                     ndimage::Mode::constant, 0, 1, false);
}

TEST(GpuMorphologyFast, GrayRowsEveryModeDtypeFootprint) {
  CUSK_REQUIRE_GPU();
  const Stream s = Stream::create();
  std::uint64_t seed = 101;
  // Sub-tile, exactly one wide tile (128 x 32), odd/even widths and a multi-tile shape.
  const std::vector<Shape> shapes = {{1, 1}, {3, 7}, {32, 128}, {33, 129}, {70, 256}, {131, 301}};
  for (DType dt : {DType::bool_, DType::uint8, DType::uint16, DType::int32, DType::float32, DType::float64})
    for (const auto& shape : shapes) {
      const Array h = fresh(shape, dt, seed++);
      const Array d = h.to(Device::cuda(), s);
      for (const auto& fp : kFps2)
        for (MorphMode m : kModes) {
          SCOPED_TRACE(std::string(dtype_name(dt)) + " " + fp + " " + std::string(morph_mode_name(m)) + " " +
                       shape_str(shape));
          const GrayOptions o{.footprint = named(fp), .mode = m, .cval = cval_for(dt)};
          EXPECT_ARRAY_EQ(erosion(h, o), erosion(d, o, s));
          EXPECT_ARRAY_EQ(dilation(h, o), dilation(d, o, s));
        }
    }
}

TEST(GpuMorphologyFast, GrayOpsAndTophats) {
  CUSK_REQUIRE_GPU();
  const Stream s = Stream::create();
  const Array h = fresh({97, 203}, DType::uint8, 7);
  const Array d = h.to(Device::cuda(), s);
  for (const auto& fp : {"disk3", "runs", "rect34"}) {
    SCOPED_TRACE(fp);
    EXPECT_ARRAY_EQ(opening(h, {.footprint = named(fp)}), opening(d, {.footprint = named(fp)}, s));
    EXPECT_ARRAY_EQ(closing(h, {.footprint = named(fp)}), closing(d, {.footprint = named(fp)}, s));
    EXPECT_ARRAY_EQ(white_tophat(h, {.footprint = named(fp)}), white_tophat(d, {.footprint = named(fp)}, s));
    EXPECT_ARRAY_EQ(black_tophat(h, {.footprint = named(fp), .mode = MorphMode::ignore}),
                    black_tophat(d, {.footprint = named(fp), .mode = MorphMode::ignore}, s));
  }
  // Decomposed footprints apply several run footprints in sequence.
  for (auto dec : {Decomposition::sequence, Decomposition::crosses}) {
    EXPECT_ARRAY_EQ(erosion(h, {.footprint = disk(5, {.decomposition = dec})}),
                    erosion(d, {.footprint = disk(5, {.decomposition = dec})}, s));
  }
}

TEST(GpuMorphologyFast, FloatNanSignedZeroAndInexactCval) {
  CUSK_REQUIRE_GPU();
  const Stream s = Stream::create();
  for (DType dt : {DType::float32, DType::float64}) {
    const Array h = nasty_float({67, 150}, dt, 5);
    const Array d = h.to(Device::cuda(), s);
    for (const auto& fp : {"disk1", "disk3", "diamond2", "runs", "rect34"})
      for (MorphMode m : kModes) {
        SCOPED_TRACE(std::string(dtype_name(dt)) + " " + fp + " " + std::string(morph_mode_name(m)));
        const GrayOptions o{.footprint = named(fp), .mode = m, .cval = -0.0};
        EXPECT_ARRAY_EQ(erosion(h, o), erosion(d, o, s));
        EXPECT_ARRAY_EQ(dilation(h, o), dilation(d, o, s));
      }
  }
  // cvals not exact in the dtype (0.1 in float32, 2.5 / -3 / 300 in uint8) take the generic path.
  const Array hf = fresh({40, 50}, DType::float32, 8);
  const Array hu = fresh({40, 50}, DType::uint8, 9);
  for (double cv : {0.1, 2.5, -3.0, 300.0}) {
    const GrayOptions o{.footprint = disk(2), .mode = MorphMode::constant, .cval = cv};
    EXPECT_ARRAY_EQ(erosion(hf, o), erosion(hf.to(Device::cuda(), s), o, s));
    EXPECT_ARRAY_EQ(dilation(hu, o), dilation(hu.to(Device::cuda(), s), o, s));
  }
}

TEST(GpuMorphologyFast, OneAndThreeDimensional) {
  CUSK_REQUIRE_GPU();
  const Stream s = Stream::create();
  for (DType dt : {DType::uint8, DType::uint16, DType::float32, DType::bool_}) {
    const Array h1 = fresh({300}, dt, 11);
    const Array f1 = fp_from({1, 1, 1, 1, 0, 0}, {6});
    for (MorphMode m : kModes) {
      const GrayOptions o{.footprint = f1.share(), .mode = m, .cval = cval_for(dt)};
      EXPECT_ARRAY_EQ(erosion(h1, o), erosion(h1.to(Device::cuda(), s), o, s));
    }
    for (const Shape& shape : {Shape{3, 4, 5}, Shape{19, 37, 45}}) {
      const Array h = fresh(shape, dt, 12);
      const Array d = h.to(Device::cuda(), s);
      for (int k = 0; k < 3; ++k) {
        Footprint fp = k == 0 ? ball(1) : k == 1 ? ball(3) : Footprint(Array::full({2, 1, 3}, 1, DType::uint8));
        for (MorphMode m : kModes) {
          SCOPED_TRACE(std::string(dtype_name(dt)) + " fp" + std::to_string(k) + " " +
                       std::string(morph_mode_name(m)) + " " + shape_str(shape));
          const GrayOptions o{.footprint = fp.array().share(), .mode = m, .cval = cval_for(dt)};
          EXPECT_ARRAY_EQ(erosion(h, o), erosion(d, o, s));
          EXPECT_ARRAY_EQ(dilation(h, o), dilation(d, o, s));
        }
      }
    }
  }
}

TEST(GpuMorphologyFast, LargeFootprintFallsBack) {
  CUSK_REQUIRE_GPU();
  const Stream s = Stream::create();
  const Array h = fresh({150, 170}, DType::uint8, 13);
  // disk(40): its sparse tables do not fit in shared memory; the ndimage path answers.
  EXPECT_ARRAY_EQ(erosion(h, {.footprint = disk(40)}), erosion(h.to(Device::cuda(), s), {.footprint = disk(40)}, s));
}

TEST(GpuMorphologyFast, StridedViewsOutAndNoLegacyStream) {
  CUSK_REQUIRE_GPU();
  const Stream s = Stream::create();
  const Array h = fresh({160, 300}, DType::uint16, 14);
  const Array d = h.to(Device::cuda(), s);
  const Array hv = h.slice({Slice{.start = 1, .step = 2}, Slice{.start = 2, .step = 3}});
  const Array dv = d.slice({Slice{.start = 1, .step = 2}, Slice{.start = 2, .step = 3}});
  EXPECT_ARRAY_EQ(erosion(hv, {.footprint = disk(4)}), erosion(dv, {.footprint = disk(4)}, s));
  Array wide = Array::zeros({160, 300}, DType::uint16, Device::cuda());
  Array out = wide.slice({Slice{.start = 1, .step = 2}, Slice{.start = 2, .step = 3}});
  dilation_into(dv, out, {.footprint = diamond(3), .mode = MorphMode::wrap}, s);
  EXPECT_ARRAY_EQ(dilation(hv, {.footprint = diamond(3), .mode = MorphMode::wrap}), out);

  const Array hb = fresh({128, 512}, DType::bool_, 15);
  const Array db = hb.to(Device::cuda());
  const Array du = fresh({128, 512}, DType::uint8, 16).to(Device::cuda());
  Stream().synchronize();
  EXPECT_TRUE(cusktest::runs_without_legacy_stream([&](const Stream& st) {
    Array a = erosion(du, {.footprint = disk(10)}, st);
    Array b = closing(du, {.footprint = ellipse(4, 2)}, st);
    Array c = binary_erosion(db, {.footprint = footprint_rectangle({3, 3})}, st);
    Array e = binary_dilation(db, {.footprint = disk(2)}, st);
    st.synchronize();
  }));
}

// ---- GPU: the row-chain kernel (integer and bool images, nested-run footprints) -------------------

/// Every footprint family the row chain takes (see MorphologyChainPlan), radii 1..15.
std::vector<std::pair<std::string, Footprint>> gpu_chain_footprints() {
  std::vector<std::pair<std::string, Footprint>> v;
  for (int r = 1; r <= 15; ++r) v.push_back({"disk" + std::to_string(r), disk(r)});
  for (int r = 1; r <= 15; r += 2) v.push_back({"diamond" + std::to_string(r), diamond(r)});
  for (int r : {1, 4, 9, 15}) v.push_back({"ellipse" + std::to_string(r), ellipse(r, (r + 1) / 2)});
  v.push_back({"ellipse2_11", ellipse(2, 11)});
  for (auto [m, n] : {std::pair{1, 1}, std::pair{3, 2}, std::pair{5, 5}})
    v.push_back({"octagon" + std::to_string(m) + "_" + std::to_string(n), octagon(m, n)});
  v.push_back({"star2", Footprint(star(2))});
  v.push_back({"star6", Footprint(star(6))});
  for (const Shape& sh : {Shape{3, 4}, Shape{4, 3}, Shape{2, 2}, Shape{7, 7}, Shape{1, 31}, Shape{31, 1}})
    v.push_back({"rect" + shape_str(sh), footprint_rectangle(sh)});
  v.push_back({"asym", Footprint(asym_fp())});
  return v;
}

TEST(GpuMorphologyChain, EveryFootprintDtypeAndShape) {
  CUSK_REQUIRE_GPU();
  const Stream s = Stream::create();
  // Smaller than every footprint, one row, one column, odd and vector widths, several strips.
  const std::vector<Shape> shapes = {{1, 1}, {2, 3}, {5, 5}, {1, 513}, {300, 1}, {15, 40}, {64, 256}, {131, 301}};
  std::uint64_t seed = 900;
  std::size_t k = 0;
  for (const auto& [name, fp] : gpu_chain_footprints())
    for (DType dt : {DType::bool_, DType::uint8, DType::uint16, DType::int32}) {
      for (int rep = 0; rep < 2; ++rep, ++k) {
        const Shape& shape = shapes[k % shapes.size()];
        const MorphMode m = kModes[(k * 3) % kModes.size()];
        SCOPED_TRACE(std::string(dtype_name(dt)) + " " + name + " " + std::string(morph_mode_name(m)) + " " +
                     shape_str(shape));
        const Array h = fresh(shape, dt, seed++);
        const Array d = h.to(Device::cuda(), s);
        const GrayOptions o{.footprint = fp.share(), .mode = m, .cval = cval_for(dt)};
        EXPECT_ARRAY_EQ(erosion(h, o), erosion(d, o, s));
        EXPECT_ARRAY_EQ(dilation(h, o), dilation(d, o, s));
      }
    }
}

TEST(GpuMorphologyChain, Disk10EveryModeShapeAndLargeImages) {
  CUSK_REQUIRE_GPU();
  const Stream s = Stream::create();
  const std::vector<Shape> shapes = {{1, 1}, {3, 7}, {21, 21}, {1, 700}, {700, 1}, {97, 203}, {128, 512}};
  std::uint64_t seed = 950;
  for (DType dt : {DType::uint8, DType::uint16})
    for (const auto& shape : shapes) {
      const Array h = fresh(shape, dt, seed++);
      const Array d = h.to(Device::cuda(), s);
      for (MorphMode m : kModes) {
        SCOPED_TRACE(std::string(dtype_name(dt)) + " " + std::string(morph_mode_name(m)) + " " + shape_str(shape));
        const GrayOptions o{.footprint = disk(10), .mode = m, .cval = cval_for(dt)};
        EXPECT_ARRAY_EQ(erosion(h, o), erosion(d, o, s));
        EXPECT_ARRAY_EQ(dilation(h, o), dilation(d, o, s));
      }
    }
  // Many strips and row segments (the launcher's split), with the ops the benchmarks time.
  const Array h = fresh({1000, 2900}, DType::uint8, 990);
  const Array d = h.to(Device::cuda(), s);
  const GrayOptions o{.footprint = disk(10)};
  EXPECT_ARRAY_EQ(erosion(h, o), erosion(d, o, s));
  EXPECT_ARRAY_EQ(dilation(h, o), dilation(d, o, s));
  EXPECT_ARRAY_EQ(opening(h, o), opening(d, o, s));
  EXPECT_ARRAY_EQ(closing(h, o), closing(d, o, s));
  const Array h16 = fresh({613, 1024}, DType::uint16, 991);
  EXPECT_ARRAY_EQ(dilation(h16, o), dilation(h16.to(Device::cuda(), s), o, s));
  EXPECT_ARRAY_EQ(white_tophat(h16, {.footprint = disk(15)}), white_tophat(h16.to(Device::cuda(), s), {.footprint = disk(15)}, s));
}

TEST(GpuMorphologyChain, ThreeDimensionalBallPlanes) {
  CUSK_REQUIRE_GPU();
  const Stream s = Stream::create();
  std::uint64_t seed = 1000;
  std::size_t k = 0;
  for (int r = 1; r <= 5; ++r)
    for (DType dt : {DType::bool_, DType::uint8, DType::uint16, DType::int32})
      for (const Shape& shape : {Shape{3, 4, 5}, Shape{11, 13, 70}, Shape{1, 20, 30}}) {
        const MorphMode m = kModes[k++ % kModes.size()];
        SCOPED_TRACE(std::string(dtype_name(dt)) + " ball" + std::to_string(r) + " " + std::string(morph_mode_name(m)) +
                     " " + shape_str(shape));
        const Array h = fresh(shape, dt, seed++);
        const Array d = h.to(Device::cuda(), s);
        const GrayOptions o{.footprint = ball(r), .mode = m, .cval = cval_for(dt)};
        EXPECT_ARRAY_EQ(erosion(h, o), erosion(d, o, s));
        EXPECT_ARRAY_EQ(dilation(h, o), dilation(d, o, s));
      }
  for (const Footprint& fp : {octahedron(4), footprint_rectangle({3, 2, 5})}) {
    const Array h = fresh({9, 30, 41}, DType::uint8, seed++);
    EXPECT_ARRAY_EQ(erosion(h, {.footprint = fp.share()}), erosion(h.to(Device::cuda(), s), {.footprint = fp.share()}, s));
  }
  // The benchmark's case on a volume of many segments and planes.
  const Array h = fresh({40, 96, 200}, DType::uint8, 1099);
  EXPECT_ARRAY_EQ(erosion(h, {.footprint = ball(5)}), erosion(h.to(Device::cuda(), s), {.footprint = ball(5)}, s));
}

TEST(GpuMorphologyChain, StridedMisalignedAndOut) {
  CUSK_REQUIRE_GPU();
  const Stream s = Stream::create();
  for (DType dt : {DType::uint8, DType::uint16, DType::int32}) {
    SCOPED_TRACE(dtype_name(dt));
    const Array h = fresh({90, 260}, dt, 1200);
    const Array d = h.to(Device::cuda(), s);
    const Array hv = h.slice({Slice{.start = 1, .step = 2}, Slice{.start = 3, .step = 3}});
    const Array dv = d.slice({Slice{.start = 1, .step = 2}, Slice{.start = 3, .step = 3}});
    EXPECT_ARRAY_EQ(erosion(hv, {.footprint = disk(3)}), erosion(dv, {.footprint = disk(3)}, s));
    const Array hw = h.slice({Slice{}, Slice{.start = 5, .stop = 250, .step = 3}});
    const Array dw = d.slice({Slice{}, Slice{.start = 5, .stop = 250, .step = 3}});
    EXPECT_ARRAY_EQ(dilation(hw, {.footprint = disk(7)}), dilation(dw, {.footprint = disk(7)}, s));
    // A contiguous view one element past an aligned start, rows of a multiple of 4 pixels.
    const Array hflat = fresh({1 + 40 * 64}, dt, 1201);
    const Array dflat = hflat.to(Device::cuda(), s);
    const Array hm = hflat.slice({Slice{.start = 1}}).reshape({40, 64});
    const Array dm = dflat.slice({Slice{.start = 1}}).reshape({40, 64});
    EXPECT_ARRAY_EQ(erosion(hm, {.footprint = disk(5)}), erosion(dm, {.footprint = disk(5)}, s));
    EXPECT_ARRAY_EQ(dilation(hm, {.footprint = ellipse(6, 2), .mode = MorphMode::wrap}),
                    dilation(dm, {.footprint = ellipse(6, 2), .mode = MorphMode::wrap}, s));
    Array wide = Array::zeros({90, 260}, dt, Device::cuda());
    Array out = wide.slice({Slice{.start = 1, .step = 2}, Slice{.start = 3, .step = 3}});
    erosion_into(dv, out, {.footprint = diamond(4), .mode = MorphMode::constant, .cval = 3}, s);
    EXPECT_ARRAY_EQ(erosion(hv, {.footprint = diamond(4), .mode = MorphMode::constant, .cval = 3}), out);
  }
}

/// The row-chain pass called directly (whatever fast_minmax_pass would route the footprint to): 3-D
/// footprints of several planes and single-plane ones.
template <class T>
void expect_direct_chain(const Array& h, const Footprint& fp, bool is_max, MorphMode m, double cval, const Stream& s) {
  using cuskimage::morphology::detail::cuda_chain_minmax;
  const ndimage::Mode mode = m == MorphMode::constant ? ndimage::Mode::constant
                             : m == MorphMode::wrap   ? ndimage::Mode::wrap
                             : m == MorphMode::mirror ? ndimage::Mode::mirror
                             : m == MorphMode::nearest ? ndimage::Mode::nearest
                                                       : ndimage::Mode::reflect;
  const ndimage::RankFilterOptions o{.footprint = fp.array().share(), .mode = mode, .cval = cval};
  const Array expected = is_max ? ndimage::maximum_filter(h, o) : ndimage::minimum_filter(h, o);
  const Array d = h.to(Device::cuda(), s);
  Array out = Array::empty(h.shape(), h.dtype(), Device::cuda(), s);
  ASSERT_TRUE(cuda_chain_minmax<T>(d, out, footprint_runs(fp.array()), is_max, mode, static_cast<T>(cval), s));
  EXPECT_ARRAY_EQ(expected, out);
}

TEST(GpuMorphologyChain, DirectMultiPlaneAndSinglePlane) {
  CUSK_REQUIRE_GPU();
  const Stream s = Stream::create();
  std::uint64_t seed = 1300;
  std::size_t k = 0;
  const std::vector<Shape> shapes = {{1, 1, 1}, {3, 4, 5}, {11, 13, 70}, {7, 33, 300}, {40, 96, 200}};
  for (int r = 1; r <= 5; ++r)
    for (const Shape& shape : shapes) {
      const MorphMode m = kModes[k % kModes.size()];
      if (m == MorphMode::max || m == MorphMode::min || m == MorphMode::ignore) {
        ++k;
        continue;  // the direct call takes ndimage modes only
      }
      SCOPED_TRACE("ball" + std::to_string(r) + " " + std::string(morph_mode_name(m)) + " " + shape_str(shape));
      const bool is_max = k % 2 == 1;
      switch (k++ % 3) {
        case 0: expect_direct_chain<std::uint8_t>(fresh(shape, DType::uint8, seed++), ball(r), is_max, m, 7, s); break;
        case 1: expect_direct_chain<std::uint16_t>(fresh(shape, DType::uint16, seed++), ball(r), is_max, m, 7, s); break;
        default: expect_direct_chain<std::int32_t>(fresh(shape, DType::int32, seed++), ball(r), is_max, m, -7, s); break;
      }
    }
  // Asymmetric several-plane footprints, a single-plane 3-D footprint, 2-D footprints.
  for (MorphMode m : {MorphMode::reflect, MorphMode::constant, MorphMode::wrap}) {
    SCOPED_TRACE(morph_mode_name(m));
    expect_direct_chain<std::uint8_t>(fresh({9, 30, 141}, DType::uint8, seed++), footprint_rectangle({2, 3, 4}), false, m,
                                      3, s);
    expect_direct_chain<std::uint16_t>(fresh({9, 30, 141}, DType::uint16, seed++), octahedron(4), true, m, 3, s);
    expect_direct_chain<std::uint8_t>(fresh({6, 50, 203}, DType::uint8, seed++),
                                      Footprint(disk(6).array().reshape({1, 13, 13})), false, m, 3, s);
    expect_direct_chain<std::uint8_t>(fresh({301, 517}, DType::uint8, seed++), disk(10), true, m, 3, s);
    expect_direct_chain<std::int32_t>(fresh({77, 230}, DType::int32, seed++), diamond(9), false, m, 3, s);
  }
}

// ---- binary ---------------------------------------------------------------------------------------

TEST(GpuMorphologyFast, Binary3x3EveryModeAndShape) {
  CUSK_REQUIRE_GPU();
  const Stream s = Stream::create();
  std::uint64_t seed = 201;
  // 16-byte rows (vector path), odd widths (byte path), sub-warp and sub-block shapes, 3-D planes.
  const std::vector<Shape> shapes = {{1, 1}, {2, 3}, {3, 17}, {64, 512}, {65, 1040}, {100, 90}, {9, 10, 33}};
  for (const auto& shape : shapes)
    for (DType dt : {DType::bool_, DType::uint8}) {
      const Array h = fresh(shape, dt, seed++);
      const Array d = h.to(Device::cuda(), s);
      const Shape fs = shape.size() == 2 ? Shape{3, 3} : Shape{1, 3, 3};
      for (MorphMode m : {MorphMode::max, MorphMode::min, MorphMode::ignore}) {
        SCOPED_TRACE(shape_str(shape) + " " + std::string(morph_mode_name(m)));
        const BinaryOptions o{.footprint = footprint_rectangle(fs), .mode = m};
        EXPECT_ARRAY_EQ(binary_erosion(h, o), binary_erosion(d, o, s));
        EXPECT_ARRAY_EQ(binary_dilation(h, o), binary_dilation(d, o, s));
        EXPECT_ARRAY_EQ(binary_opening(h, o), binary_opening(d, o, s));
        EXPECT_ARRAY_EQ(binary_closing(h, o), binary_closing(d, o, s));
      }
    }
  // Repeated 3x3 passes (num_iter 2) and other run footprints on bool.
  const Array h = fresh({77, 160}, DType::bool_, 7);
  const Array d = h.to(Device::cuda(), s);
  std::vector<FootprintElement> seq;
  seq.push_back({footprint_rectangle({3, 3}).array().share(), 2});
  const BinaryOptions o{.footprint = Footprint(std::move(seq))};
  EXPECT_ARRAY_EQ(binary_erosion(h, o), binary_erosion(d, o, s));
  for (const auto& fp : {"disk3", "runs", "rect34"}) {
    SCOPED_TRACE(fp);
    EXPECT_ARRAY_EQ(binary_erosion(h, {.footprint = named(fp)}), binary_erosion(d, {.footprint = named(fp)}, s));
    EXPECT_ARRAY_EQ(binary_dilation(h, {.footprint = named(fp), .mode = MorphMode::max}),
                    binary_dilation(d, {.footprint = named(fp), .mode = MorphMode::max}, s));
  }
}

TEST(GpuMorphologyFast, Binary3x3StridedAndOut) {
  CUSK_REQUIRE_GPU();
  const Stream s = Stream::create();
  const Array h = fresh({130, 520}, DType::bool_, 17);
  const Array d = h.to(Device::cuda(), s);
  const Array hv = h.slice({Slice{.step = 2}, Slice{.start = 3}});
  const Array dv = d.slice({Slice{.step = 2}, Slice{.start = 3}});
  const BinaryOptions o{.footprint = footprint_rectangle({3, 3})};
  EXPECT_ARRAY_EQ(binary_erosion(hv, o), binary_erosion(dv, o, s));
  Array wide = Array::zeros({130, 520}, DType::bool_, Device::cuda());
  Array out = wide.slice({Slice{.step = 2}, Slice{.start = 3}});
  binary_dilation_into(dv, out, o, s);
  EXPECT_ARRAY_EQ(binary_dilation(hv, o), out);
}

}  // namespace
