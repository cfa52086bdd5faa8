// Footprints against scikit-image 0.26 (tests/golden/cases_morphology.py): every case of a golden
// file is rebuilt here from its parameters and compared exactly, sequences element by element
// together with footprint_from_sequence of them.
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "cuskimage/morphology.hpp"
#include "tests/common/test_support.hpp"

#pragma GCC diagnostic ignored "-Wdeprecated-declarations"  // square/rectangle/cube are tested too

namespace {

using namespace cuskimage;
using namespace cuskimage::morphology;
using cusktest::load_golden;
using Params = std::vector<std::int64_t>;

/// Reads the packed uint8 records written by cases_morphology.py.
class Reader {
 public:
  explicit Reader(const std::string& name) : v_(load_golden("morphology/" + name + ".npy").to_vector<std::int64_t>()) {}
  bool done() const { return pos_ >= v_.size(); }
  std::int64_t next() {
    if (pos_ >= v_.size()) throw std::runtime_error("golden record truncated");
    return v_[pos_++];
  }
  Params params() {
    Params p(next());
    for (auto& x : p) x = next();
    return p;
  }
  /// ndim, shape..., values... as an array of `dtype`.
  Array array(DType dtype = DType::uint8) {
    Shape shape(next());
    for (auto& s : shape) s = next();
    std::vector<std::uint8_t> vals(shape_size(shape));
    for (auto& x : vals) x = static_cast<std::uint8_t>(next());
    return Array::from_vector(vals, shape).astype(dtype);
  }

