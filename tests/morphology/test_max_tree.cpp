// skimage.morphology.max_tree, area/diameter opening/closing, max_tree_local_maxima.
// CPU: golden outputs of scikit-image 0.26 (tests/golden/cases_morphology_maxtree.py) on camera
// crops (uint8, uint16, float32), random images with plateaus (uint8, float64, int32), 3-D
// volumes (uint8, float32) and float32/float64 images with NaNs of every kind, -0 and +0 plateaus
// and values whose 1 - x is inexact, every connectivity; parent, traverser and all filters exact
// to the bit (a closing's NaNs keep sign and payload, quieted, as numpy's 1 - x on x86). Also a
// precomputed tree passed back in, a strided view, degenerate shapes and bad arguments.
// Parallel algorithm on the host (MorphologyMaxTreeParallel): the bodies the CUDA kernels run
// (src/morphology/max_tree_ops.hpp) on host threads in shuffled order, against the CPU oracle.
// GPU (Gpu*): device results equal the CPU backend's exactly on the goldens and fresh random images
// (ties, plateaus, smooth textures, NaN, odd and degenerate shapes, 3-D, every connectivity and
// dtype, forced batch sizes), strided views, a caller's tree, a non-default stream.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <numeric>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "cuskimage/io.hpp"
#include "cuskimage/morphology.hpp"
#include "cuskimage/tuning.hpp"
#include "src/morphology/max_tree_cuda.hpp"
#include "src/morphology/max_tree_ops.hpp"
#include "tests/cli/cli_support.hpp"
#include "tests/common/test_support.hpp"

namespace {

using namespace cuskimage;
using namespace cuskimage::morphology;
using cusktest::load_golden;

const std::vector<std::string> kCases = {"cam_u8", "cam_u16", "cam_f32", "plateau_u8", "noise_f64",
                                         "vol_u8", "vol_f32", "row_i32", "nan_f32",    "nan_f64"};

Array gold(const std::string& name) { return load_golden("morphology_maxtree/" + name + ".npy"); }

TEST(MorphologyMaxTree, TreeGolden) {
  for (const auto& c : kCases) {
    const Array img = gold(c + "_in");
    for (int conn = 1; conn <= img.ndim(); ++conn) {
      SCOPED_TRACE(c + " connectivity " + std::to_string(conn));
      const std::string b = c + "_c" + std::to_string(conn);
      const MaxTree t = max_tree(img, {.connectivity = conn});
      EXPECT_ARRAY_EQ(gold(b + "_parent"), t.parent);
      EXPECT_ARRAY_EQ(gold(b + "_trav"), t.traverser);
    }
  }
}

TEST(MorphologyMaxTree, FiltersGolden) {
  for (const auto& c : kCases) {
    const Array img = gold(c + "_in");
    for (int conn = 1; conn <= img.ndim(); ++conn) {
      SCOPED_TRACE(c + " connectivity " + std::to_string(conn));
      const std::string b = c + "_c" + std::to_string(conn);
      EXPECT_ARRAY_EQ(gold(b + "_ao"), area_opening(img, {.area_threshold = 20, .connectivity = conn}));
      EXPECT_ARRAY_EQ(gold(b + "_ac"), area_closing(img, {.area_threshold = 20, .connectivity = conn}));
      EXPECT_ARRAY_EQ(gold(b + "_do"), diameter_opening(img, {.diameter_threshold = 6, .connectivity = conn}));
      EXPECT_ARRAY_EQ(gold(b + "_dc"), diameter_closing(img, {.diameter_threshold = 6, .connectivity = conn}));
      EXPECT_ARRAY_EQ(gold(b + "_lm"), max_tree_local_maxima(img, {.connectivity = conn}));
    }
  }
}

TEST(MorphologyMaxTree, PrecomputedTree) {
  const Array img = gold("cam_u8_in");
  EXPECT_ARRAY_EQ(gold("cam_u8_c2_ao"), area_opening(img, {.area_threshold = 20,
                                                           .parent = gold("cam_u8_c2_parent"),
                                                           .tree_traverser = gold("cam_u8_c2_trav")}));
  EXPECT_ARRAY_EQ(gold("cam_u8_c1_do"), diameter_opening(img, {.diameter_threshold = 6,
                                                               .parent = gold("cam_u8_c1_parent"),
                                                               .tree_traverser = gold("cam_u8_c1_trav")}));
  EXPECT_ARRAY_EQ(gold("cam_u8_c2_lm"), max_tree_local_maxima(img, {.parent = gold("cam_u8_c2_parent"),
                                                                    .tree_traverser = gold("cam_u8_c2_trav")}));
  // A closing uses the tree of the inverted image: the tree of the image itself gives another result.
  const Array wrong = area_closing(img, {.area_threshold = 20, .parent = gold("cam_u8_c1_parent"),
                                         .tree_traverser = gold("cam_u8_c1_trav")});
  EXPECT_FALSE(cusktest::arrays_equal(gold("cam_u8_c1_ac"), wrong));
}

TEST(MorphologyMaxTree, StridedView) {
  const Array img = gold("plateau_u8_in");
  const Array v = img.slice({Slice{.start = 1, .step = 2}, Slice{.step = 3}});
  const Array c = v.copy();
  const MaxTree tv = max_tree(v, {.connectivity = 2}), tc = max_tree(c, {.connectivity = 2});
  EXPECT_ARRAY_EQ(tc.parent, tv.parent);
  EXPECT_ARRAY_EQ(tc.traverser, tv.traverser);
  EXPECT_ARRAY_EQ(area_opening(c, {.area_threshold = 5}), area_opening(v, {.area_threshold = 5}));
  EXPECT_ARRAY_EQ(diameter_closing(c, {.diameter_threshold = 3}), diameter_closing(v, {.diameter_threshold = 3}));
}

TEST(MorphologyMaxTree, DegenerateShapes) {
  // A constant image: one node; everything is one maximum (label 1), the filters keep or clear it.
  const Array flat = Array::full({4, 5}, 7.0, DType::uint8);
  const MaxTree t = max_tree(flat);
  for (auto p : t.parent.to_vector<std::int64_t>()) EXPECT_EQ(p, 0);
  EXPECT_EQ(t.traverser.to_vector<std::int64_t>(), (std::vector<std::int64_t>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12,
                                                                              13, 14, 15, 16, 17, 18, 19}));
  for (auto x : max_tree_local_maxima(flat).to_vector<std::uint64_t>()) EXPECT_EQ(x, 1u);
  for (auto x : area_opening(flat, {.area_threshold = 21}).to_vector<int>()) EXPECT_EQ(x, 0);
  for (auto x : area_opening(flat, {.area_threshold = 20}).to_vector<int>()) EXPECT_EQ(x, 7);
  // 1-D: the maxima of a small profile, and an empty image.
  const Array line = Array::from_vector<std::int32_t>({1, 3, 3, 2, 5, 0, 5}, {7});
  EXPECT_EQ(max_tree_local_maxima(line).to_vector<std::uint64_t>(),
            (std::vector<std::uint64_t>{0, 3, 3, 0, 2, 0, 1}));
  EXPECT_EQ(area_opening(line, {.area_threshold = 2}).to_vector<int>(), (std::vector<int>{1, 3, 3, 2, 2, 0, 0}));
  EXPECT_EQ(max_tree(Array::zeros({0, 3}, DType::float32)).traverser.size(), 0);
  EXPECT_EQ(area_closing(Array::zeros({0, 3}, DType::float32)).size(), 0);
}

