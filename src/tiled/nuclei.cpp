// The nuclei job over a slide (tiled::nuclei) and the fused per-pixel steps' host side
// (src/tiled/nuclei_ops.hpp); the split is in nuclei_split.cpp, the synthetic slide in
// synthetic_slide.cpp.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <future>

#include "cuskimage/color.hpp"
#include "cuskimage/error.hpp"
#include "cuskimage/filters.hpp"
#include "cuskimage/io.hpp"
#include "cuskimage/morphology.hpp"
#include "cuskimage/tiled.hpp"
#include "cuskimage/wsi.hpp"
#include "src/tiled/nuclei_ops.hpp"
#include "src/tiled/tiled_detail.hpp"

namespace cuskimage::tiled {
namespace detail {

HaemLut haematoxylin_lut() {
  HaemLut l{};
  const double la = std::log(1e-6);
  for (int c = 0; c < 3; ++c)
    for (int v = 0; v < 256; ++v) {
      const double s = std::max(v / 255.0, 1e-6);
      l.v[c * 256 + v] = static_cast<float>(std::log(s) / la * color::hed_from_rgb[c][0]);
    }
  return l;
}

Array haematoxylin(const Array& rgb, const Stream& stream) {
  const std::int64_t h = rgb.shape(0), w = rgb.shape(1);
  Array out = Array::empty({h, w}, DType::float32, rgb.device(), stream);
  const HaemLut lut = haematoxylin_lut();
  if (rgb.device().is_cuda()) {
    cuda_haematoxylin(rgb.data<std::uint8_t>(), h * w, lut, out.data<float>(), stream);
    return out;
  }
  const std::uint8_t* p = rgb.data<std::uint8_t>();
  float* o = out.data<float>();
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < h * w; ++i) {
    const float v = lut.v[p[3 * i]] + lut.v[256 + p[3 * i + 1]] + lut.v[512 + p[3 * i + 2]];
    o[i] = v > 0.f ? v : 0.f;
  }
  return out;
}

Array greater(const Array& x, float t, const Stream& stream) {
  Array out = Array::empty(x.shape(), DType::bool_, x.device(), stream);
  if (x.device().is_cuda()) {
    cuda_greater(x.data<float>(), x.size(), t, out.data<bool>(), stream);
    return out;
  }
  const float* p = x.data<float>();
  bool* o = out.data<bool>();
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < x.size(); ++i) o[i] = p[i] > t;
  return out;
}

}  // namespace detail

namespace {

using Clock = std::chrono::steady_clock;

}  // namespace

namespace {

/// The per-tile work: the mask, and with a split the objects (tiled::nuclei's comment: the halo).
Pipeline nuclei_pipeline(const NucleiOptions& o, float thr) {
  const double sigma = o.sigma;
  const std::int64_t rad = o.opening_radius;
  Pipeline p;
  p.halo = static_cast<std::int64_t>(4.0 * sigma + 0.5) + 2 * rad;  // Gaussian radius + erosion + dilation
  p.mask = [sigma, thr, rad](const Array& rgb, const TileInfo&, const Stream& s) {
    filters::GaussianOptions go;
    go.sigma = sigma;
    go.preserve_range = true;
    const Array g = filters::gaussian(detail::haematoxylin(rgb, s), go, s);
    Array m = detail::greater(g, thr, s);
    if (rad == 0) return m;
    morphology::BinaryOptions bo;
    bo.footprint = morphology::disk(rad);
    return morphology::binary_opening(m, bo, s);
  };
  if (o.split == NucleiSplit::none) return p;
  p.halo += o.split_extent;
  const std::int64_t md = o.min_distance, fp = o.peak_footprint;
  p.objects = [mask = p.mask, md, fp](const Array& rgb, const TileInfo& t, const Stream& s) {
    const Array m = mask(rgb, t, s).contiguous(s);
    return detail::split_nuclei(m, t.y - t.core_y, t.x - t.core_x, md, fp, 2, s);
  };
  return p;
}

}  // namespace

