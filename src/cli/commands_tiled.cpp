// The tiled engine on the command line:
//   cuskimage nuclei SLIDE --out DIR [--level 0] [--tile_size 2048] [--sigma 1] [--split none|watershed] ...
//   cuskimage tiled.synthetic-slide OUT.svs [--width 20000] [--height 20000] [--seed 1] [--touching 0]
// nuclei (tiled.nuclei) writes labels.tif, nuclei.csv, nuclei.geojson and overlay.png to DIR and
// prints the counts and the time split as JSON.
#include <string>

#include "cuskimage/tiled.hpp"
#include "cuskimage/wsi.hpp"
#include "src/cli/registry.hpp"

namespace cuskimage::cli {

CUSK_CLI_COMMANDS(tiled) {
  reg.add(Command("tiled.nuclei",
                  "Segment nuclei over a whole slide in tiles (rgb2hed, Gaussian, threshold, opening, touching nuclei "
                  "split by an EDT watershed, small-object removal, label, measurements) and write labels.tif, nuclei.csv, nuclei.geojson and overlay.png.")
              .input("slide", "slide (SVS, pyramidal TIFF)")
              .param(Param::string("out", std::nullopt, "output directory"))
              .options<tiled::NucleiOptions>({"device"})  // --device
              .returns_value("{objects, tiles_total, tiles_processed, threshold, seconds: {...}, outputs: {...}}")
              .handler([](Invocation& inv) -> Result {
                const wsi::Slide slide = wsi::Slide::open(inv.input_path(0));
                auto o = inv.options<tiled::NucleiOptions>();
                o.device = inv.device();
                const tiled::NucleiReport r = tiled::nuclei(slide, inv.string("out"), o);
                return nlohmann::json{
                    {"objects", r.objects},
                    {"tiles_total", r.tiles_total},
                    {"tiles_processed", r.tiles_processed},
                    {"threshold", r.threshold},
                    {"split", std::string(meta::enum_name(o.split))},
                    {"seconds",
                     {{"read", r.timing.read},
                      {"copy", r.timing.copy},
                      {"compute", r.timing.compute},
                      {"stitch", r.timing.stitch},
                      {"write", r.timing.write},
                      {"write_labels", r.write_labels_s},
                      {"write_csv", r.write_csv_s},
                      {"write_geojson", r.write_geojson_s},
                      {"write_overlay", r.write_overlay_s},
                      {"total", r.timing.total}}},
                    {"outputs",
                     {{"labels", r.labels_tiff}, {"csv", r.csv}, {"geojson", r.geojson}, {"overlay", r.overlay_png}}}};
              }));

  reg.add(Command("tiled.synthetic-slide",
                  "Write a synthetic H&E-like slide (nuclei on tissue on glass; JPEG tiles, Aperio SVS layout).")
              .input("output", "slide to write (.svs or .tif)")
              .param(Param::integer("width", "20000", "width in pixels"))
              .param(Param::integer("height", "20000", "height in pixels"))
              .param(Param::integer("seed", "1", "random seed"))
              .param(Param::number("touching", "0", "fraction of the nuclei overlapping a partner, in [0, 1]"))
              .returns_value("{width, height, nuclei}: nuclei is the true count of nuclei drawn")
              .handler([](Invocation& inv) -> Result {
                const std::int64_t n = tiled::write_synthetic_slide(inv.input_path(0), inv.integer("width"),
                                                                    inv.integer("height"),
                                                                    static_cast<std::uint32_t>(inv.integer("seed")),
                                                                    inv.number("touching"));
                return nlohmann::json{{"width", inv.integer("width")}, {"height", inv.integer("height")}, {"nuclei", n}};
              }));
}

}  // namespace cuskimage::cli