TEST(MorphologyMaxTree, BadInput) {
  const Array img = gold("cam_u8_in");
  EXPECT_THROW(max_tree(img, {.connectivity = 0}), InvalidArgument);
  EXPECT_THROW(max_tree(img, {.connectivity = 3}), InvalidArgument);
  EXPECT_THROW(area_opening(img, {.area_threshold = -1}), InvalidArgument);
  EXPECT_THROW(area_closing(img, {.area_threshold = -0.5}), InvalidArgument);
  EXPECT_THROW(diameter_opening(img, {.diameter_threshold = -2}), InvalidArgument);
  EXPECT_THROW(diameter_closing(img, {.connectivity = 5}), InvalidArgument);
  EXPECT_THROW(max_tree_local_maxima(img, {.connectivity = -1}), InvalidArgument);
  EXPECT_THROW(max_tree(Array::zeros({3, 3}, DType::bool_)), InvalidArgument);
  EXPECT_THROW(max_tree(Array()), InvalidArgument);
  // Precomputed trees: both or neither, int64, the image's size, indices inside the image.
  EXPECT_THROW(area_opening(img, {.parent = gold("cam_u8_c1_parent")}), InvalidArgument);
  EXPECT_THROW(area_opening(img, {.tree_traverser = gold("cam_u8_c1_trav")}), InvalidArgument);
  EXPECT_THROW(area_opening(img, {.parent = gold("cam_u8_c1_parent").astype(DType::int32),
                                  .tree_traverser = gold("cam_u8_c1_trav")}),
               InvalidArgument);
  EXPECT_THROW(area_opening(img, {.parent = gold("plateau_u8_c1_parent"), .tree_traverser = gold("plateau_u8_c1_trav")}),
               InvalidArgument);  // another image's tree
  Array bad = gold("cam_u8_c1_trav").copy();
  bad.data<std::int64_t>()[3] = bad.size();
  EXPECT_THROW(max_tree_local_maxima(img, {.parent = gold("cam_u8_c1_parent"), .tree_traverser = std::move(bad)}),
               InvalidArgument);
  // Not a tree ordering: a repeated traverser entry, a parent after its child.
  Array dup = gold("cam_u8_c1_trav").copy();
  dup.data<std::int64_t>()[5] = dup.data<std::int64_t>()[6];
  EXPECT_THROW(area_opening(img, {.parent = gold("cam_u8_c1_parent"), .tree_traverser = std::move(dup)}),
               InvalidArgument);
  Array swapped = gold("cam_u8_c1_trav").copy();
  std::swap(swapped.data<std::int64_t>()[0], swapped.data<std::int64_t>()[swapped.size() - 1]);
  EXPECT_THROW(diameter_opening(img, {.parent = gold("cam_u8_c1_parent"), .tree_traverser = std::move(swapped)}),
               InvalidArgument);
  EXPECT_THROW(area_opening(img, {.parent = gold("cam_u8_c1_parent").to(Device::cuda()),
                                  .tree_traverser = gold("cam_u8_c1_trav")}),
               Error);  // another device (or no CUDA device at all)
}

/// Bits of a float or double.
template <class T>
auto bits_of(T x) {
  typename cuskimage::morphology::detail::TreeKey<T>::type b;
  std::memcpy(&b, &x, sizeof(b));
  return b;
}

/// Bits of tree_invert of the F whose bits are b.
template <class F, class B>
auto inverted_bits(B b) {
  static_assert(sizeof(F) == sizeof(B));
  F x;
  std::memcpy(&x, &b, sizeof(x));
  return bits_of(cuskimage::morphology::detail::tree_invert(x));
}

TEST(MorphologyMaxTree, InvertBits) {
  // util.invert as numpy computes it on x86: 1 - x, a NaN keeps its sign and payload and is quieted.
  namespace md = cuskimage::morphology::detail;
  const auto f = [](std::uint32_t b) { return inverted_bits<float>(b); };
  EXPECT_EQ(f(0x7fc00000u), 0x7fc00000u);
  EXPECT_EQ(f(0xffc00000u), 0xffc00000u);
  EXPECT_EQ(f(0x7fc12345u), 0x7fc12345u);
  EXPECT_EQ(f(0x7f812345u), 0x7fc12345u);  // signalling -> quiet
  EXPECT_EQ(f(0xff800001u), 0xffc00001u);
  EXPECT_EQ(f(0x80000000u), 0x3f800000u);  // -0 -> 1
  EXPECT_EQ(bits_of(md::tree_invert(md::tree_invert(-0.0f))), 0u);  // a kept -0 comes back +0
  EXPECT_EQ(md::tree_invert(0.1f), 1.0f - 0.1f);
  EXPECT_NE(md::tree_invert(md::tree_invert(0.1f)), 0.1f);  // 1 - (1 - x) is not x
  const auto d = [](std::uint64_t b) { return inverted_bits<double>(b); };
  EXPECT_EQ(d(0xfff8000000000000ull), 0xfff8000000000000ull);
  EXPECT_EQ(d(0x7ff0000000012345ull), 0x7ff8000000012345ull);
  EXPECT_EQ(d(0xfff0000000000001ull), 0xfff8000000000001ull);
  EXPECT_EQ(md::tree_invert(std::uint16_t{7}), 65528);
  EXPECT_EQ(md::tree_invert(std::int32_t{5}), -6);
  EXPECT_EQ(md::tree_invert(std::numeric_limits<std::int64_t>::min()), std::numeric_limits<std::int64_t>::max());
}

