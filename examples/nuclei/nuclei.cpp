// The nuclei job over a whole slide, in tiles: the main job of the tiled engine.
//
//   nuclei [SLIDE] [--out DIR] [--size N] [--tile T] [--device cpu|cuda]
//
// With no SLIDE it first writes a synthetic H&E-like N x N slide (default 8192) to DIR/synthetic.svs
// with the project's pyramid writer. It then runs rgb2hed -> Gaussian -> threshold -> opening ->
// remove small objects -> label -> measurements over the slide and writes DIR/labels.tif (label
// pyramid), DIR/nuclei.csv (per-nucleus table), DIR/nuclei.geojson (QuPath detections) and
// DIR/overlay.png (nucleus outlines on a region of tissue), then prints the time split.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "cuskimage/cuskimage.hpp"
#include "cuskimage/tiled.hpp"

int main(int argc, char** argv) {
  using namespace cuskimage;
  std::string slide_path, out = "nuclei_out";
  std::int64_t size = 8192, tile = 2048;
  std::optional<Device> device;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "nuclei: %s needs a value\n", a.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--out") out = next();
    else if (a == "--size") size = std::stoll(next());
    else if (a == "--tile") tile = std::stoll(next());
    else if (a == "--device") device = next() == "cpu" ? Device::cpu() : Device::cuda();
    else if (a == "-h" || a == "--help") {
      std::printf("usage: nuclei [SLIDE] [--out DIR] [--size N] [--tile T] [--device cpu|cuda]\n");
      return 0;
    } else slide_path = a;
  }
  try {
    std::filesystem::create_directories(out);
    if (slide_path.empty()) {
      slide_path = (std::filesystem::path(out) / "synthetic.svs").string();
      const auto t0 = std::chrono::steady_clock::now();
      tiled::write_synthetic_slide(slide_path, size, size);
      std::printf("wrote synthetic slide %s (%lld x %lld) in %.1f s\n", slide_path.c_str(), static_cast<long long>(size),
                  static_cast<long long>(size),
                  std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    }
    const wsi::Slide slide = wsi::Slide::open(slide_path);
    tiled::NucleiOptions o;
    o.tile_size = tile;
    o.device = device;
    const tiled::NucleiReport r = tiled::nuclei(slide, out, o);
    const auto& t = r.timing;
    std::printf("%lld nuclei in %lld of %lld tiles (threshold %.4f)\n", static_cast<long long>(r.objects),
                static_cast<long long>(r.tiles_processed), static_cast<long long>(r.tiles_total), r.threshold);
    std::printf("time %.2f s: read+decode %.2f, copies %.2f, compute %.2f, stitch %.2f, write %.2f (lane sums)\n",
                t.total, t.read, t.copy, t.compute, t.stitch, t.write);
    std::printf("outputs: %s %s %s %s\n", r.labels_tiff.c_str(), r.csv.c_str(), r.geojson.c_str(), r.overlay_png.c_str());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "nuclei: %s\n", e.what());
    return 1;
  }
  return 0;
}