NucleiReport nuclei(const wsi::Slide& slide, const std::string& out_dir, const NucleiOptions& o) {
  if (!(o.sigma > 0)) throw InvalidArgument("tiled::nuclei: sigma must be > 0");
  if (o.opening_radius < 0) throw InvalidArgument("tiled::nuclei: opening_radius must be >= 0");
  if (o.min_distance < 1) throw InvalidArgument("tiled::nuclei: min_distance must be >= 1");
  if (o.peak_footprint < 0) throw InvalidArgument("tiled::nuclei: peak_footprint must be >= 0");
  if (o.split_extent < 0) throw InvalidArgument("tiled::nuclei: split_extent must be >= 0");
  if (o.level < 0 || o.level >= slide.level_count()) throw InvalidArgument("tiled::nuclei: level is out of range");
  std::filesystem::create_directories(out_dir);
  const auto t0 = Clock::now();
  NucleiReport rep;
  // One threshold for every tile: Otsu of the haematoxylin of the tissue at the lowest level.
  if (o.threshold) {
    rep.threshold = *o.threshold;
  } else {
    const int tl = slide.level_count() - 1;
    const wsi::Level& T = slide.level(tl);
    const Array low = slide.read_region(0, 0, tl, T.width, T.height);
    const Array h = detail::haematoxylin(low, Stream());
    const Array tissue = detail::tissue_mask(low, std::nullopt);
    std::vector<float> tissue_h;
    for (std::int64_t i = 0; i < tissue.size(); ++i)
      if (tissue.data<bool>()[i]) tissue_h.push_back(h.data<float>()[i]);
    if (tissue_h.size() < 2) throw InvalidArgument("tiled::nuclei: no tissue found to choose a threshold; set threshold");
    rep.threshold = filters::threshold_otsu(Array::from_vector(tissue_h, {static_cast<std::int64_t>(tissue_h.size())}));
  }
  Pipeline p = nuclei_pipeline(o, static_cast<float>(rep.threshold));
  p.intensity = [](const Array& rgb, const TileInfo&, const Stream& s) { return detail::haematoxylin(rgb, s); };
  Options to;
  to.level = o.level;
  to.tile_size = o.tile_size;
  to.max_size = o.max_size;
  to.device = o.device;
  to.lanes = o.lanes;
  to.checkpoint_dir = o.checkpoint_dir;
  to.progress = o.progress;
  const Result r = run(slide, p, to);
  rep.objects = static_cast<std::int64_t>(r.objects().size());
  rep.tiles_total = r.tiles_total();
  rep.tiles_processed = r.tiles_processed();
  rep.timing = r.timing();
  const auto tw = Clock::now();
  const std::filesystem::path dir(out_dir);
  rep.labels_tiff = (dir / "labels.tif").string();
  rep.csv = (dir / "nuclei.csv").string();
  rep.geojson = (dir / "nuclei.geojson").string();
  rep.overlay_png = (dir / "overlay.png").string();
  // The three outputs only read the result: written concurrently, each timed.
  auto timed = [](auto&& f) {
    const auto t = Clock::now();
    f();
    return std::chrono::duration<double>(Clock::now() - t).count();
  };
  auto f_tiff = std::async(std::launch::async, [&] { return timed([&] { r.write_label_tiff(rep.labels_tiff); }); });
  auto f_json = std::async(std::launch::async, [&] { return timed([&] { r.write_geojson(rep.geojson); }); });
  rep.write_csv_s = timed([&] { r.write_csv(rep.csv); });
  rep.write_labels_s = f_tiff.get();
  rep.write_geojson_s = f_json.get();
  // Overlay: nucleus outlines (label borders) in green on the tissue.
  const double ds = slide.level(o.level).downsample;
  std::array<std::int64_t, 4> reg{};
  if (o.overlay) {
    reg = *o.overlay;
  } else {
    double sy = 0, sx = 0, n = 0;
    const Array& tm = r.tissue_mask();
    const double tds = slide.level(slide.level_count() - 1).downsample;
    for (std::int64_t y = 0; y < tm.shape(0); ++y)
      for (std::int64_t x = 0; x < tm.shape(1); ++x)
        if (tm.data<bool>()[y * tm.shape(1) + x]) sy += y, sx += x, ++n;
    const std::int64_t cy = n > 0 ? static_cast<std::int64_t>(sy / n * tds) : slide.dimensions()[1] / 2;
    const std::int64_t cx = n > 0 ? static_cast<std::int64_t>(sx / n * tds) : slide.dimensions()[0] / 2;
    reg = {cx - 512, cy - 512, 1024, 1024};
  }
  const std::int64_t lx = std::clamp<std::int64_t>(static_cast<std::int64_t>(reg[0] / ds), 0, r.width() - 1);
  const std::int64_t ly = std::clamp<std::int64_t>(static_cast<std::int64_t>(reg[1] / ds), 0, r.height() - 1);
  const std::int64_t lw = std::min<std::int64_t>(static_cast<std::int64_t>(reg[2] / ds), r.width() - lx);
  const std::int64_t lh = std::min<std::int64_t>(static_cast<std::int64_t>(reg[3] / ds), r.height() - ly);
  Array crop = slide.read_region(static_cast<std::int64_t>(lx * ds), static_cast<std::int64_t>(ly * ds), o.level, lw, lh)
                   .contiguous();
  const Array lab = r.labels(lx, ly, lw, lh);
  const std::int64_t* l = lab.data<std::int64_t>();
  std::uint8_t* c = crop.data<std::uint8_t>();
  for (std::int64_t y = 0; y < lh; ++y)
    for (std::int64_t x = 0; x < lw; ++x) {
      const std::int64_t v = l[y * lw + x];
      if (v == 0) continue;
      const bool edge = x == 0 || y == 0 || x == lw - 1 || y == lh - 1 || l[y * lw + x - 1] != v ||
                        l[y * lw + x + 1] != v || l[(y - 1) * lw + x] != v || l[(y + 1) * lw + x] != v;
      if (edge) {
        std::uint8_t* q = c + 3 * (y * lw + x);
        q[0] = 0;
        q[1] = 255;
        q[2] = 0;
      }
    }
  io::ImsaveOptions io_opts;
  io_opts.check_contrast = false;
  rep.write_overlay_s = timed([&] { io::imsave(rep.overlay_png, crop, io_opts); });
  rep.timing.write += std::chrono::duration<double>(Clock::now() - tw).count();
  rep.timing.total = std::chrono::duration<double>(Clock::now() - t0).count();
  return rep;
}

}  // namespace cuskimage::tiled
