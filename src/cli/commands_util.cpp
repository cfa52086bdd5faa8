// util.* commands: skimage.util on the command line.
//   cuskimage util.img_as_ubyte a.tif b.npy
//   cuskimage util.crop a.png b.png --crop_width 1,2:3,4
//   cuskimage util.dtype_limits --dtype uint8          -> [0, 255]
//   cuskimage util.montage a.png b.png c.png d.png grid.png --padding_width 2
#include <cmath>
#include <limits>
#include <map>
#include <array>
#include <set>

#include "cuskimage/util.hpp"
#include "src/cli/registry.hpp"

namespace cuskimage::cli {

template <>
struct Codec<util::NoiseMode> : NamedByLibrary<util::NoiseMode, util::noise_mode_from_name, util::noise_mode_name> {
  static std::vector<std::string> choices() {
    return {"gaussian", "localvar", "poisson", "salt", "pepper", "s&p", "speckle"};
  }
};
template <>
struct Codec<util::CompareMethod>
    : NamedByLibrary<util::CompareMethod, util::compare_method_from_name, util::compare_method_name> {
  static std::vector<std::string> choices() { return {"diff", "blend", "checkerboard"}; }
};

namespace {

using nlohmann::json;

[[noreturn]] void invalid(const Invocation& inv, const std::string& arg, const std::string& what) {
  throw InvalidArgument(inv.name() + ": argument '" + arg + "' " + what);
}

Shape to_shape(const std::vector<std::int64_t>& v) { return Shape(v.begin(), v.end()); }

/// scikit-image's crop_width forms: n; (before, after); ((before, after), ...) per axis; a group of
/// one value per axis means n on both sides of that axis.
util::CropWidth crop_width(const Invocation& inv) {
  const auto groups = inv.int_pairs("crop_width");
  for (const auto& g : groups)
    if (g.empty() || g.size() > 2)
      invalid(inv, "crop_width", "must be n, (before, after) or one (before, after) pair per axis, got a group of " +
                                     std::to_string(g.size()) + " values");
  if (groups.size() == 1) {
    const auto& g = groups[0];
    return g.size() == 1 ? util::CropWidth(g[0]) : util::CropWidth(g[0], g[1]);
  }
  std::vector<std::pair<std::int64_t, std::int64_t>> pairs;
  for (const auto& g : groups) pairs.emplace_back(g[0], g.size() == 1 ? g[0] : g[1]);
  return util::CropWidth(std::move(pairs));
}

/// The montage stack: one path holding (K, M, N[, C]), or several images of one shape stacked.
Array montage_stack(Invocation& inv) {
  if (inv.num_inputs() == 1) return inv.input(0).share();
  const Array& first = inv.input(0);
  Shape shape = first.shape();
  shape.insert(shape.begin(), static_cast<std::int64_t>(inv.num_inputs()));
  Array stack = Array::empty(shape, first.dtype(), inv.device(), inv.stream());
  for (std::size_t k = 0; k < inv.num_inputs(); ++k) {
    const Array& img = inv.input(k);
    if (img.shape() != first.shape() || img.dtype() != first.dtype())
      invalid(inv, "arr_in", "images must share shape and dtype to be stacked: '" + inv.input_path(0) + "' is " +
                                 first.str() + ", '" + inv.input_path(k) + "' is " + img.str());
    Array slot = stack.index(0, static_cast<std::int64_t>(k));
    slot.copy_from(img, inv.stream());
  }
  return stack;
}

json limits_json(DType dt, bool clip_negative, const util::DtypeLimits& lim) {
  if (dt == DType::bool_) return json::array({false, true});
  // Exact integers where a double cannot hold the limit.
  if (dt == DType::int64)
    return json::array({clip_negative ? std::int64_t{0} : std::numeric_limits<std::int64_t>::min(),
                        std::numeric_limits<std::int64_t>::max()});
  if (dt == DType::uint64) return json::array({std::uint64_t{0}, std::numeric_limits<std::uint64_t>::max()});
  // scikit-image's limits are Python ints (floats: -1 and 1).
  return json::array({static_cast<std::int64_t>(lim.imin), static_cast<std::int64_t>(lim.imax)});
}

Command img_as(const std::string& fn, const std::string& what,
               Array (*op)(const Array&, const util::ImgAsOptions&, const Stream&)) {
  return Command("util." + fn, "Convert an image to " + what + ", with scikit-image's dtype semantics.")
      .input("image", "input image")
      .options<util::ImgAsOptions>()
      .returns_image()
      .handler([op](Invocation& inv) -> Result { return op(inv.input(0), inv.options<util::ImgAsOptions>(), inv.stream()); });
}

}  // namespace

CUSK_CLI_COMMANDS(util) {
  // ---- dtype conversion ---------------------------------------------------------------------------
  reg.add(img_as("img_as_float", "floating point (float64 for integer input; float32 stays float32)",
                 &util::img_as_float));
  reg.add(img_as("img_as_float32", "single-precision floating point (float32)", &util::img_as_float32));
  reg.add(img_as("img_as_float64", "double-precision floating point (float64)", &util::img_as_float64));
  reg.add(img_as("img_as_ubyte", "8-bit unsigned integer (uint8)", &util::img_as_ubyte));
  reg.add(img_as("img_as_uint", "16-bit unsigned integer (uint16)", &util::img_as_uint));
  reg.add(img_as("img_as_int", "16-bit signed integer (int16)", &util::img_as_int));
  reg.add(img_as("img_as_bool", "boolean (the upper half of the positive range is True)", &util::img_as_bool));

  reg.add(Command("util.convert",
                  "Convert an image to any dtype with img_as_* semantics (scikit-image's internal _convert).")
              .input("image", "input image")
              .param(Param::dtype("dtype", required, "target dtype"))
              .options<util::ConvertOptions>()
              .returns_image()
              .handler([](Invocation& inv) -> Result {
                return util::convert(inv.input(0), inv.dtype("dtype"), inv.options<util::ConvertOptions>(), inv.stream());
              }));

  reg.add(Command("util.dtype_limits",
                  "Return the intensity limits (min, max) of the image's dtype, or of --dtype when no image is given.")
              .optional_input("image", "image whose dtype is used")
              .param(Param::dtype("dtype", "none", "dtype to use instead of an image's (cuskimage extension)"))
              .param(Param::boolean("clip_negative", "false", "use 0 as the minimum even for signed dtypes"))
              .returns_value("[imin, imax]")
              .handler([](Invocation& inv) -> Result {
                const bool has_image = inv.num_inputs() == 1;
                if (has_image == inv.has("dtype"))
                  throw UsageError(inv.name() + (has_image ? ": give an IMAGE or --dtype, not both"
                                                           : ": give an IMAGE or --dtype"));
                const DType dt = has_image ? inv.input(0).dtype() : inv.dtype("dtype");
                const bool clip = inv.flag("clip_negative");
                return limits_json(dt, clip, util::dtype_limits(dt, clip));
              }));

  // ---- invert, crop -------------------------------------------------------------------------------
  reg.add(Command("util.invert",
                  "Invert an image: logical not for bool, max - x for unsigned, -1 - x for signed integers, "
                  "1 - x for floats.")
              .input("image", "input image")
              .options<util::InvertOptions>()
              .returns_image()
              .handler([](Invocation& inv) -> Result {
                return util::invert(inv.input(0), inv.options<util::InvertOptions>(), inv.stream());
              }));

  reg.add(Command("util.crop", "Crop array ar by crop_width along each dimension.")
              .input("ar", "input array")
              .param(Param::pairs("crop_width", required,
                                  "widths removed: n (every side), before,after (every axis) or "
                                  "b0,a0:b1,a1:... (one pair per axis)"))
              .options<util::CropOptions>()
              .choices("order", {"K", "C", "F", "A"})
              .returns_image()
              .handler([](Invocation& inv) -> Result {
                return util::crop(inv.input(0), crop_width(inv), inv.options<util::CropOptions>(), inv.stream());
              }));

  // ---- montage ------------------------------------------------------------------------------------
  reg.add(Command("util.montage",
                  "Create a montage of several single- or multichannel images. ARR_IN is one file holding the "
                  "stack (K, M, N[, C]) or several images of one shape, stacked in order.")
              .inputs("arr_in", "the stack, or the images to stack")
              .options<util::MontageOptions>()
              .unset_as("fill", "mean")
              .returns_image()
              .handler([](Invocation& inv) -> Result {
                return util::montage(montage_stack(inv), inv.options<util::MontageOptions>(), inv.stream());
              }));

  // ---- random_noise -------------------------------------------------------------------------------
  reg.add(Command("util.random_noise",
                  "Add random noise of various types to a floating-point image (integer images go through "
                  "img_as_float first). The result is float64 (float32 for float32 input): save it as .tif or .npy.")
              .input("image", "input image")
              .options<util::RandomNoiseOptions>()
              .returns_image()
              .handler([](Invocation& inv) -> Result {
                const auto opt = inv.options<util::RandomNoiseOptions>();
                const std::string& mode = inv.string("mode");
                // scikit-image rejects keywords a mode does not use.
                const std::map<std::string, std::set<std::string>> allowed = {
                    {"gaussian", {"mean", "var"}}, {"localvar", {"local_vars"}}, {"poisson", {}},
                    {"salt", {"amount"}},          {"pepper", {"amount"}},       {"s&p", {"amount", "salt_vs_pepper"}},
                    {"speckle", {"mean", "var"}}};
                for (const char* kw : {"mean", "var", "local_vars", "amount", "salt_vs_pepper"}) {
                  const auto& ok = allowed.at(mode);
                  if (inv.given(kw) && !ok.count(kw)) {
                    std::string list;
                    for (const auto& k : ok) list += (list.empty() ? "" : ", ") + k;
                    invalid(inv, kw, "is not used by mode '" + mode + "' (it takes " +
                                         (list.empty() ? std::string("no keywords") : list) + ")");
                  }
                }
                return util::random_noise(inv.input(0), opt, inv.stream());
              }));

  // ---- views --------------------------------------------------------------------------------------
  reg.add(Command("util.view_as_blocks",
                  "Block view of the input n-dimensional array: shape (shape / block_shape..., block_shape...).")
              .input("arr_in", "input array")
              .param(Param::ints("block_shape", required, "block extent per axis"))
              .returns_image()
              .handler([](Invocation& inv) -> Result {
                return util::view_as_blocks(inv.input(0), to_shape(inv.ints("block_shape")));
              }));

  reg.add(Command("util.view_as_windows",
                  "Rolling window view of the input n-dimensional array: shape ((shape - window) / step + 1..., "
                  "window...). The file holds every window: mind its size.")
              .input("arr_in", "input array")
              .param(Param::ints("window_shape", required, "window extent per axis (one value: every axis)"))
              .options<util::ViewAsWindowsOptions>()
              .returns_image()
              .handler([](Invocation& inv) -> Result {
                return util::view_as_windows(inv.input(0), to_shape(inv.ints("window_shape")),
                                             inv.options<util::ViewAsWindowsOptions>());
              }));

  // ---- map_array, compare_images ------------------------------------------------------------------
  reg.add(Command("util.map_array",
                  "Map values from input array from input_vals to output_vals (values not in input_vals become 0).")
              .input("input_arr", "integer array of values to map")
              .param(Param::array("input_vals", required, "1-D values to map from (a file, or inline: 1,2,3)"))
              .param(Param::array("output_vals", required, "1-D values to map to, same length (file or inline)"))
              .returns_image()
              .handler([](Invocation& inv) -> Result {
                const Array& in = inv.input(0);
                return util::map_array(in, inv.array("input_vals"), inv.array("output_vals"), inv.stream());
              }));

  reg.add(Command("util.compare_images", "Return an image showing the differences between two images.")
              .input("image0", "first image")
              .input("image1", "second image, same shape")
              .options<util::CompareImagesOptions>()
              .returns_image()
              .handler([](Invocation& inv) -> Result {
                return util::compare_images(inv.input(0), inv.input(1), inv.options<util::CompareImagesOptions>(),
                                            inv.stream());
              }));

}

// ---- scikit-image extras ----------------------------------------------------------------------------
CUSK_CLI_COMMANDS(util_extras) {
  reg.add(Command("util.slice_along_axes", "Slice an image along given axes: image[a:b] on each.")
              .input("image", "input image")
              .param(Param::pairs("slices", required, "one start,stop pair per axis: a0,b0:a1,b1 (negative from the end)"))
              .param(Param::ints("axes", "none", "axes the slices apply to (default: the leading axes)"))
              .param(Param::boolean("copy", "false", "return a copy instead of a view (the file is the same)"))
              .returns_image()
              .handler([](Invocation& inv) -> Result {
                std::vector<std::pair<std::int64_t, std::int64_t>> slices;
                for (const auto& g : inv.int_pairs("slices")) {
                  if (g.size() != 2) invalid(inv, "slices", "must be start,stop pairs separated by ':'");
                  slices.emplace_back(g[0], g[1]);
                }
                std::vector<int> axes;
                if (inv.has("axes"))
                  for (auto a : inv.ints("axes")) axes.push_back(static_cast<int>(a));
                return util::slice_along_axes(inv.input(0), slices, axes, inv.flag("copy"), inv.stream());
              }));

  reg.add(Command("util.regular_grid",
                  "Find n_points regularly spaced along ar_shape; prints one [start, stop, step] per axis "
                  "(null where Python's slice has None).")
              .param(Param::ints("ar_shape", required, "shape of the space to embed the grid in"))
              .param(Param::integer("n_points", required, "number of points (about) to fit"))
              .returns_value("[[start, stop, step], ...]")
              .handler([](Invocation& inv) -> Result {
                json out = json::array();
                for (const Slice& s : util::regular_grid(to_shape(inv.ints("ar_shape")), inv.integer("n_points"))) {
                  out.push_back(json::array({s.start ? json(*s.start) : json(nullptr),
                                             s.stop ? json(*s.stop) : json(nullptr), json(s.step)}));
                }
                return out;
              }));

  reg.add(Command("util.regular_seeds",
                  "Return an image with ~n_points regularly-spaced nonzero pixels, labelled 1..n.")
              .param(Param::ints("ar_shape", required, "shape of the image"))
              .param(Param::integer("n_points", required, "number of points (about)"))
              .param(Param::dtype("dtype", "int64", "dtype of the image"))
              .returns_image()
              .handler([](Invocation& inv) -> Result {
                return util::regular_seeds(to_shape(inv.ints("ar_shape")), inv.integer("n_points"),
                                           inv.dtype("dtype"), inv.device(), inv.stream());
              }));

  reg.add(Command("util.label_points",
                  "Assign unique integer labels to coordinates on an image mask (uint64; 0 is background).")
              .input("coords", "(N, ndim) array of point coordinates, e.g. a .npy file")
              .param(Param::ints("output_shape", required, "shape of the image"))
              .returns_image()
              .handler([](Invocation& inv) -> Result {
                return util::label_points(inv.input(0), to_shape(inv.ints("output_shape")), inv.stream());
              }));

  reg.add(Command("util.unique_rows", "Remove repeated rows from a 2-D array (rows in sorted order).")
              .input("ar", "2-D array")
              .returns_image()
              .handler([](Invocation& inv) -> Result { return util::unique_rows(inv.input(0), inv.stream()); }));
}

}  // namespace cuskimage::cli
