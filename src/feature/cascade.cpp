// Cascade: an OpenCV-format LBP cascade (parsed with pugixml, reading the elements scikit-image's
// _load_xml reads) and scikit-image's multi-scale sliding-window sweep with its float32 arithmetic
// and detection grouping. The integral image is made on the host (NumPy's cumsum order, so its
// float32 values are scikit-image's); the window sweep runs on the image's device (one thread per
// window on CUDA, the same per-window code); the grouping is sequential on the host.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "cuskimage/color.hpp"
#include "cuskimage/error.hpp"
#include "cuskimage/feature/cascade.hpp"
#include "cuskimage/transform/integral.hpp"
#include "src/feature/cascade_eval.hpp"

#if CUSK_HAVE_PUGIXML
#include <pugixml.hpp>
#endif

namespace cuskimage::feature {
namespace detail {

struct CascadeData {
  float eps = 0;
  std::int64_t window_width = 0, window_height = 0;
  std::vector<Mblbp> features;
  std::vector<Stump> stumps;
  std::vector<Stage> stages;
  std::vector<std::uint32_t> luts;  // 8 words (256 bits) per stump
};

}  // namespace detail

namespace {

using detail::CascadeData;

#if CUSK_HAVE_PUGIXML

[[noreturn]] void bad_xml(const std::string& file, const std::string& what) {
  throw FormatError("Cascade: '" + file + "' is not an OpenCV LBP cascade: " + what);
}

/// The first descendant element named `name` (depth-first, as ElementTree's './/name').
pugi::xml_node descendant(const pugi::xml_node& from, const char* name, const std::string& file) {
  pugi::xml_node n = from.find_node([name](const pugi::xml_node& x) {
    return x.type() == pugi::node_element && std::string(x.name()) == name;
  });
  if (!n) bad_xml(file, std::string("no <") + name + "> element");
  return n;
}

pugi::xml_node child(const pugi::xml_node& from, const char* name, const std::string& file) {
  pugi::xml_node n = from.child(name);
  if (!n) bad_xml(file, std::string("no <") + name + "> in <" + from.name() + ">");
  return n;
}

std::vector<pugi::xml_node> elements(const pugi::xml_node& n) {
  std::vector<pugi::xml_node> out;
  for (const auto& c : n.children())
    if (c.type() == pugi::node_element) out.push_back(c);
  return out;
}

template <class T>
std::vector<T> numbers(const pugi::xml_node& n, const std::string& file) {
  std::istringstream in(n.child_value());
  std::vector<T> out;
  T v;
  while (in >> v) out.push_back(v);
  if (!in.eof()) bad_xml(file, std::string("unreadable numbers in <") + n.name() + ">");
  return out;
}

std::int64_t integer(const pugi::xml_node& n, const std::string& file) {
  const auto v = numbers<std::int64_t>(n, file);
  if (v.size() != 1) bad_xml(file, std::string("<") + n.name() + "> must hold one integer");
  return v[0];
}

void load_stages(const pugi::xml_node& root, std::int64_t stages_number, const std::string& file, CascadeData& d) {
  const auto stages = elements(descendant(root, "stages", file));
  if (static_cast<std::int64_t>(stages.size()) < stages_number) bad_xml(file, "fewer stages than stageNum");
  for (std::int64_t s = 0; s < stages_number; ++s) {
    const auto& st = stages[s];
    const auto threshold = numbers<double>(child(st, "stageThreshold", file), file);
    const std::int64_t amount = integer(child(st, "maxWeakCount", file), file);
    if (threshold.size() != 1 || amount < 0) bad_xml(file, "bad stage header");
    d.stages.push_back({static_cast<std::int64_t>(d.stumps.size()), amount, static_cast<float>(threshold[0])});
    const auto weak = elements(child(st, "weakClassifiers", file));
    if (static_cast<std::int64_t>(weak.size()) < amount) bad_xml(file, "fewer weak classifiers than maxWeakCount");
    for (std::int64_t w = 0; w < amount; ++w) {
      const auto leaves = numbers<double>(child(weak[w], "leafValues", file), file);
      const auto nodes = numbers<std::int64_t>(child(weak[w], "internalNodes", file), file);
      if (leaves.size() < 2 || nodes.size() < 11)
        bad_xml(file, "a weak classifier is not an LBP stump (2 leaves, a feature and an 8-word LUT)");
      const std::int64_t feature = nodes[2];
      if (feature < 0 || feature >= static_cast<std::int64_t>(d.features.size()))
        bad_xml(file, "a stump names a feature that does not exist");
      d.stumps.push_back({feature, static_cast<std::int64_t>(d.luts.size()), static_cast<float>(leaves[0]),
                          static_cast<float>(leaves[1])});
      for (int i = 0; i < 8; ++i) d.luts.push_back(static_cast<std::uint32_t>(nodes[3 + i]));  // wraps as astype
    }
  }
}

std::shared_ptr<const CascadeData> load(const std::string& file, double eps) {
  if (!std::ifstream(file).good()) throw InvalidArgument("Cascade: cannot read the cascade file '" + file + "'");
  pugi::xml_document doc;
  const pugi::xml_parse_result res = doc.load_file(file.c_str());
  if (!res) bad_xml(file, res.description());
  const pugi::xml_node root = doc.document_element();
  if (const pugi::xml_node ft = root.find_node([](const pugi::xml_node& x) {
        return std::string(x.name()) == "featureType";
      });
      ft && std::string(ft.child_value()) != "LBP")
    throw NotSupported("Cascade: only LBP cascades are supported (as scikit-image), '" + file + "' has featureType " +
                       ft.child_value());
  auto d = std::make_shared<CascadeData>();
  d->eps = static_cast<float>(eps);
  const std::int64_t stages_number = integer(descendant(root, "stageNum", file), file);
  d->window_height = integer(descendant(root, "height", file), file);
  d->window_width = integer(descendant(root, "width", file), file);
  if (stages_number < 0 || d->window_height < 1 || d->window_width < 1) bad_xml(file, "bad stageNum or window size");
  for (const auto& f : elements(descendant(root, "features", file))) {
    const auto rect = elements(f);
    const auto p = rect.empty() ? std::vector<std::int64_t>{} : numbers<std::int64_t>(rect[0], file);
    if (p.size() != 4) bad_xml(file, "a feature is not a rectangle 'x y width height'");
    d->features.push_back({p[1], p[0], p[2], p[3]});
  }
  load_stages(root, stages_number, file, *d);
  return d;
}

#else

std::shared_ptr<const CascadeData> load(const std::string&, double) {
  throw NotSupported("Cascade: this build has no pugixml (libpugixml-dev) to read XML cascades");
}

#endif

// ---- detection ----------------------------------------------------------------------------------

/// scikit-image's _get_valid_scale_factors: scale_factor^p (float32) for p in arange(mn, mx).
std::vector<float> scale_factors(const CascadeData& d, const DetectMultiScaleOptions& o) {
  const double step = static_cast<double>(static_cast<float>(o.scale_factor));
  const double lstep = std::log(step);
  auto power = [&](std::int64_t size, std::int64_t window) {
    return std::log(static_cast<double>(static_cast<float>(size)) / static_cast<double>(window)) / lstep;
  };
  const double mn = std::max({power(o.min_size[0], d.window_height), power(o.min_size[1], d.window_width), 0.0});
  const double mx = std::min(power(o.max_size[0], d.window_height), power(o.max_size[1], d.window_width));
  // np.arange's values: start + i * ((start + 1) - start), cast to float32 by np.power. The power is
  // taken in double and rounded: NumPy's float32 SIMD power is not correctly rounded on AVX-512
  // CPUs, so scikit-image's own scales differ by an ulp there (see the header).
  std::vector<float> out;
  const double count = std::ceil(mx - mn), delta = (mn + 1.0) - mn;
  for (std::int64_t i = 0; i < static_cast<std::int64_t>(count); ++i) {
    const auto p = static_cast<float>(mn + static_cast<double>(i) * delta);
    out.push_back(static_cast<float>(std::pow(step, static_cast<double>(p))));
  }
  return out;
}

/// Integer mean of a cluster (C's truncating division of non-negative sums).
struct Cluster {
  std::int64_t r = 0, c = 0, width = 0, height = 0, count = 0;
  Detection mean() const { return {r / count, c / count, width / count, height / count}; }
  void add(const Detection& x) {
    r += x.r;
    c += x.c;
    width += x.width;
    height += x.height;
    ++count;
  }
};

/// Intersection area over the smaller area, in float32 as scikit-image.
float intersection_score(const Detection& a, const Detection& b) {
  const double iw = std::max(0.0, static_cast<double>(std::min(a.c + a.width, b.c + b.width) - std::max(a.c, b.c)));
  const double ih = std::max(0.0, static_cast<double>(std::min(a.r + a.height, b.r + b.height) - std::max(a.r, b.r)));
  const auto inter = static_cast<float>(iw * ih);
  const auto area_a = static_cast<float>(a.height * a.width), area_b = static_cast<float>(b.height * b.width);
  return inter / (area_b > area_a ? area_a : area_b);
}

std::vector<Detection> group_detections(const std::vector<Detection>& dets, float threshold, std::int64_t min_count) {
  std::vector<Cluster> clusters;
  for (std::size_t i = 0; i < dets.size(); ++i) {
    float best = threshold;
    std::ptrdiff_t best_k = -1;
    for (std::size_t k = 0; k < clusters.size(); ++k) {
      const float s = intersection_score(dets[i], clusters[k].mean());
      if (s > best) {
        best = s;
        best_k = static_cast<std::ptrdiff_t>(k);
      }
    }
    if (best_k < 0) {
      clusters.emplace_back();
      clusters.back().add(dets[i]);
    } else {
      clusters[best_k].add(dets[i]);
    }
  }
  std::vector<Detection> out;
  for (const auto& cl : clusters)
    if (cl.count >= min_count) out.push_back(cl.mean());
  return out;
}

/// The float32 integral image on the host (NumPy's cumsum order, whatever the image's device).
struct HostIntegral {
  std::vector<float> v;
  std::int64_t rows = 0, cols = 0;
  detail::IntegralView view() const { return {v.data(), rows, cols}; }
};

HostIntegral integral_of(const Array& image, const Stream& stream) {
  if (image.ndim() != 2 && image.ndim() != 3)
    throw InvalidArgument("Cascade.detect_multi_scale: the image must be 2-D (grey) or 3-D (RGB), got " +
                          std::to_string(image.ndim()) + "-D");
  const Array host = image.to(Device::cpu(), stream);
  const Array grey = image.ndim() == 3 ? color::rgb2gray(host) : host.share();
  // integral_image in NumPy's cumsum dtype, then float32 as scikit-image's contiguous copy.
  const Array ii = transform::integral_image(grey);
  return {ii.to_vector<float>(), ii.shape(0), ii.shape(1)};
}

void validate(const DetectMultiScaleOptions& o) {
  const std::string f = "Cascade.detect_multi_scale: ";
  const auto sf = static_cast<float>(o.scale_factor);
  if (!(sf > 0) || sf == 1.0F || !std::isfinite(sf))
    throw InvalidArgument(f + "scale_factor must be positive and not 1 (it is the base of a logarithm)");
  if (!(o.step_ratio > 0) || !std::isfinite(o.step_ratio)) throw InvalidArgument(f + "step_ratio must be positive");
  for (int a = 0; a < 2; ++a)
    if (o.min_size[a] < 1 || o.max_size[a] < 1) throw InvalidArgument(f + "min_size and max_size must be positive");
}

}  // namespace

Cascade::Cascade(const std::string& xml_file, double eps) : data_(load(xml_file, eps)) {}

std::vector<Detection> Cascade::detect_multi_scale(const Array& image, const DetectMultiScaleOptions& options,
                                                   const Stream& stream) const {
  validate(options);
  const CascadeData& d = *data_;
  const HostIntegral ii = integral_of(image, stream);
  const auto step_ratio = static_cast<float>(options.step_ratio);
  // Each scale's grid of windows: rows r < rows - height, columns c < cols - width, by step.
  std::vector<detail::ScaleGrid> grids;
  std::vector<std::array<std::int64_t, 2>> sizes;  // (width, height) per grid
  std::int64_t total = 0;
  for (const float scale : scale_factors(d, options)) {
    // scikit-image's round() adds 0.5 in double to the float32 product.
    const auto step = static_cast<std::int64_t>(static_cast<double>(scale * step_ratio) + 0.5);
    const auto height = static_cast<std::int64_t>(static_cast<float>(d.window_height) * scale);
    const auto width = static_cast<std::int64_t>(static_cast<float>(d.window_width) * scale);
    const std::int64_t max_row = ii.rows - height, max_col = ii.cols - width;
    if (max_row < 0 || max_col < 0) continue;
    if (step < 1)
      throw InvalidArgument("Cascade.detect_multi_scale: step_ratio " + std::to_string(options.step_ratio) +
                            " gives a zero search step (scikit-image would loop forever)");
    const detail::ScaleGrid g{scale, step, (max_row + step - 1) / step, (max_col + step - 1) / step, total};
    grids.push_back(g);
    sizes.push_back({width, height});
    total += g.n_rows * g.n_cols;
  }
  const detail::CascadeView view{d.features.data(), d.stumps.data(), d.stages.data(), d.luts.data(),
                                 static_cast<std::int64_t>(d.stages.size()), d.eps};
  std::vector<std::uint8_t> flags;
  if (image.device().is_cuda()) {
    flags = detail::cascade_sweep_cuda(d.features, d.stumps, d.stages, d.luts, d.eps, ii.v, ii.rows, ii.cols, grids,
                                       image.device(), stream);
  } else {
    flags.resize(total);
    for (const auto& g : grids)
      for (std::int64_t i = 0; i < g.n_rows * g.n_cols; ++i)
        flags[g.offset + i] = detail::classify(view, ii.view(), (i / g.n_cols) * g.step, (i % g.n_cols) * g.step,
                                               g.scale);
  }
  std::vector<Detection> found;  // scan order: scales, rows, columns
  for (std::size_t k = 0; k < grids.size(); ++k)
    for (std::int64_t i = 0; i < grids[k].n_rows * grids[k].n_cols; ++i)
      if (flags[grids[k].offset + i])
        found.push_back({(i / grids[k].n_cols) * grids[k].step, (i % grids[k].n_cols) * grids[k].step, sizes[k][0],
                         sizes[k][1]});
  return group_detections(found, static_cast<float>(options.intersection_score_threshold),
                          options.min_neighbor_number);
}

float Cascade::eps() const { return data_->eps; }
std::int64_t Cascade::stages_number() const { return static_cast<std::int64_t>(data_->stages.size()); }
std::int64_t Cascade::stumps_number() const { return static_cast<std::int64_t>(data_->stumps.size()); }
std::int64_t Cascade::features_number() const { return static_cast<std::int64_t>(data_->features.size()); }
std::int64_t Cascade::window_width() const { return data_->window_width; }
std::int64_t Cascade::window_height() const { return data_->window_height; }

}  // namespace cuskimage::feature
