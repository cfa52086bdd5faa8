// Whole-slide commands:
//   cuskimage wsi.slide-info FILE                   properties as JSON (openslide-show-properties)
//   cuskimage wsi.read-region FILE X Y W H OUT [--level N] [--rgba true]
//   cuskimage wsi.convert IN OUT.tif [--compression jpeg] [--quality 80] [--tile_size 256] ...
// (The registry requires MODULE.FUNCTION names; the tool may alias slide-info, read-region, convert.)
// X and Y are level-0 pixels and may be negative (the region then starts outside the slide, as
// OpenSlide allows).
#include <cstdlib>
#include <string>

#include "cuskimage/io.hpp"
#include "cuskimage/wsi.hpp"
#include "src/cli/registry.hpp"

namespace cuskimage::cli {
namespace {

std::int64_t parse_coord(const Invocation& inv, std::size_t i, const char* what) {
  const std::string& s = inv.input_path(i);
  char* end = nullptr;
  const long long v = std::strtoll(s.c_str(), &end, 10);
  if (s.empty() || *end != '\0') throw UsageError(inv.name() + ": " + what + " must be an integer, got '" + s + "'");
  return v;
}

}  // namespace

CUSK_CLI_COMMANDS(wsi) {
  reg.add(Command("wsi.slide-info", "Print a slide's properties (OpenSlide's names) as a JSON object.")
              .input("file", "slide (SVS, tiled pyramidal TIFF, BigTIFF, OME-TIFF)")
              .returns_value("{property: value} of the slide")
              .handler([](Invocation& inv) -> Result {
                const wsi::Slide s = wsi::Slide::open(inv.input_path(0));
                nlohmann::json props = nlohmann::json::object();
                for (const auto& [k, v] : s.properties()) props[k] = v;
                return props;
              }));

  reg.add(Command("wsi.read-region",
                  "Read a region of a slide (location in level-0 pixels, size in pixels of --level) and write it "
                  "to OUT (RGB, or RGBA with --rgba).")
              .input("file", "slide")
              .input("x", "left edge, level-0 pixels")
              .input("y", "top edge, level-0 pixels")
              .input("w", "width, pixels of the level")
              .input("h", "height, pixels of the level")
              .param(Param::integer("level", "0", "pyramid level"))
              // The region is read on the host (as before the options list): the device fields do not apply.
              .options<wsi::ReadOptions>({"device", "nvjpeg", "hybrid"})
              .returns_image({"out"})
              .handler([](Invocation& inv) -> Result {
                const wsi::Slide s = wsi::Slide::open(inv.input_path(0));
                wsi::ReadOptions opt = inv.options<wsi::ReadOptions>();
                const std::int64_t level = inv.integer("level");
                if (level < 0 || level >= s.level_count())
                  throw InvalidArgument(inv.name() + ": argument 'level' must be in [0, " + std::to_string(s.level_count()) +
                                        "), got " + std::to_string(level));
                return s.read_region(parse_coord(inv, 1, "X"), parse_coord(inv, 2, "Y"), static_cast<int>(level),
                                     parse_coord(inv, 3, "W"), parse_coord(inv, 4, "H"), opt);
              }));

  reg.add(Command("wsi.convert",
                  "Convert any readable image or slide (level 0) to a tiled pyramidal TIFF; prints the levels "
                  "written.")
              .input("input", "image (TIFF, PNG, JPEG, NPY) or slide")
              .input("output", "pyramidal TIFF to write")
              .options<wsi::PyramidOptions>()
              .choices("compression", {"jpeg", "deflate", "lzw", "none", "zstd", "webp"})
              .choices("jpeg_colorspace", {"ycbcr", "rgb"})
              .returns_value("{levels, width, height} written")
              .handler([](Invocation& inv) -> Result {
                const std::string& in = inv.input_path(0);
                Array image;
                try {
                  const wsi::Slide s = wsi::Slide::open(in);
                  image = s.read_region(0, 0, 0, s.level(0).width, s.level(0).height);
                } catch (const FormatError&) {
                  image = io::imread(in);
                }
                wsi::write_pyramid(inv.input_path(1), image, inv.options<wsi::PyramidOptions>());
                const wsi::Slide out = wsi::Slide::open(inv.input_path(1));
                return nlohmann::json{{"levels", out.level_count()}, {"width", out.level(0).width}, {"height", out.level(0).height}};
              }));
}

}  // namespace cuskimage::cli