TEST(MorphologyMaxTree, Cli) {
  const std::string in = cusktest::golden_path("morphology_maxtree/cam_u8_in.npy");
  const std::string out = cusktest::temp_path("maxtree_cli_out.npy"), out2 = cusktest::temp_path("maxtree_cli_out2.npy");
  auto run = [](const std::vector<std::string>& args) {
    const auto r = cuskclitest::run_cli_cpu(args);
    if (r.rc != 0) ADD_FAILURE() << cuskclitest::describe(r);
    return r.rc;
  };
  ASSERT_EQ(run({"morphology.area_opening", in, out, "--area_threshold", "20"}), 0);
  EXPECT_ARRAY_EQ(gold("cam_u8_c1_ao"), io::imread(out));
  ASSERT_EQ(run({"morphology.area_closing", in, out, "--area_threshold", "20", "--connectivity", "2"}), 0);
  EXPECT_ARRAY_EQ(gold("cam_u8_c2_ac"), io::imread(out));
  ASSERT_EQ(run({"morphology.diameter_opening", in, out, "--diameter_threshold", "6"}), 0);
  EXPECT_ARRAY_EQ(gold("cam_u8_c1_do"), io::imread(out));
  ASSERT_EQ(run({"morphology.diameter_closing", in, out, "--diameter_threshold", "6", "--connectivity", "2"}), 0);
  EXPECT_ARRAY_EQ(gold("cam_u8_c2_dc"), io::imread(out));
  ASSERT_EQ(run({"morphology.max_tree_local_maxima", in, out}), 0);
  EXPECT_ARRAY_EQ(gold("cam_u8_c1_lm"), io::imread(out));
  ASSERT_EQ(run({"morphology.max_tree", in, out, out2, "--connectivity", "2"}), 0);
  EXPECT_ARRAY_EQ(gold("cam_u8_c2_parent"), io::imread(out));
  EXPECT_ARRAY_EQ(gold("cam_u8_c2_trav"), io::imread(out2));
  EXPECT_NE(cuskclitest::run_cli_cpu({"morphology.area_opening", in, out, "--area_threshold", "-3"}).rc, 0);
}

// ---- the parallel algorithm, run on host threads -----------------------------------------------

namespace emu {

namespace md = cuskimage::morphology::detail;
using U32 = std::uint32_t;

thread_local std::minstd_rand jitter_rng{1};

/// The memory policy of the shared bodies on the host: relaxed atomics, with a yield now and then
/// so the threads interleave inside the lock-free loops.
struct HostMem {
  static void jitter() {
    if ((jitter_rng() & 31) == 0) std::this_thread::yield();
  }
  template <class U>
  static U load(const U* p) {
    jitter();
    return std::atomic_ref<U>(*const_cast<U*>(p)).load(std::memory_order_relaxed);
  }
  template <class U>
  static void store(U* p, U v) {
    jitter();
    std::atomic_ref<U>(*p).store(v, std::memory_order_relaxed);
  }
  template <class U>
  static bool cas(U* p, U expected, U desired) {
    jitter();
    return std::atomic_ref<U>(*p).compare_exchange_strong(expected, desired, std::memory_order_relaxed);
  }
  static U32 add(U32* p, U32 v) { return std::atomic_ref<U32>(*p).fetch_add(v); }
  static U32 sub(U32* p, U32 v) { return std::atomic_ref<U32>(*p).fetch_sub(v); }
  static void min(std::int32_t* p, std::int32_t v) {
    std::atomic_ref<std::int32_t> a(*p);
    std::int32_t cur = a.load();
    while (v < cur && !a.compare_exchange_weak(cur, v)) {
    }
  }
  static void max(std::int32_t* p, std::int32_t v) {
    std::atomic_ref<std::int32_t> a(*p);
    std::int32_t cur = a.load();
    while (v > cur && !a.compare_exchange_weak(cur, v)) {
    }
  }
  static void fence() { std::atomic_thread_fence(std::memory_order_seq_cst); }
};

/// body(k) for k in [0, count) on four threads, in a shuffled order.
template <class F>
void parallel(std::int64_t count, unsigned seed, const F& body) {
  std::vector<std::int64_t> idx(static_cast<std::size_t>(count));
  std::iota(idx.begin(), idx.end(), std::int64_t{0});
  std::shuffle(idx.begin(), idx.end(), std::mt19937(seed));
  std::atomic<std::int64_t> next{0};
  std::vector<std::thread> threads;
  for (unsigned t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      jitter_rng.seed(seed * 7 + t + 1);
      for (std::int64_t k; (k = next.fetch_add(1)) < count;) body(idx[static_cast<std::size_t>(k)]);
    });
  for (auto& th : threads) th.join();
}

struct Tree {
  std::vector<std::int64_t> parent, order;
};

/// kernels/morphology/max_tree.cu's build_tree, step by step: `per` levels per batch (0: automatic),
/// the tree's links packed in 64-bit words.
template <class T>
Tree build(const std::vector<T>& v, const Shape& shape, int connectivity, U32 per, unsigned seed) {
  using Key = md::TreeKey<T>;
  const auto n = static_cast<std::int64_t>(v.size());
  md::TreeGeom g;
  EXPECT_TRUE(md::make_tree_geom(shape, connectivity, g));
  std::vector<typename Key::type> key(v.size());
  for (std::size_t i = 0; i < v.size(); ++i) key[i] = Key::of(v[i]);
  Tree t;
  t.order.resize(v.size());
  std::iota(t.order.begin(), t.order.end(), std::int64_t{0});
  std::stable_sort(t.order.begin(), t.order.end(), [&](std::int64_t a, std::int64_t b) { return key[a] < key[b]; });
  std::vector<U32> lev(v.size()), lstart(v.size() + 1);
  U32 levels = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    const auto k = key[t.order[i]];
    if (i == 0 || k != key[t.order[i - 1]] || Key::own_level(k)) lstart[levels++] = static_cast<U32>(i);
    lev[t.order[i]] = levels - 1;
  }
  lstart[levels] = static_cast<U32>(n);
  std::vector<U32> zp(v.size());
  std::vector<std::uint64_t> word(v.size());
  std::iota(zp.begin(), zp.end(), U32{0});
  for (std::size_t i = 0; i < v.size(); ++i)
    word[i] = md::TreePackedLinks<HostMem>::pack({static_cast<U32>(i), lev[i]});
  if (per == 0) per = md::tree_levels_per_batch(static_cast<std::uint64_t>(n), levels);
  const auto run = [&](const auto& links) {
    for (const md::TreeBatch b : md::tree_batch_plan(levels, per)) {
      const std::int64_t s = lstart[b.lo], e = lstart[b.hi];
      parallel(e - s, seed + b.hi, [&](std::int64_t k) {
        md::tree_batch_merge<HostMem>(g, links, zp.data(), lev.data(), static_cast<U32>(t.order[s + k]), b.hi);
      });
      if (b.lo > 0)
        parallel(e - s, seed + b.hi + 1, [&](std::int64_t k) {
          md::tree_batch_union<HostMem, U32>(g, zp.data(), lev.data(), static_cast<U32>(t.order[s + k]));
        });
    }
    t.parent.resize(v.size());
    parallel(n, seed + 1, [&](std::int64_t p) {
      md::tree_finalize_canonical(links, lev.data(), static_cast<U32>(p), t.parent.data());
    });
    parallel(n, seed + 2, [&](std::int64_t p) { md::tree_finalize_parent(links, static_cast<U32>(p), t.parent.data()); });
  };
  run(md::TreePackedLinks<HostMem>{word.data()});
  return t;
}