 private:
  std::vector<std::int64_t> v_;
  std::size_t pos_ = 0;
};

std::string str(const Params& p) {
  std::string s = "(";
  for (std::size_t i = 0; i < p.size(); ++i) s += (i ? ", " : "") + std::to_string(p[i]);
  return s + ")";
}

/// Compares every case of golden file `name` with make(params); returns the number of cases.
int check_golden(const std::string& name, const std::function<Footprint(const Params&)>& make) {
  Reader r(name);
  int cases = 0;
  while (!r.done()) {
    const Params p = r.params();
    SCOPED_TRACE(name + str(p));
    const Footprint got = make(p);
    const std::int64_t kind = r.next();
    if (kind == 0) {
      EXPECT_FALSE(got.is_sequence());
      const Array expected = r.array();
      if (!got.is_sequence()) EXPECT_ARRAY_EQ(expected, got.array());
    } else {
      EXPECT_TRUE(got.is_sequence());
      const std::int64_t n = r.next();
      std::vector<FootprintElement> expected;
      for (std::int64_t i = 0; i < n; ++i) {
        const std::int64_t iters = r.next();
        expected.push_back({r.array(), iters});
      }
      if (got.is_sequence()) {
        const auto& seq = got.sequence();
        EXPECT_EQ(seq.size(), expected.size());
        for (std::size_t i = 0; i < std::min(seq.size(), expected.size()); ++i) {
          SCOPED_TRACE("element " + std::to_string(i));
          EXPECT_EQ(seq[i].num_iter, expected[i].num_iter);
          EXPECT_ARRAY_EQ(expected[i].footprint, seq[i].footprint);
        }
      }
      if (r.next() == 1) {
        const Array equivalent = r.array(DType::bool_);
        if (got.is_sequence()) {
          EXPECT_ARRAY_EQ(equivalent, footprint_from_sequence(got));
          EXPECT_EQ(got.shape(), equivalent.shape());
        }
      }
    }
    ++cases;
  }
  return cases;
}

FootprintOptions with(Decomposition d) { return {.decomposition = d}; }

TEST(Footprints, Disk) {
  EXPECT_EQ(check_golden("footprint_disk", [](const Params& p) { return disk(p[0], {.strict_radius = p[1] != 0}); }), 26);
  EXPECT_GT(check_golden("footprint_disk_sequence",
                         [](const Params& p) { return disk(p[0], {.decomposition = Decomposition::sequence}); }),
            20);
  EXPECT_EQ(check_golden("footprint_disk_crosses",
                         [](const Params& p) {
                           return disk(p[0], {.strict_radius = p[1] != 0, .decomposition = Decomposition::crosses});
                         }),
            30);
}

TEST(Footprints, Ball) {
  EXPECT_EQ(check_golden("footprint_ball", [](const Params& p) { return ball(p[0], {.strict_radius = p[1] != 0}); }), 14);
  EXPECT_EQ(check_golden("footprint_ball_sequence",
                         [](const Params& p) { return ball(p[0], {.decomposition = Decomposition::sequence}); }),
            11);
}

TEST(Footprints, DiamondOctahedron) {
  EXPECT_EQ(check_golden("footprint_diamond", [](const Params& p) { return diamond(p[0]); }), 12);
  EXPECT_EQ(check_golden("footprint_diamond_sequence",
                         [](const Params& p) { return diamond(p[0], with(Decomposition::sequence)); }),
            12);
  EXPECT_EQ(check_golden("footprint_octahedron", [](const Params& p) { return octahedron(p[0]); }), 6);
  EXPECT_EQ(check_golden("footprint_octahedron_sequence",
                         [](const Params& p) { return octahedron(p[0], with(Decomposition::sequence)); }),
            5);
}

TEST(Footprints, Octagon) {
  EXPECT_EQ(check_golden("footprint_octagon", [](const Params& p) { return octagon(p[0], p[1]); }), 80);
  EXPECT_EQ(check_golden("footprint_octagon_sequence",
                         [](const Params& p) { return octagon(p[0], p[1], with(Decomposition::sequence)); }),
            80);
}

TEST(Footprints, StarEllipse) {
  EXPECT_EQ(check_golden("footprint_star", [](const Params& p) { return Footprint(star(p[0])); }), 12);
  EXPECT_EQ(check_golden("footprint_ellipse", [](const Params& p) { return ellipse(p[0], p[1]); }), 81);
  EXPECT_EQ(check_golden("footprint_ellipse_crosses",
                         [](const Params& p) { return ellipse(p[0], p[1], with(Decomposition::crosses)); }),
            81);
}

TEST(Footprints, Rectangles) {
  const std::pair<std::string, Decomposition> decs[] = {
      {"", Decomposition::none}, {"_separable", Decomposition::separable}, {"_sequence", Decomposition::sequence}};
  for (const auto& [suffix, dec] : decs) {
    EXPECT_EQ(check_golden("footprint_rectangle" + suffix,
                           [&](const Params& p) { return footprint_rectangle(Shape(p.begin(), p.end()), with(dec)); }),
              17);
    EXPECT_EQ(check_golden("footprint_square" + suffix, [&](const Params& p) { return square(p[0], with(dec)); }), 9);
    EXPECT_EQ(check_golden("footprint_rect2" + suffix, [&](const Params& p) { return rectangle(p[0], p[1], with(dec)); }),
              15);
    EXPECT_EQ(check_golden("footprint_cube" + suffix, [&](const Params& p) { return cube(p[0], with(dec)); }), 6);
  }
}

TEST(Footprints, MirrorAndPad) {
  Reader m("footprint_mirror");
  int cases = 0;
  while (!m.done()) {
    m.params();
    const Array in = m.array(), expected = m.array();
    EXPECT_ARRAY_EQ(expected, mirror_footprint(in));
    // A strided (transposed) input is read through its strides.
    if (in.ndim() == 2) EXPECT_ARRAY_EQ(mirror_footprint(in.transpose({1, 0}).copy()), mirror_footprint(in.transpose({1, 0})));
    ++cases;
  }
  EXPECT_EQ(cases, 7);
  Reader p("footprint_pad");
  cases = 0;
  while (!p.done()) {
    const Params prm = p.params();
    const Array in = p.array(), expected = p.array();
    EXPECT_ARRAY_EQ(expected, pad_footprint(in, {.pad_end = prm[0] != 0}));
    // Any dtype is padded with zeros of that dtype; strided inputs are read through their strides.
    EXPECT_ARRAY_EQ(expected.astype(DType::float32), pad_footprint(in.astype(DType::float32), {.pad_end = prm[0] != 0}));
    if (in.ndim() == 2)
      EXPECT_ARRAY_EQ(pad_footprint(in.transpose({1, 0}).copy(), {.pad_end = prm[0] != 0}),
                      pad_footprint(in.transpose({1, 0}), {.pad_end = prm[0] != 0}));
    ++cases;
  }
  EXPECT_EQ(cases, 14);
}

TEST(Footprints, SequencesMirrorAndPadElementwise) {
  const Footprint seq = footprint_rectangle({4, 3}, with(Decomposition::separable));
  const Footprint padded = pad_footprint(seq, {.pad_end = false});
  ASSERT_TRUE(padded.is_sequence());
  ASSERT_EQ(padded.sequence().size(), 2u);
  EXPECT_EQ(padded.sequence()[0].footprint.shape(), (Shape{5, 1}));
  EXPECT_EQ(padded.sequence()[0].footprint.at<std::uint8_t>({0, 0}), 0);
  const Footprint t = disk(6, {.decomposition = Decomposition::sequence});  // holds T-shaped elements
  const Footprint mt = mirror_footprint(t);
  ASSERT_EQ(mt.sequence().size(), t.sequence().size());
  for (std::size_t i = 0; i < t.sequence().size(); ++i) {
    EXPECT_ARRAY_EQ(mirror_footprint(t.sequence()[i].footprint), mt.sequence()[i].footprint);
    EXPECT_EQ(mt.sequence()[i].num_iter, t.sequence()[i].num_iter);
  }
  // share() aliases the arrays.
  const Footprint s = t.share();
  EXPECT_EQ(s.sequence()[0].footprint.data(), t.sequence()[0].footprint.data());
  EXPECT_EQ(s.shape(), (Shape{13, 13}));
}

TEST(Footprints, DtypeParameter) {
  EXPECT_ARRAY_EQ(load_golden("morphology/footprint_dtype_disk_float32.npy"),
                  disk(3, {.dtype = DType::float32}).array());
  EXPECT_ARRAY_EQ(load_golden("morphology/footprint_dtype_diamond_bool.npy"), diamond(2, {.dtype = DType::bool_}).array());
  EXPECT_ARRAY_EQ(load_golden("morphology/footprint_dtype_ball_int32.npy"), ball(2, {.dtype = DType::int32}).array());
  EXPECT_ARRAY_EQ(load_golden("morphology/footprint_dtype_star_float64.npy"), star(3, DType::float64));
  EXPECT_ARRAY_EQ(load_golden("morphology/footprint_dtype_octagon_uint16.npy"),
                  octagon(2, 3, {.dtype = DType::uint16}).array());
  EXPECT_ARRAY_EQ(load_golden("morphology/footprint_dtype_ellipse_bool.npy"), ellipse(3, 2, {.dtype = DType::bool_}).array());
  EXPECT_ARRAY_EQ(load_golden("morphology/footprint_dtype_rectangle_int64.npy"),
                  footprint_rectangle({2, 3}, {.dtype = DType::int64}).array());
  EXPECT_ARRAY_EQ(load_golden("morphology/footprint_dtype_octahedron_float32.npy"),
                  octahedron(2, {.dtype = DType::float32}).array());
  EXPECT_ARRAY_EQ(load_golden("morphology/footprint_dtype_disk_sequence_bool_0.npy"),
                  disk(4, {.dtype = DType::bool_, .decomposition = Decomposition::sequence}).sequence()[0].footprint);
  EXPECT_ARRAY_EQ(load_golden("morphology/footprint_dtype_disk_crosses_float32_0.npy"),
                  disk(4, {.dtype = DType::float32, .decomposition = Decomposition::crosses}).sequence()[0].footprint);
  EXPECT_ARRAY_EQ(load_golden("morphology/footprint_dtype_equivalent.npy"),
                  footprint_from_sequence(disk(3, {.decomposition = Decomposition::sequence})));
}

TEST(Footprints, DecompositionNames) {
  for (auto d : {Decomposition::none, Decomposition::sequence, Decomposition::separable, Decomposition::crosses})
    EXPECT_EQ(decomposition_from_name(decomposition_name(d)), d);
  EXPECT_EQ(decomposition_from_name("none"), Decomposition::none);
  EXPECT_THROW(decomposition_from_name("seq"), InvalidArgument);
}

/// Expects InvalidArgument whose message names `fn` and `arg`.
void expect_invalid(const std::function<void()>& f, const std::string& fn, const std::string& arg) {
  try {
    f();
    ADD_FAILURE() << "expected InvalidArgument from " << fn;
  } catch (const InvalidArgument& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find(fn + ":"), std::string::npos) << msg;
    EXPECT_NE(msg.find("'" + arg + "'"), std::string::npos) << msg;
  }
}

