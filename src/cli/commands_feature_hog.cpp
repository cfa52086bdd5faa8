// feature.match_template, feature.hog, feature.daisy and the Haar-like feature commands on the
// command line (images and arrays written as .npy or images).
//   cuskimage feature.match_template image.npy template.npy response.npy --pad_input true --mode reflect
//   cuskimage feature.hog image.png features.npy hog.npy --pixels_per_cell 16,16 --block_norm L1
#include <string>
#include <vector>

#include "cuskimage/feature.hpp"
#include "src/cli/registry.hpp"

namespace cuskimage::cli {

/// feature_type: comma-separated names ("type-2-x,type-4"), empty for all.
template <>
struct Codec<std::vector<feature::HaarFeatureType>> {
  static constexpr Kind kind = Kind::string;
  static std::string format(const std::vector<feature::HaarFeatureType>& v) {
    std::string s;
    for (auto t : v) s += (s.empty() ? "" : ",") + std::string(meta::enum_name(t));
    return s.empty() ? "none" : s;
  }
  static std::vector<feature::HaarFeatureType> read(Invocation& inv, const std::string& name) {
    std::vector<feature::HaarFeatureType> out;
    if (!inv.has(name)) return out;
    const std::string s = inv.string(name);
    if (s == "none") return out;
    for (std::size_t pos = 0; pos <= s.size();) {
      const std::size_t end = std::min(s.find(',', pos), s.size());
      const auto t = meta::enum_from_name<feature::HaarFeatureType>(s.substr(pos, end - pos));
      if (!t) throw UsageError(inv.name() + ": unknown feature type '" + s.substr(pos, end - pos) + "'");
      out.push_back(*t);
      pos = end + 1;
    }
    return out;
  }
};

namespace {

Result two_images(Array a, Array b) {
  Result res;
  res.images.push_back(std::move(a));
  res.images.push_back(std::move(b));
  return res;
}

Command& window_params(Command& c) {
  return c.param(Param::integer("r", required, "row of the window's top-left corner"))
      .param(Param::integer("c", required, "column of the window's top-left corner"))
      .param(Param::integer("width", required, "window width"))
      .param(Param::integer("height", required, "window height"));
}

}  // namespace

CUSK_CLI_COMMANDS(feature_hog) {
  reg.add(Command("feature.match_template",
                  "Normalised cross-correlation of a template with every window of a 2-D or 3-D image.")
              .input("image", "2-D or 3-D image")
              .input("template", "template (.npy), the image's ndim, no larger than the image")
              .options<feature::MatchTemplateOptions>()
              .returns_image()
              .handler([](Invocation& inv) -> Result {
                return feature::match_template(inv.input(0), inv.input(1),
                                               inv.options<feature::MatchTemplateOptions>(), inv.stream());
              }));
  reg.add(Command("feature.hog",
                  "Histogram of oriented gradients: the feature vector and the HOG image (always drawn here).")
              .input("image", "2-D image (with --channel_axis for colour)")
              .options<feature::HogOptions>()
              .returns_image({"features", "hog_image"})
              .handler([](Invocation& inv) -> Result {
                auto o = inv.options<feature::HogOptions>();
                o.visualize = true;
                feature::HogResult r = feature::hog(inv.input(0), o, inv.stream());
                return two_images(std::move(r.features), std::move(r.hog_image));
              }));
  reg.add(Command("feature.daisy", "Dense DAISY descriptors (P, Q, D) and their drawing (always drawn here).")
              .input("image", "2-D image")
              .options<feature::DaisyOptions>()
              .returns_image({"descs", "descs_img"})
              .handler([](Invocation& inv) -> Result {
                auto o = inv.options<feature::DaisyOptions>();
                o.visualize = true;
                feature::DaisyResult r = feature::daisy(inv.input(0), o, inv.stream());
                return two_images(std::move(r.descs), std::move(r.descs_img));
              }));
  reg.add(Command("feature.haar_like_feature_coord",
                  "Every Haar-like feature of a window: one row per rectangle (feature index, type, corners).")
              .param(Param::integer("width", required, "window width"))
              .param(Param::integer("height", required, "window height"))
              .options<feature::HaarLikeFeatureOptions>()
              .returns_table("feature, type, rect, r0, c0, r1, c1")
              .handler([](Invocation& inv) -> Result {
                const auto fc = feature::haar_like_feature_coord(
                    inv.integer("width"), inv.integer("height"),
                    inv.options<feature::HaarLikeFeatureOptions>().feature_type);
                Table t;
                t.columns = {"feature", "type", "rect", "r0", "c0", "r1", "c1"};
                for (std::size_t i = 0; i < fc.coords.size(); ++i)
                  for (std::size_t k = 0; k < fc.coords[i].size(); ++k) {
                    const auto& q = fc.coords[i][k];
                    t.rows.push_back({i, std::string(meta::enum_name(fc.types[i])), k, q.top_left[0], q.top_left[1],
                                      q.bottom_right[0], q.bottom_right[1]});
                  }
                return t;
              }));
  Command feat("feature.haar_like_feature", "Haar-like features of a window of an integral image.");
  feat.input("int_image", "2-D integral image (transform.integral_image)");
  window_params(feat)
      .options<feature::HaarLikeFeatureOptions>()
      .returns_image({"features"})
      .handler([](Invocation& inv) -> Result {
        return feature::haar_like_feature(inv.input(0), inv.integer("r"), inv.integer("c"), inv.integer("width"),
                                          inv.integer("height"), inv.options<feature::HaarLikeFeatureOptions>(),
                                          inv.stream());
      });
  reg.add(std::move(feat));
  Command draw("feature.draw_haar_like_feature",
               "The image (made RGB, float) with the window's Haar-like features (of --feature_type) drawn.");
  draw.input("image", "2-D or RGB image");
  window_params(draw)
      .param(Param::string("feature_type", "none", "feature types drawn (comma-separated; none: all)"))
      .options<feature::DrawHaarLikeFeatureOptions>()
      .returns_image()
      .handler([](Invocation& inv) -> Result {
        const auto fc = feature::haar_like_feature_coord(
            inv.integer("width"), inv.integer("height"),
            Codec<std::vector<feature::HaarFeatureType>>::read(inv, "feature_type"));
        return feature::draw_haar_like_feature(inv.input(0), inv.integer("r"), inv.integer("c"), inv.integer("width"),
                                               inv.integer("height"), fc,
                                               inv.options<feature::DrawHaarLikeFeatureOptions>(), inv.stream());
      });
  reg.add(std::move(draw));
}

}  // namespace cuskimage::cli