/// The filter of max_tree.cu (filter_typed) with the unaggregated climb.
template <class T>
std::vector<T> filter(std::vector<T> v, const Shape& shape, const Tree& t, bool diameter, bool closing, double thr,
                      unsigned seed) {
  const auto n = static_cast<std::int64_t>(v.size());
  if (closing)
    for (auto& x : v) x = md::tree_invert(x);
  const int nd = static_cast<int>(shape.size());
  const auto root = static_cast<U32>(t.order[0]);
  std::vector<U32> pending(v.size(), 0), area(v.size(), 1), link(v.size());
  std::vector<std::int32_t> lo(v.size() * nd), hi(v.size() * nd);
  for (std::int64_t i = 0; i < n; ++i) {
    std::int64_t r = i;
    for (int d = nd - 1; d >= 0; --d) {
      lo[i * nd + d] = hi[i * nd + d] = static_cast<std::int32_t>(r % shape[d]);
      r /= shape[d];
    }
    if (i != root) ++pending[t.parent[i]];
  }
  std::vector<std::int64_t> leaves;
  for (std::int64_t i = 0; i < n; ++i)
    if (i != root && pending[i] == 0) leaves.push_back(i);
  const md::TreeAreaAcc aacc{area.data()};
  const md::TreeBoxAcc bacc{lo.data(), hi.data(), nd};
  if (thr > 1)
    parallel(static_cast<std::int64_t>(leaves.size()), seed, [&](std::int64_t k) {
      const auto x = static_cast<U32>(leaves[k]);
      if (diameter) md::tree_climb<HostMem>(t.parent.data(), root, x, bacc, pending.data(), thr);
      else md::tree_climb<HostMem>(t.parent.data(), root, x, aacc, pending.data(), thr);
    });
  const auto big = [&](U32 p) {
    return diameter ? md::tree_big<HostMem>(pending.data(), bacc, p, thr)
                    : md::tree_big<HostMem>(pending.data(), aacc, p, thr);
  };
  for (std::int64_t i = 0; i < n; ++i)
    link[i] = md::tree_filter_link(v.data(), t.parent.data(), root, static_cast<U32>(i), big);
  std::vector<T> out(v.size());
  const bool root_big = big(root);
  parallel(n, seed + 1, [&](std::int64_t i) {
    const U32 end = md::tree_link_end<HostMem>(link.data(), static_cast<U32>(i));
    const T r = md::tree_filter_value(v.data(), root, end, root_big);
    out[i] = closing ? md::tree_invert(r) : r;
  });
  return out;
}

/// max_tree.cu's local_maxima_typed.
template <class T>
std::vector<std::uint64_t> local_maxima(const std::vector<T>& v, const Tree& t) {
  const auto n = static_cast<std::int64_t>(v.size());
  const auto root = static_cast<U32>(t.order[0]);
  const std::int64_t* P = t.parent.data();
  std::vector<std::uint8_t> has_child(v.size(), 0);
  for (std::int64_t i = 0; i < n; ++i)
    if (md::tree_lm_canonical(v.data(), P, root, static_cast<U32>(i))) has_child[P[i]] = 1;
  std::vector<U32> leafpos(v.size()), before(v.size());
  for (std::int64_t i = 0; i < n; ++i) {
    const auto x = static_cast<U32>(t.order[i]);
    leafpos[i] = md::tree_lm_canonical(v.data(), P, root, x) && !has_child[x];
  }
  std::exclusive_scan(leafpos.begin(), leafpos.end(), before.begin(), U32{0});
  const U32 leaves = before[n - 1] + leafpos[n - 1];
  std::vector<std::uint64_t> first(v.size()), out(v.size());
  for (std::int64_t i = 0; i < n; ++i) {
    const auto x = static_cast<U32>(t.order[i]);
    first[x] = md::tree_lm_first(md::tree_lm_canonical(v.data(), P, root, x), has_child[x] != 0, before[i], leaves);
  }
  for (std::int64_t i = 0; i < n; ++i) {
    const auto p = static_cast<U32>(i);
    out[i] = (p != root && !md::tree_lm_canonical(v.data(), P, root, p)) ? first[P[i]] : first[i];
  }
  return out;
}

template <class T>
Array host_array(const std::vector<T>& v, const Shape& shape) {
  return Array::from_vector<T>(v, shape);
}

/// Every output of the parallel algorithm against the CPU backend on one image.
template <class T>
void check_image(const Array& img, unsigned seed) {
  const std::vector<T> v = img.to_vector<T>();
  const Shape& shape = img.shape();
  for (int conn = 1; conn <= img.ndim(); ++conn)
    for (U32 per : {0u, 1u, 2u, 5u}) {
      SCOPED_TRACE(img.str() + " connectivity " + std::to_string(conn) + " levels/batch " + std::to_string(per));
      const MaxTree cpu = max_tree(img, {.connectivity = conn});
      const Tree t = build(v, shape, conn, per, seed);
      EXPECT_ARRAY_EQ(cpu.parent, host_array(t.parent, shape));
      EXPECT_ARRAY_EQ(cpu.traverser, host_array(t.order, {img.size()}));
      // Larger batches (another interleaving of the merges).
      const Tree tb = build(v, shape, conn, per == 0 ? 64u : 3 * per, seed + 6);
      EXPECT_ARRAY_EQ(cpu.parent, host_array(tb.parent, shape));
      if (per != 0 && per != 2) continue;
      // Small thresholds (0, 1 and fractions included) and large ones (most nodes small).
      const double athr = per == 0 ? static_cast<double>(seed % 9) * 1.5 : 40.0 + seed % 50;
      const double dthr = per == 0 ? static_cast<double>(seed % 5) : 6.0 + seed % 5;
      EXPECT_ARRAY_EQ(area_opening(img, {.area_threshold = athr, .connectivity = conn}),
                      host_array(filter(v, shape, t, false, false, athr, seed), shape));
      EXPECT_ARRAY_EQ(diameter_opening(img, {.diameter_threshold = dthr, .connectivity = conn}),
                      host_array(filter(v, shape, t, true, false, dthr, seed), shape));
      EXPECT_ARRAY_EQ(max_tree_local_maxima(img, {.connectivity = conn}), host_array(local_maxima(v, t), shape));
      // Closings filter the tree of the inverted image.
      std::vector<T> inv(v);
      for (auto& x : inv) x = md::tree_invert(x);
      const Tree ti = build(inv, shape, conn, per, seed + 3);
      EXPECT_ARRAY_EQ(area_closing(img, {.area_threshold = athr, .connectivity = conn}),
                      host_array(filter(v, shape, ti, false, true, athr, seed), shape));
      EXPECT_ARRAY_EQ(diameter_closing(img, {.diameter_threshold = dthr, .connectivity = conn}),
                      host_array(filter(v, shape, ti, true, true, dthr, seed), shape));
    }
}

}  // namespace emu