TEST(Footprints, BadInput) {
  expect_invalid([] { disk(-1); }, "morphology.disk", "radius");
  expect_invalid([] { disk(3, {.decomposition = Decomposition::separable}); }, "morphology.disk", "decomposition");
  expect_invalid([] { disk(251, {.decomposition = Decomposition::sequence}); }, "morphology.disk", "radius");
  EXPECT_NO_THROW(disk(250, {.decomposition = Decomposition::sequence}));
  expect_invalid([] { ball(-2); }, "morphology.ball", "radius");
  expect_invalid([] { ball(101, {.decomposition = Decomposition::sequence}); }, "morphology.ball", "radius");
  expect_invalid([] { ball(2, {.decomposition = Decomposition::crosses}); }, "morphology.ball", "decomposition");
  expect_invalid([] { diamond(-1); }, "morphology.diamond", "radius");
  expect_invalid([] { diamond(2, with(Decomposition::crosses)); }, "morphology.diamond", "decomposition");
  expect_invalid([] { octahedron(-1); }, "morphology.octahedron", "radius");
  expect_invalid([] { octahedron(1, with(Decomposition::separable)); }, "morphology.octahedron", "decomposition");
  expect_invalid([] { octagon(0, 0); }, "morphology.octagon", "m");
  expect_invalid([] { octagon(-1, 2); }, "morphology.octagon", "m");
  expect_invalid([] { octagon(2, -1); }, "morphology.octagon", "n");
  expect_invalid([] { octagon(2, 2, with(Decomposition::crosses)); }, "morphology.octagon", "decomposition");
  expect_invalid([] { star(-1); }, "morphology.star", "a");
  expect_invalid([] { ellipse(-1, 2); }, "morphology.ellipse", "width");
  expect_invalid([] { ellipse(1, -2); }, "morphology.ellipse", "height");
  expect_invalid([] { ellipse(1, 2, with(Decomposition::sequence)); }, "morphology.ellipse", "decomposition");
  expect_invalid([] { footprint_rectangle({}); }, "morphology.footprint_rectangle", "shape");
  expect_invalid([] { footprint_rectangle({3, 0}); }, "morphology.footprint_rectangle", "shape");
  expect_invalid([] { footprint_rectangle({3, 3}, with(Decomposition::crosses)); }, "morphology.footprint_rectangle",
                 "decomposition");
  expect_invalid([] { square(0); }, "morphology.square", "width");
  expect_invalid([] { rectangle(2, -1); }, "morphology.rectangle", "ncols");
  expect_invalid([] { cube(-3); }, "morphology.cube", "width");
  expect_invalid([] { footprint_from_sequence(diamond(2)); }, "morphology.footprint_from_sequence", "footprints");
  expect_invalid([] { footprint_from_sequence(disk(0, {.decomposition = Decomposition::sequence})); },
                 "morphology.footprint_from_sequence", "footprints");
  expect_invalid([] { mirror_footprint(Array()); }, "morphology.mirror_footprint", "footprint");
  expect_invalid([] { pad_footprint(Array()); }, "morphology.pad_footprint", "footprint");
  EXPECT_THROW(diamond(2).sequence(), InvalidArgument);
  EXPECT_THROW(diamond(2, with(Decomposition::sequence)).array(), InvalidArgument);
}

TEST(Footprints, EmptySequenceForRadiusZero) {
  // scikit-image returns () for disk(0, decomposition='sequence') (its table row 0 is all zeros).
  const Footprint f = disk(0, {.decomposition = Decomposition::sequence});
  ASSERT_TRUE(f.is_sequence());
  EXPECT_TRUE(f.sequence().empty());
  EXPECT_EQ(f.ndim(), 0);
}

}  // namespace