TEST(MorphologyMaxTreeParallel, GoldenImages) {
  for (const auto& c : {std::string("plateau_u8"), std::string("noise_f64"), std::string("vol_u8"),
                        std::string("row_i32"), std::string("nan_f32")}) {
    const Array img = gold(c + "_in");
    if (img.dtype() == DType::uint8) emu::check_image<std::uint8_t>(img, 3);
    if (img.dtype() == DType::float32) emu::check_image<float>(img, 6);
    if (img.dtype() == DType::float64) emu::check_image<double>(img, 4);
    if (img.dtype() == DType::int32) emu::check_image<std::int32_t>(img, 5);
  }
}

TEST(MorphologyMaxTreeParallel, BatchPlan) {
  namespace md = cuskimage::morphology::detail;
  const auto str = [](const std::vector<md::TreeBatch>& p) {
    std::string r;
    for (const auto& b : p) r += "[" + std::to_string(b.lo) + "," + std::to_string(b.hi) + ")";
    return r;
  };
  EXPECT_EQ(str(md::tree_batch_plan(10, 3)), "[7,10)[4,7)[1,4)[0,1)");
  EXPECT_EQ(str(md::tree_batch_plan(10, 0)), "[9,10)[8,9)[7,8)[6,7)[5,6)[4,5)[3,4)[2,3)[1,2)[0,1)");
  EXPECT_EQ(str(md::tree_batch_plan(10, 64)), "[0,10)");
  EXPECT_TRUE(md::tree_batch_plan(0, 3).empty());
}

TEST(MorphologyMaxTreeParallel, RandomImages) {
  unsigned seed = 40;
  // uint8 noise with many ties, quantised plateaus, odd and degenerate shapes, 3-D.
  for (const Shape& shape : {Shape{23, 31}, Shape{1, 40}, Shape{40, 1}, Shape{1, 1}, Shape{7}, Shape{6, 7, 9}}) {
    emu::check_image<std::uint8_t>(cusktest::random_array(shape, DType::uint8, seed++, 0, 5), seed);
    emu::check_image<std::uint8_t>(cusktest::random_array(shape, DType::uint8, seed++), seed);
  }
  emu::check_image<std::uint16_t>(cusktest::random_array({19, 22}, DType::uint16, seed++, 0, 40), seed);
  emu::check_image<std::int64_t>(cusktest::random_array({17, 13}, DType::int64, seed++, -1000, 1000), seed);
  emu::check_image<float>(cusktest::random_array({15, 21}, DType::float32, seed++), seed);
  emu::check_image<std::uint8_t>(Array::full({9, 11}, 3, DType::uint8), seed++);
  // A smooth texture (distinct float levels, deep tree) and NaN / signed zeros.
  Array smooth = Array::empty({24, 26}, DType::float32);
  for (std::int64_t i = 0; i < smooth.size(); ++i)
    smooth.data<float>()[i] = static_cast<float>(std::sin(0.3 * (i / 26)) * std::cos(0.23 * (i % 26)) + 1e-3 * i);
  emu::check_image<float>(smooth, seed++);
  Array nan = cusktest::random_array({13, 17}, DType::float64, seed++, -1, 1);
  double* q = nan.data<double>();
  for (std::int64_t i = 0; i < nan.size(); ++i) {
    if (i % 5 == 1 || (i > 60 && i < 90)) q[i] = std::numeric_limits<double>::quiet_NaN();
    if (i % 7 == 3) q[i] = (i % 2) ? 0.0 : -0.0;
  }
  emu::check_image<double>(nan, seed++);
}

// ---- GPU ------------------------------------------------------------------------------------------

namespace md = cuskimage::morphology::detail;

/// Forces the tree build's levels per batch for one scope (0: automatic).
class LevelsPerBatch {
 public:
  explicit LevelsPerBatch(unsigned d) : old_(cuskimage::tuning::set_max_tree_policy({.levels_per_batch = d})) {}
  ~LevelsPerBatch() { cuskimage::tuning::set_max_tree_policy(old_); }
  LevelsPerBatch(const LevelsPerBatch&) = delete;
  LevelsPerBatch& operator=(const LevelsPerBatch&) = delete;

 private:
  cuskimage::tuning::MaxTreePolicy old_;
};

/// max_tree and every filter on the device against the CPU backend.
void expect_gpu_equals_cpu(const Array& h, const Stream& s, double athr = 20, double dthr = 6) {
  const Array d = h.to(Device::cuda(), s);
  for (int conn = 1; conn <= h.ndim(); ++conn) {
    SCOPED_TRACE(h.str() + " connectivity " + std::to_string(conn));
    const MaxTree c = max_tree(h, {.connectivity = conn});
    const MaxTree g = max_tree(d, {.connectivity = conn}, s);
    EXPECT_EQ(g.parent.device(), Device::cuda());
    EXPECT_ARRAY_EQ(c.parent, g.parent);
    EXPECT_ARRAY_EQ(c.traverser, g.traverser);
    EXPECT_ARRAY_EQ(area_opening(h, {.area_threshold = athr, .connectivity = conn}),
                    area_opening(d, {.area_threshold = athr, .connectivity = conn}, s));
    EXPECT_ARRAY_EQ(area_closing(h, {.area_threshold = athr, .connectivity = conn}),
                    area_closing(d, {.area_threshold = athr, .connectivity = conn}, s));
    EXPECT_ARRAY_EQ(diameter_opening(h, {.diameter_threshold = dthr, .connectivity = conn}),
                    diameter_opening(d, {.diameter_threshold = dthr, .connectivity = conn}, s));
    EXPECT_ARRAY_EQ(diameter_closing(h, {.diameter_threshold = dthr, .connectivity = conn}),
                    diameter_closing(d, {.diameter_threshold = dthr, .connectivity = conn}, s));
    EXPECT_ARRAY_EQ(max_tree_local_maxima(h, {.connectivity = conn}),
                    max_tree_local_maxima(d, {.connectivity = conn}, s));
  }
}

/// Sum of two slanted waves plus a little noise, scaled to [0, scale], converted to dt.
Array smooth_image(const Shape& shape, DType dt, double scale, std::uint64_t seed) {
  Array f = Array::empty(shape, DType::float64);
  double* p = f.data<double>();
  const std::int64_t w = shape.back();
  std::mt19937 rng(static_cast<unsigned>(seed));
  std::uniform_real_distribution<double> u(0, 1);
  const double a = 0.05 + 0.2 * u(rng), b = 0.05 + 0.2 * u(rng), c = 0.1 * u(rng);
  for (std::int64_t i = 0; i < f.size(); ++i) {
    const double y = static_cast<double>(i / w), x = static_cast<double>(i % w);
    p[i] = scale * (0.5 + 0.24 * std::sin(a * x + c * y) + 0.24 * std::cos(b * y - 0.7 * c * x) + 0.02 * u(rng));
  }
  return f.astype(dt);
}

bool is_float(DType dt) { return dt == DType::float32 || dt == DType::float64; }

/// Element i of a float32/float64 array set to NaN kind k (0..4): quiet, -quiet, quiet with a
/// payload, signalling with a payload, -signalling.
void set_nan(Array& a, std::int64_t i, int k) {
  if (a.dtype() == DType::float32) {
    constexpr std::uint32_t bits[] = {0x7fc00000u, 0xffc00000u, 0x7fc12345u, 0x7f812345u, 0xff800001u};
    std::memcpy(a.data<float>() + i, &bits[k], 4);
  } else {
    constexpr std::uint64_t bits[] = {0x7ff8000000000000ull, 0xfff8000000000000ull, 0x7ff8000000012345ull,
                                      0x7ff0000000012345ull, 0xfff0000000000001ull};
    std::memcpy(a.data<double>() + i, &bits[k], 8);
  }
}

TEST(GpuMorphologyMaxTree, Goldens) {
  CUSK_REQUIRE_GPU();
  const Stream s = Stream::create();
  for (const auto& c : kCases) {
    const Array img = gold(c + "_in");
    const Array d = img.to(Device::cuda(), s);
    for (int conn = 1; conn <= img.ndim(); ++conn) {
      SCOPED_TRACE(c + " connectivity " + std::to_string(conn));
      const std::string b = c + "_c" + std::to_string(conn);
      const MaxTree t = max_tree(d, {.connectivity = conn}, s);
      EXPECT_ARRAY_EQ(gold(b + "_parent"), t.parent);
      EXPECT_ARRAY_EQ(gold(b + "_trav"), t.traverser);
      EXPECT_ARRAY_EQ(gold(b + "_ao"), area_opening(d, {.area_threshold = 20, .connectivity = conn}, s));
      EXPECT_ARRAY_EQ(gold(b + "_ac"), area_closing(d, {.area_threshold = 20, .connectivity = conn}, s));
      EXPECT_ARRAY_EQ(gold(b + "_do"), diameter_opening(d, {.diameter_threshold = 6, .connectivity = conn}, s));
      EXPECT_ARRAY_EQ(gold(b + "_dc"), diameter_closing(d, {.diameter_threshold = 6, .connectivity = conn}, s));
      EXPECT_ARRAY_EQ(gold(b + "_lm"), max_tree_local_maxima(d, {.connectivity = conn}, s));
    }
  }
}

TEST(GpuMorphologyMaxTree, RandomMatchesCpu) {
  CUSK_REQUIRE_GPU();
  const Stream s = Stream::create();
  std::uint64_t seed = 300;
  // uint8 noise (many ties) and few-level plateaus, odd and degenerate shapes.
  for (const Shape& shape : {Shape{97, 131}, Shape{1, 517}, Shape{389, 1}, Shape{1, 1}, Shape{1000}, Shape{2, 3}}) {
    expect_gpu_equals_cpu(cusktest::random_array(shape, DType::uint8, seed++), s);
    expect_gpu_equals_cpu(cusktest::random_array(shape, DType::uint8, seed++, 0, 3), s, 7, 3);
  }
  // Every dtype: noise, smooth textures (long branches), constant images.
  for (DType dt : {DType::uint8, DType::uint16, DType::int32, DType::int64, DType::float32, DType::float64}) {
    expect_gpu_equals_cpu(cusktest::random_array({61, 47}, dt, seed++, is_float(dt) ? -1 : 0, is_float(dt) ? 1 : 9), s,
                          5, 3);
    const double scale = is_float(dt) ? 1 : dt == DType::uint8 ? 255 : 4000;
    expect_gpu_equals_cpu(smooth_image({120, 143}, dt, scale, seed++), s, 64, 9);
    expect_gpu_equals_cpu(Array::full({33, 35}, 5, dt), s);
  }
  // 3-D (connectivity 1, 2 and 3) and 4-D.
  expect_gpu_equals_cpu(cusktest::random_array({11, 23, 19}, DType::uint8, seed++, 0, 6), s, 9, 3);
  expect_gpu_equals_cpu(smooth_image({9, 31, 40}, DType::float32, 1, seed++), s, 30, 5);
  expect_gpu_equals_cpu(cusktest::random_array({5, 6, 7, 8}, DType::uint8, seed++, 0, 4), s, 6, 2);
  // NaN (each its own node, as scikit-image's NaN != NaN; quiet and signalling, both signs, payloads:
  // a closing's output NaNs keep their bits, quieted) and signed zeros.
  for (DType dt : {DType::float32, DType::float64}) {
    Array f = cusktest::random_array({41, 53}, DType::float64, seed++, -1, 1);
    double* p = f.data<double>();
    for (std::int64_t i = 0; i < f.size(); ++i)
      if (i % 11 == 4) p[i] = (i % 2) ? 0.0 : -0.0;
    f = f.astype(dt);
    for (std::int64_t i = 0; i < f.size(); ++i)
      if (i % 9 == 2 || (i > 300 && i < 420)) set_nan(f, i, static_cast<int>(i % 5));
    expect_gpu_equals_cpu(f, s, 4, 2);
  }
}

TEST(GpuMorphologyMaxTree, BatchSizes) {
  CUSK_REQUIRE_GPU();
  const Stream s = Stream::create();
  // Forced levels per batch: one level per batch, a few, and more than the image has.
  for (std::uint32_t per : {1u, 3u, 1000000u}) {
    SCOPED_TRACE("levels per batch " + std::to_string(per));
    const LevelsPerBatch force(per);
    expect_gpu_equals_cpu(cusktest::random_array({73, 81}, DType::uint8, 900 + per), s, 12, 4);
    expect_gpu_equals_cpu(smooth_image({50, 64}, DType::float32, 1, 910 + per), s, 40, 6);
    expect_gpu_equals_cpu(cusktest::random_array({12, 13, 14}, DType::uint16, 920 + per, 0, 30), s, 10, 3);
  }
}

TEST(GpuMorphologyMaxTree, PolicyLevelsPerBatch) {
  CUSK_REQUIRE_GPU();
  const Stream s = Stream::create();
  // Every levels-per-batch setting of tuning::MaxTreePolicy gives the same (exact) results, on
  // small images and on one big enough for many blocks to race.
  for (const unsigned d : {0u, 5u, 2u, 1u}) {
    SCOPED_TRACE("levels_per_batch " + std::to_string(d));
    const LevelsPerBatch force(d);
    expect_gpu_equals_cpu(cusktest::random_array({73, 81}, DType::uint8, 940), s, 12, 4);
    expect_gpu_equals_cpu(smooth_image({50, 64}, DType::float32, 1, 941), s, 40, 6);
    expect_gpu_equals_cpu(cusktest::random_array({12, 13, 14}, DType::uint16, 942, 0, 30), s, 10, 3);
    Array f = cusktest::random_array({31, 37}, DType::float32, 943, -1, 1);
    for (std::int64_t i = 0; i < f.size(); ++i)
      if (i % 7 == 3 || (i > 100 && i < 160)) set_nan(f, i, static_cast<int>(i % 5));
    expect_gpu_equals_cpu(f, s, 5, 3);
    const Array big = cusktest::random_array({700, 900}, DType::uint8, 944);
    const Array db = big.to(Device::cuda(), s);
    EXPECT_ARRAY_EQ(max_tree(big, {.connectivity = 2}).parent, max_tree(db, {.connectivity = 2}, s).parent);
    EXPECT_ARRAY_EQ(area_opening(big, {.area_threshold = 64}), area_opening(db, {.area_threshold = 64}, s));
  }
}

TEST(GpuMorphologyMaxTree, LargeImages) {
  CUSK_REQUIRE_GPU();
  const Stream s = Stream::create();
  // Big enough for many blocks to race in the merges and climbs.
  const Array noise = cusktest::random_array({700, 900}, DType::uint8, 61);
  const Array d = noise.to(Device::cuda(), s);
  const MaxTree c = max_tree(noise, {.connectivity = 2}), g = max_tree(d, {.connectivity = 2}, s);
  EXPECT_ARRAY_EQ(c.parent, g.parent);
  EXPECT_ARRAY_EQ(c.traverser, g.traverser);
  EXPECT_ARRAY_EQ(area_opening(noise, {.area_threshold = 64}), area_opening(d, {.area_threshold = 64}, s));
  EXPECT_ARRAY_EQ(diameter_closing(noise, {.diameter_threshold = 10, .connectivity = 2}),
                  diameter_closing(d, {.diameter_threshold = 10, .connectivity = 2}, s));
  const Array sm = smooth_image({600, 640}, DType::uint8, 255, 62);
  const Array ds = sm.to(Device::cuda(), s);
  EXPECT_ARRAY_EQ(max_tree(sm).parent, max_tree(ds, {}, s).parent);
  EXPECT_ARRAY_EQ(area_opening(sm, {.area_threshold = 500}), area_opening(ds, {.area_threshold = 500}, s));
  EXPECT_ARRAY_EQ(max_tree_local_maxima(sm), max_tree_local_maxima(ds, {}, s));
  const Array flat = Array::full({1024, 1000}, 9, DType::uint8);  // one node: every pixel on one root
  const Array df = flat.to(Device::cuda(), s);
  EXPECT_ARRAY_EQ(max_tree(flat).parent, max_tree(df, {}, s).parent);
  EXPECT_ARRAY_EQ(area_opening(flat, {.area_threshold = 1024000}), area_opening(df, {.area_threshold = 1024000}, s));
  EXPECT_ARRAY_EQ(area_opening(flat, {.area_threshold = 1024001}), area_opening(df, {.area_threshold = 1024001}, s));
  EXPECT_ARRAY_EQ(diameter_opening(flat, {.diameter_threshold = 1025}),
                  diameter_opening(df, {.diameter_threshold = 1025}, s));
  EXPECT_ARRAY_EQ(diameter_opening(flat, {.diameter_threshold = 1024}),
                  diameter_opening(df, {.diameter_threshold = 1024}, s));
  const Array f64 = smooth_image({300, 310}, DType::float64, 1, 63);
  const Array d64 = f64.to(Device::cuda(), s);
  EXPECT_ARRAY_EQ(max_tree(f64, {.connectivity = 2}).parent, max_tree(d64, {.connectivity = 2}, s).parent);
  EXPECT_ARRAY_EQ(area_closing(f64, {.area_threshold = 200}), area_closing(d64, {.area_threshold = 200}, s));
}

TEST(GpuMorphologyMaxTree, StridedView) {
  CUSK_REQUIRE_GPU();
  const Stream s = Stream::create();
  const Array h = cusktest::random_array({120, 150}, DType::uint16, 71, 0, 50);
  const Array d = h.to(Device::cuda(), s);
  const auto view = [](const Array& a) {
    return a.slice({Slice{.start = 3, .step = 2}, Slice{.start = 149, .stop = 0, .step = -3}});
  };
  const MaxTree c = max_tree(view(h), {.connectivity = 2}), g = max_tree(view(d), {.connectivity = 2}, s);
  EXPECT_ARRAY_EQ(c.parent, g.parent);
  EXPECT_ARRAY_EQ(c.traverser, g.traverser);
  EXPECT_ARRAY_EQ(area_opening(view(h), {.area_threshold = 9}), area_opening(view(d), {.area_threshold = 9}, s));
  EXPECT_ARRAY_EQ(diameter_closing(view(h), {.diameter_threshold = 4}),
                  diameter_closing(view(d), {.diameter_threshold = 4}, s));
  EXPECT_ARRAY_EQ(max_tree_local_maxima(view(h)), max_tree_local_maxima(view(d), {}, s));
}

TEST(GpuMorphologyMaxTree, CallersTree) {
  CUSK_REQUIRE_GPU();
  const Stream s = Stream::create();
  const Array img = gold("cam_u8_in");
  const Array d = img.to(Device::cuda(), s);
  const auto dev = [&](const std::string& name) { return gold(name).to(Device::cuda(), s); };
  EXPECT_ARRAY_EQ(gold("cam_u8_c2_ao"), area_opening(d,
                                                     {.area_threshold = 20,
                                                      .parent = dev("cam_u8_c2_parent"),
                                                      .tree_traverser = dev("cam_u8_c2_trav")},
                                                     s));
  EXPECT_ARRAY_EQ(gold("cam_u8_c1_do"), diameter_opening(d,
                                                         {.diameter_threshold = 6,
                                                          .parent = dev("cam_u8_c1_parent"),
                                                          .tree_traverser = dev("cam_u8_c1_trav")},
                                                         s));
  EXPECT_ARRAY_EQ(gold("cam_u8_c2_lm"),
                  max_tree_local_maxima(
                      d, {.parent = dev("cam_u8_c2_parent"), .tree_traverser = dev("cam_u8_c2_trav")}, s));
  // The device's own tree passed back in, and a valid tree of another image (the closing with the
  // image's own tree): both backends compute the same thing from it.
  const MaxTree t = max_tree(d, {.connectivity = 2}, s);
  EXPECT_ARRAY_EQ(gold("cam_u8_c2_ao"),
                  area_opening(d,
                               {.area_threshold = 20, .parent = t.parent.share(), .tree_traverser = t.traverser.share()},
                               s));
  EXPECT_ARRAY_EQ(area_closing(img, {.area_threshold = 20,
                                     .parent = gold("cam_u8_c1_parent"),
                                     .tree_traverser = gold("cam_u8_c1_trav")}),
                  area_closing(d,
                               {.area_threshold = 20,
                                .parent = dev("cam_u8_c1_parent"),
                                .tree_traverser = dev("cam_u8_c1_trav")},
                               s));
  EXPECT_ARRAY_EQ(
      max_tree_local_maxima(img, {.parent = gold("cam_u8_c1_parent"), .tree_traverser = gold("cam_u8_c1_trav")}),
      max_tree_local_maxima(d, {.parent = dev("cam_u8_c1_parent"), .tree_traverser = dev("cam_u8_c1_trav")}, s));
  // A strided caller's traverser (a column of a wider array).
  Array wide = Array::zeros({img.size(), 2}, DType::int64, Device::cuda(), s);
  Array col = wide.index(1, 0);
  col.copy_from(dev("cam_u8_c2_trav"), s);
  EXPECT_ARRAY_EQ(gold("cam_u8_c2_ao"),
                  area_opening(d,
                               {.area_threshold = 20, .parent = dev("cam_u8_c2_parent"), .tree_traverser = col.share()},
                               s));
  // Invalid trees are refused on the device too.
  Array dup = gold("cam_u8_c1_trav").copy();
  dup.data<std::int64_t>()[5] = dup.data<std::int64_t>()[6];
  EXPECT_THROW(area_opening(d, {.parent = dev("cam_u8_c1_parent"), .tree_traverser = dup.to(Device::cuda(), s)}, s),
               InvalidArgument);
  Array swapped = gold("cam_u8_c1_trav").copy();
  std::swap(swapped.data<std::int64_t>()[0], swapped.data<std::int64_t>()[swapped.size() - 1]);
  EXPECT_THROW(
      max_tree_local_maxima(d, {.parent = dev("cam_u8_c1_parent"), .tree_traverser = swapped.to(Device::cuda(), s)}, s),
      InvalidArgument);
  Array out_of_range = gold("cam_u8_c1_parent").copy();
  out_of_range.data<std::int64_t>()[10] = -1;
  EXPECT_THROW(
      diameter_closing(d, {.parent = out_of_range.to(Device::cuda(), s), .tree_traverser = dev("cam_u8_c1_trav")}, s),
      InvalidArgument);
  EXPECT_THROW(area_opening(d, {.parent = gold("cam_u8_c1_parent"), .tree_traverser = gold("cam_u8_c1_trav")}, s),
               InvalidArgument);  // host arrays for a device image
}

TEST(GpuMorphologyMaxTree, EmptyAndBadInput) {
  CUSK_REQUIRE_GPU();
  const Stream s = Stream::create();
  const Array e = Array::zeros({0, 3}, DType::float32, Device::cuda(), s);
  const MaxTree t = max_tree(e, {}, s);
  EXPECT_EQ(t.parent.size(), 0);
  EXPECT_EQ(t.traverser.size(), 0);
  EXPECT_EQ(area_closing(e, {}, s).size(), 0);
  EXPECT_EQ(max_tree_local_maxima(e, {}, s).size(), 0);
  const Array d = gold("cam_u8_in").to(Device::cuda(), s);
  EXPECT_THROW(max_tree(d, {.connectivity = 3}, s), InvalidArgument);
  EXPECT_THROW(area_opening(d, {.area_threshold = -1}, s), InvalidArgument);
  EXPECT_THROW(max_tree(Array::zeros({3, 3}, DType::bool_, Device::cuda(), s), {}, s), InvalidArgument);
  // More neighbours than the kernels take: 5-D full connectivity (242).
  EXPECT_THROW(max_tree(Array::zeros({2, 2, 2, 2, 2}, DType::uint8, Device::cuda(), s), {.connectivity = 5}, s),
               NotSupported);
}

TEST(GpuMorphologyMaxTree, NoLegacyStream) {
  CUSK_REQUIRE_GPU();
  const Array d = cusktest::random_array({256, 300}, DType::uint8, 5).to(Device::cuda());
  Stream().synchronize();
  EXPECT_TRUE(cusktest::runs_without_legacy_stream([&](const Stream& s) {
    MaxTree t = max_tree(d, {.connectivity = 2}, s);
    Array a = area_opening(d, {.area_threshold = 30}, s);
    Array b = diameter_closing(d, {}, s);
    Array c = max_tree_local_maxima(d, {}, s);
    Array e = area_opening(d, {.parent = t.parent.share(), .tree_traverser = t.traverser.share()}, s);
    s.synchronize();
  }));
}

TEST(GpuMorphologyMaxTree, Cli) {
  CUSK_REQUIRE_GPU();
  const std::string in = cusktest::golden_path("morphology_maxtree/cam_u8_in.npy");
  const std::string out = cusktest::temp_path("maxtree_gpu_cli_out.npy"),
                    out2 = cusktest::temp_path("maxtree_gpu_cli_out2.npy");
  auto run = [](const std::vector<std::string>& args) {
    const auto r = cuskclitest::run_cli(args);
    if (r.rc != 0) ADD_FAILURE() << cuskclitest::describe(r);
    return r.rc;
  };
  ASSERT_EQ(run({"morphology.area_closing", in, out, "--area_threshold", "20", "--connectivity", "2", "--device", "cuda"}), 0);
  EXPECT_ARRAY_EQ(gold("cam_u8_c2_ac"), io::imread(out));
  ASSERT_EQ(run({"morphology.diameter_opening", in, out, "--diameter_threshold", "6", "--device", "cuda"}), 0);
  EXPECT_ARRAY_EQ(gold("cam_u8_c1_do"), io::imread(out));
  ASSERT_EQ(run({"morphology.max_tree_local_maxima", in, out, "--device", "cuda"}), 0);
  EXPECT_ARRAY_EQ(gold("cam_u8_c1_lm"), io::imread(out));
  ASSERT_EQ(run({"morphology.max_tree", in, out, out2, "--connectivity", "2", "--device", "cuda"}), 0);
  EXPECT_ARRAY_EQ(gold("cam_u8_c2_parent"), io::imread(out));
  EXPECT_ARRAY_EQ(gold("cam_u8_c2_trav"), io::imread(out2));
}

}  // namespace
