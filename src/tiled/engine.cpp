// The tiled engine (include/cuskimage/tiled.hpp): tissue detection, tile lanes, stitching.
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <fstream>
#include <limits>
#include <numeric>
#include <sstream>
#include <thread>
#include <unordered_map>

#include "cuskimage/color.hpp"
#include "cuskimage/error.hpp"
#include "cuskimage/filters.hpp"
#include "cuskimage/measure.hpp"
#include "cuskimage/tiled.hpp"
#include "cuskimage/wsi.hpp"
#include "src/tiled/tiled_detail.hpp"

namespace cuskimage::tiled {
namespace {

using detail::LocalObjects;
using detail::Source;
using detail::TileRecord;
using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

struct Grid {
  std::int64_t W, H, T, rows, cols;
  TileInfo info(std::int64_t i) const {
    TileInfo t;
    t.index = i;
    t.row = i / cols;
    t.col = i % cols;
    t.x = t.col * T;
    t.y = t.row * T;
    t.width = std::min(T, W - t.x);
    t.height = std::min(T, H - t.y);
    return t;
  }
};

void validate(const Pipeline& p, const Options& o) {
  const char* fn = "tiled::run";
  if (!p.mask && !p.objects) throw InvalidArgument(std::string(fn) + ": pipeline.mask and pipeline.objects are empty");
  if (p.halo < 0) throw InvalidArgument(std::string(fn) + ": pipeline.halo must be >= 0");
  if (o.tile_size < 16) throw InvalidArgument(std::string(fn) + ": tile_size must be >= 16");
  if (o.connectivity < 1 || o.connectivity > 2)
    throw InvalidArgument(std::string(fn) + ": connectivity must be 1 or 2 for a 2-D slide");
  if (o.max_size < 0) throw InvalidArgument(std::string(fn) + ": max_size must be >= 0");
  if (o.lanes < 1) throw InvalidArgument(std::string(fn) + ": lanes must be >= 1");
  if (o.tissue_threshold && !(*o.tissue_threshold >= 0.0 && *o.tissue_threshold <= 1.0))
    throw InvalidArgument(std::string(fn) + ": tissue_threshold must be in [0, 1]");
}

/// Per-object exact sums over a tile's core labels (local labels 1..n).
LocalObjects measure_core(const std::int32_t* lab, const double* inten, const TileInfo& t, std::int64_t W,
                          std::int64_t n) {
  LocalObjects o;
  o.area.assign(n, 0);
  o.first.assign(n, std::numeric_limits<std::int64_t>::max());
  o.sum_y.assign(n, 0);
  o.sum_x.assign(n, 0);
  o.min_y.assign(n, std::numeric_limits<std::int64_t>::max());
  o.min_x.assign(n, std::numeric_limits<std::int64_t>::max());
  o.max_y.assign(n, -1);
  o.max_x.assign(n, -1);
  if (inten) o.sum_i.assign(n, 0.0);
  for (std::int64_t r = 0; r < t.height; ++r) {
    const std::int64_t y = t.y + r;
    for (std::int64_t c = 0; c < t.width; ++c) {
      const std::int32_t l = lab[r * t.width + c];
      if (l <= 0) continue;
      if (l > n) throw InvalidArgument("tiled::run: pipeline.objects labels a pixel beyond its keys");
      const std::int64_t k = l - 1, x = t.x + c;
      if (o.area[k]++ == 0) o.first[k] = y * W + x;  // raster order: the first visit is the first pixel
      o.sum_y[k] += y;
      o.sum_x[k] += x;
      o.min_y[k] = std::min(o.min_y[k], y);
      o.max_y[k] = std::max(o.max_y[k], y);
      o.min_x[k] = std::min(o.min_x[k], x);
      o.max_x[k] = std::max(o.max_x[k], x);
      if (inten) o.sum_i[k] += inten[r * t.width + c];
    }
  }
  return o;
}

/// Union-find over global object ids; the root is the smaller id (any rule would do: the final
/// numbering comes from the first pixels).
struct UnionFind {
  std::vector<std::int64_t> p;
  explicit UnionFind(std::int64_t n) : p(static_cast<std::size_t>(n)) { std::iota(p.begin(), p.end(), 0); }
  std::int64_t find(std::int64_t x) {
    while (p[x] != x) {
      p[x] = p[p[x]];
      x = p[x];
    }
    return x;
  }
  void join(std::int64_t a, std::int64_t b) {
    a = find(a);
    b = find(b);
    if (a != b) p[std::max(a, b)] = std::min(a, b);
  }
};

}  // namespace

Array detail::tissue_mask(const Array& thumb, const std::optional<double>& threshold) {
  const std::int64_t h = thumb.shape(0), w = thumb.shape(1);
  // HSV saturation (color::rgb2hsv's channel 1), contiguous for the threshold loop below.
  const Array sat = color::rgb2hsv(thumb).index(2, 1).contiguous();
  const double* s = sat.data<double>();
  const double t = threshold ? *threshold : (h * w > 0 ? filters::threshold_otsu(sat) : 0.0);
  Array m = Array::empty({h, w}, DType::bool_);
  bool* q = m.data<bool>();
  for (std::int64_t i = 0; i < h * w; ++i) q[i] = s[i] > t;
  return m;
}

namespace {

/// Tiles with a tissue pixel within one thumbnail pixel of their core.
Array tile_mask(const Array& tissue, std::array<double, 2> scale, const Grid& g) {
  Array tm = Array::zeros({g.rows, g.cols}, DType::bool_);
  bool* q = tm.data<bool>();
  const std::int64_t th = tissue.shape(0), tw = tissue.shape(1);
  const bool* m = tissue.data<bool>();
  for (std::int64_t i = 0; i < g.rows * g.cols; ++i) {
    const TileInfo t = g.info(i);
    const std::int64_t x0 = std::max<std::int64_t>(0, static_cast<std::int64_t>(std::floor(t.x / scale[0])) - 1);
    const std::int64_t x1 =
        std::min<std::int64_t>(tw, static_cast<std::int64_t>(std::ceil((t.x + t.width) / scale[0])) + 1);
    const std::int64_t y0 = std::max<std::int64_t>(0, static_cast<std::int64_t>(std::floor(t.y / scale[1])) - 1);
    const std::int64_t y1 =
        std::min<std::int64_t>(th, static_cast<std::int64_t>(std::ceil((t.y + t.height) / scale[1])) + 1);
    bool any = false;
    for (std::int64_t y = y0; y < y1 && !any; ++y)
      for (std::int64_t x = x0; x < x1 && !any; ++x) any = m[y * tw + x];
    q[i] = any;
  }
  return tm;
}

std::string manifest_text(const Source& s, const Pipeline& p, const Options& o) {
  std::ostringstream m;
  m << "cuskimage tiled checkpoint v1\nsource " << s.identity << "\nlevel " << o.level << "\nsize " << s.width << " "
    << s.height << "\ntile " << o.tile_size << "\nhalo " << p.halo << "\nconnectivity " << o.connectivity
    << "\nintensity " << (p.intensity ? 1 : 0) << "\n" << (p.objects ? "objects 1\n" : "");
  return m.str();
}

struct CoreLabels {
  Array labels;  // int32 (core h, w) on the device
  std::int64_t num = 0;
  std::vector<std::int64_t> keys;  // with Pipeline::objects
};

/// The labels of a tile's core: the pipeline's objects, or the labelled mask.
CoreLabels core_labels(const Pipeline& p, const Options& o, const Array& rgb, const TileInfo& t,
                       const std::vector<Slice>& core, const Stream& stream) {
  const std::int64_t w = rgb.shape(1);
  CoreLabels c;
  if (p.objects) {
    TileObjects ob = p.objects(rgb, t, stream);
    if (ob.labels.ndim() != 2 || ob.labels.shape(0) != rgb.shape(0) || ob.labels.shape(1) != w ||
        ob.labels.dtype() != DType::int32)
      throw InvalidArgument("tiled::run: pipeline.objects must return int32 (h, w) labels of the tile's h and w");
    c.labels = ob.labels.slice(core).contiguous(stream);
    c.num = static_cast<std::int64_t>(ob.keys.size());
    c.keys = std::move(ob.keys);
    return c;
  }
  const Array mask = p.mask(rgb, t, stream);
  if (mask.ndim() != 2 || mask.shape(0) != rgb.shape(0) || mask.shape(1) != w || mask.dtype() != DType::bool_)
    throw InvalidArgument("tiled::run: pipeline.mask must return a bool (h, w) array of the tile's h and w");
  measure::LabelOptions lo;
  lo.connectivity = o.connectivity;
  lo.dtype = DType::int32;
  measure::LabelResult lab = measure::label_with_num(mask.slice(core), lo, stream);
  c.labels = std::move(lab.labels);
  c.num = lab.num;
  return c;
}

/// Local labels of one tile: read, pipeline, label, copy back, measure.
TileRecord process_tile(const Source& src, const Pipeline& p, const Options& o, const Grid& g, std::int64_t i,
                        Device dev, int workers, const Stream& stream, Timing& tm) {
  TileInfo t = g.info(i);
  t.level = o.level;
  const std::int64_t hx0 = std::max<std::int64_t>(0, t.x - p.halo), hy0 = std::max<std::int64_t>(0, t.y - p.halo);
  const std::int64_t hx1 = std::min(g.W, t.x + t.width + p.halo), hy1 = std::min(g.H, t.y + t.height + p.halo);
  t.core_x = t.x - hx0;
  t.core_y = t.y - hy0;
  auto t0 = Clock::now();
  const Array rgb = src.read(hx0, hy0, hx1 - hx0, hy1 - hy0, dev, workers, stream);
  tm.read += seconds_since(t0);
  t0 = Clock::now();
  const std::vector<Slice> core = {Slice{t.core_y, t.core_y + t.height}, Slice{t.core_x, t.core_x + t.width}};
  const CoreLabels lab = core_labels(p, o, rgb, t, core, stream);
  Array inten;
  if (p.intensity) {
    const Array in = p.intensity(rgb, t, stream);
    if (in.ndim() != 2 || in.shape(0) != hy1 - hy0 || in.shape(1) != hx1 - hx0)
      throw InvalidArgument("tiled::run: pipeline.intensity must return an (h, w) array of the tile's h and w");
    inten = in.slice(core).astype(DType::float64, stream);
  }
  tm.compute += seconds_since(t0);
  t0 = Clock::now();
  const Array hl = lab.labels.to(Device::cpu(), stream).contiguous(stream);
  const Array hi = p.intensity ? inten.to(Device::cpu(), stream).contiguous(stream) : Array();
  tm.copy += seconds_since(t0);
  t0 = Clock::now();
  TileRecord r;
  r.index = i;
  r.x = t.x;
  r.y = t.y;
  r.width = t.width;
  r.height = t.height;
  const std::int32_t* l = hl.data<std::int32_t>();
  r.objects = measure_core(l, p.intensity ? hi.data<double>() : nullptr, t, g.W, lab.num);
  r.objects.key = lab.keys;
  r.top.assign(l, l + t.width);
  r.bottom.assign(l + (t.height - 1) * t.width, l + t.height * t.width);
  r.left.resize(t.height);
  r.right.resize(t.height);
  for (std::int64_t y = 0; y < t.height; ++y) {
    r.left[y] = l[y * t.width];
    r.right[y] = l[y * t.width + t.width - 1];
  }
  r.packed = detail::pack_labels(l, static_cast<std::size_t>(hl.size()));
  tm.stitch += seconds_since(t0);
  return r;
}

/// Joins the pieces with the same key (Pipeline::objects), in whatever tiles.
void join_keys(const Result::Impl& R, const std::vector<std::int64_t>& offset, UnionFind& uf) {
  std::unordered_map<std::int64_t, std::int64_t> seen;
  for (std::size_t ti = 0; ti < R.records.size(); ++ti) {
    const TileRecord& t = R.records[ti];
    if (t.index < 0) continue;
    const LocalObjects& lo = t.objects;
    for (std::int64_t k = 0; k < lo.size() && k < static_cast<std::int64_t>(lo.key.size()); ++k) {
      if (lo.key[k] < 0 || lo.area[k] == 0) continue;
      const auto [it, fresh] = seen.emplace(lo.key[k], offset[ti] + k);
      if (!fresh) uf.join(it->second, offset[ti] + k);
    }
  }
}

/// Joins objects that touch across tile faces and corners (under the connectivity).
void join_faces(const Result::Impl& R, const Grid& g, const Options& o, const std::vector<std::int64_t>& offset,
                UnionFind& uf) {
  auto rec = [&](std::int64_t r, std::int64_t c) -> const TileRecord* {
    if (r < 0 || c < 0 || r >= g.rows || c >= g.cols) return nullptr;
    const TileRecord& t = R.records[r * g.cols + c];
    return t.index >= 0 ? &t : nullptr;
  };
  // Pairs of border lines a (of tile ta) and b (of tile tb) facing each other position by position;
  // `diag` also joins the +-1 neighbours (8-connectivity).
  auto join_lines = [&](std::int64_t ta, const std::vector<std::int32_t>& a, std::int64_t tb,
                        const std::vector<std::int32_t>& b, bool diag) {
    const std::int64_t n = static_cast<std::int64_t>(a.size());
    for (std::int64_t k = 0; k < n; ++k) {
      if (a[k] <= 0) continue;
      const std::int64_t ga = offset[ta] + a[k] - 1;
      for (std::int64_t d = diag ? -1 : 0; d <= (diag ? 1 : 0); ++d) {
        const std::int64_t kb = k + d;
        if (kb < 0 || kb >= n || b[kb] <= 0) continue;
        uf.join(ga, offset[tb] + b[kb] - 1);
      }
    }
  };
  const bool diag = o.connectivity >= 2;
  for (std::int64_t r = 0; r < g.rows; ++r)
    for (std::int64_t c = 0; c < g.cols; ++c) {
      const TileRecord* t = rec(r, c);
      if (!t) continue;
      const std::int64_t ti = r * g.cols + c;
      if (const TileRecord* u = rec(r, c + 1)) join_lines(ti, t->right, ti + 1, u->left, diag);
      if (const TileRecord* u = rec(r + 1, c)) join_lines(ti, t->bottom, ti + g.cols, u->top, diag);
      if (!diag) continue;
      if (const TileRecord* u = rec(r + 1, c + 1); u && t->bottom.back() > 0 && u->top.front() > 0)
        uf.join(offset[ti] + t->bottom.back() - 1, offset[ti + g.cols + 1] + u->top.front() - 1);
      if (const TileRecord* u = rec(r + 1, c - 1); u && t->bottom.front() > 0 && u->top.back() > 0)
        uf.join(offset[ti] + t->bottom.front() - 1, offset[ti + g.cols - 1] + u->top.back() - 1);
    }
}

/// Joins the pieces of each object across tiles, drops the small ones and numbers the rest by their
/// first pixel.
void stitch(Result::Impl& R, const Grid& g, const Options& o) {
  std::vector<std::int64_t> offset(R.records.size() + 1, 0);
  for (std::size_t i = 0; i < R.records.size(); ++i)
    offset[i + 1] = offset[i] + (R.records[i].index >= 0 ? R.records[i].objects.size() : 0);
  const std::int64_t total = offset.back();
  UnionFind uf(total);
  if (R.keyed)
    join_keys(R, offset, uf);
  else
    join_faces(R, g, o, offset, uf);
  // Merge the sums into the roots.
  struct Acc {
    std::int64_t area = 0, first = std::numeric_limits<std::int64_t>::max(), sy = 0, sx = 0;
    std::int64_t y0 = std::numeric_limits<std::int64_t>::max(), x0 = y0, y1 = -1, x1 = -1;
    double si = 0;
  };
  std::vector<Acc> acc(static_cast<std::size_t>(total));
  std::vector<std::int64_t> root(static_cast<std::size_t>(total));
  for (std::size_t ti = 0; ti < R.records.size(); ++ti) {
    const TileRecord& t = R.records[ti];
    if (t.index < 0) continue;
    const LocalObjects& lo = t.objects;
    for (std::int64_t k = 0; k < lo.size(); ++k) {
      const std::int64_t gid = offset[ti] + k, rt = uf.find(gid);
      root[gid] = rt;
      Acc& a = acc[rt];
      a.area += lo.area[k];
      a.first = std::min(a.first, lo.first[k]);
      a.sy += lo.sum_y[k];
      a.sx += lo.sum_x[k];
      a.y0 = std::min(a.y0, lo.min_y[k]);
      a.x0 = std::min(a.x0, lo.min_x[k]);
      a.y1 = std::max(a.y1, lo.max_y[k]);
      a.x1 = std::max(a.x1, lo.max_x[k]);
      if (!lo.sum_i.empty()) a.si += lo.sum_i[k];
    }
  }
  std::vector<std::int64_t> keep;
  for (std::int64_t gid = 0; gid < total; ++gid)
    if (root[gid] == gid && acc[gid].area > o.max_size) keep.push_back(gid);
  std::sort(keep.begin(), keep.end(), [&](std::int64_t a, std::int64_t b) { return acc[a].first < acc[b].first; });
  std::vector<std::int64_t> final_label(static_cast<std::size_t>(total), 0);
  R.objects.clear();
  R.objects.reserve(keep.size());
  const bool has_i = R.has_intensity;
  for (std::size_t k = 0; k < keep.size(); ++k) {
    const Acc& a = acc[keep[k]];
    final_label[keep[k]] = static_cast<std::int64_t>(k + 1);
    Object ob;
    ob.label = static_cast<std::int64_t>(k + 1);
    ob.area = a.area;
    ob.centroid_y = static_cast<double>(a.sy) / static_cast<double>(a.area);
    ob.centroid_x = static_cast<double>(a.sx) / static_cast<double>(a.area);
    ob.bbox_min_y = a.y0;
    ob.bbox_min_x = a.x0;
    ob.bbox_max_y = a.y1 + 1;
    ob.bbox_max_x = a.x1 + 1;
    ob.intensity_mean = has_i ? a.si / static_cast<double>(a.area) : std::numeric_limits<double>::quiet_NaN();
    R.objects.push_back(ob);
  }
  R.lut.assign(R.records.size(), {});
  for (std::size_t ti = 0; ti < R.records.size(); ++ti) {
    const TileRecord& t = R.records[ti];
    if (t.index < 0) continue;
    auto& lut = R.lut[ti];
    lut.assign(static_cast<std::size_t>(t.objects.size() + 1), 0);
    for (std::int64_t k = 0; k < t.objects.size(); ++k) lut[k + 1] = final_label[root[offset[ti] + k]];
  }
}

class Progress {
 public:
  Progress(bool on, std::int64_t total) : on_(on && isatty(STDERR_FILENO)), total_(total), t0_(Clock::now()) {}
  void tick(std::int64_t done) {
    if (!on_) return;
    std::lock_guard<std::mutex> lock(mu_);
    const double s = seconds_since(t0_);
    if (done < total_ && s - last_ < 0.25) return;
    last_ = s;
    const double rate = s > 0 ? done / s : 0.0;
    const double eta = rate > 0 ? (total_ - done) / rate : 0.0;
    std::fprintf(stderr, "\rtiles %lld/%lld  %.1f tiles/s  ETA %.0f s   ", static_cast<long long>(done),
                 static_cast<long long>(total_), rate, eta);
    if (done >= total_) std::fprintf(stderr, "\n");
    std::fflush(stderr);
  }

 private:
  bool on_;
  std::int64_t total_;
  Clock::time_point t0_;
  double last_ = -1;
  std::mutex mu_;
};

Result run_source(const Source& src, const Pipeline& p, const Options& o) {
  validate(p, o);
  const auto t_start = Clock::now();
  auto impl = std::make_unique<Result::Impl>();
  Result::Impl& R = *impl;
  const Grid g{src.width, src.height, o.tile_size, (src.height + o.tile_size - 1) / o.tile_size,
               (src.width + o.tile_size - 1) / o.tile_size};
  R.width = g.W;
  R.height = g.H;
  R.tile = g.T;
  R.rows = g.rows;
  R.cols = g.cols;
  R.downsample = src.downsample;
  R.mpp = src.mpp;
  R.checkpoint_dir = o.checkpoint_dir;
  R.has_intensity = static_cast<bool>(p.intensity);
  R.keyed = static_cast<bool>(p.objects);
  const Device dev = o.device ? *o.device : (cuda_available() ? Device::cuda(0) : Device::cpu());

  // 1. Tissue.
  auto t0 = Clock::now();
  if (o.skip_background) {
    std::array<double, 2> scale{1, 1};
    const Array thumb = src.thumbnail(scale);
    R.tissue = detail::tissue_mask(thumb, o.tissue_threshold);
    R.tiles = tile_mask(R.tissue, scale, g);
  } else {
    R.tissue = Array::empty({0, 0}, DType::bool_);
    R.tiles = Array::full({g.rows, g.cols}, 1.0, DType::bool_);
  }
  R.timing.read += seconds_since(t0);
  const bool* want = R.tiles.data<bool>();

  // 2. Checkpoints, then the tiles still to compute.
  R.records.assign(static_cast<std::size_t>(g.rows * g.cols), TileRecord{});
  std::vector<std::int64_t> todo;
  if (!o.checkpoint_dir.empty()) {
    std::filesystem::create_directories(o.checkpoint_dir);
    const std::string man = manifest_text(src, p, o), mpath = o.checkpoint_dir + "/manifest.txt";
    if (std::filesystem::exists(mpath)) {
      std::ifstream f(mpath);
      const std::string have((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
      if (have != man)
        throw InvalidArgument("tiled::run: checkpoint_dir " + o.checkpoint_dir +
                              " holds a run with another slide or options; use an empty directory");
    } else {
      std::ofstream(mpath) << man;
    }
  }
  auto ckpt = [&](std::int64_t i) { return o.checkpoint_dir + "/tile_" + std::to_string(i) + ".bin"; };
  for (std::int64_t i = 0; i < g.rows * g.cols; ++i) {
    const TileInfo t = g.info(i);  // skipped tiles keep their geometry (all background)
    R.records[i].x = t.x;
    R.records[i].y = t.y;
    R.records[i].width = t.width;
    R.records[i].height = t.height;
    if (!want[i]) continue;
    ++R.processed;
    if (!o.checkpoint_dir.empty() && detail::read_record(ckpt(i), R.records[i], false)) continue;
    todo.push_back(i);
  }

  // 3. Lanes: each takes the next tile, computes it on its own stream and stores the record.
  const int lanes = static_cast<int>(std::min<std::int64_t>(o.lanes, std::max<std::size_t>(todo.size(), 1)));
  const int hw = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  const int workers = o.read_workers > 0 ? o.read_workers : std::max(1, hw / lanes);
  std::atomic<std::int64_t> next{0}, done{R.processed - static_cast<std::int64_t>(todo.size())};
  std::atomic<bool> failed{false};
  std::exception_ptr error;
  std::mutex mu;
  std::vector<Timing> lane_t(static_cast<std::size_t>(lanes));
  Progress progress(o.progress, R.processed);
  const std::int64_t limit = o.stop_after < 0 ? static_cast<std::int64_t>(todo.size())
                                              : std::min<std::int64_t>(o.stop_after, todo.size());
  auto lane = [&](int k) {
    try {
      const Stream stream = dev.is_cuda() ? Stream::create() : Stream();
      for (std::int64_t j; !failed && (j = next.fetch_add(1)) < limit;) {
        const std::int64_t i = todo[static_cast<std::size_t>(j)];
        TileRecord r = process_tile(src, p, o, g, i, dev, workers, stream, lane_t[k]);
        if (!o.checkpoint_dir.empty()) {
          const auto tw = Clock::now();
          detail::write_record(ckpt(i), r);
          r.packed.clear();  // on disk now: memory stays bounded by the border lines and sums
          r.packed.shrink_to_fit();
          lane_t[k].write += seconds_since(tw);
        }
        R.records[static_cast<std::size_t>(i)] = std::move(r);
        progress.tick(++done);
      }
    } catch (...) {
      std::lock_guard<std::mutex> lock(mu);
      if (!error) error = std::current_exception();
      failed = true;
    }
  };
  std::vector<std::thread> threads;
  for (int k = 1; k < lanes; ++k) threads.emplace_back(lane, k);
  lane(0);
  for (auto& th : threads) th.join();
  if (error) std::rethrow_exception(error);
  for (const Timing& t : lane_t) {
    R.timing.read += t.read;
    R.timing.copy += t.copy;
    R.timing.compute += t.compute;
    R.timing.stitch += t.stitch;
    R.timing.write += t.write;
  }
  R.computed = limit;
  R.complete = limit == static_cast<std::int64_t>(todo.size());

  // 4. Stitch (only a complete run has whole-slide objects).
  if (R.complete) {
    t0 = Clock::now();
    stitch(R, g, o);
    R.timing.stitch += seconds_since(t0);
  }
  R.timing.total = seconds_since(t_start);
  return Result(std::move(impl));
}

std::optional<double> parse_double(const std::optional<std::string>& s) {
  if (!s) return std::nullopt;
  try {
    return std::stod(*s);
  } catch (...) {
    return std::nullopt;
  }
}

}  // namespace

Result run(const wsi::Slide& slide, const Pipeline& pipeline, const Options& options) {
  if (options.level < 0 || options.level >= slide.level_count())
    throw InvalidArgument("tiled::run: level " + std::to_string(options.level) + " is out of range (the slide has " +
                          std::to_string(slide.level_count()) + ")");
  if (options.tissue_level >= slide.level_count())
    throw InvalidArgument("tiled::run: tissue_level is out of range");
  const wsi::Level& L = slide.level(options.level);
  Source s;
  s.width = L.width;
  s.height = L.height;
  s.level = options.level;
  s.downsample = {L.downsample, L.downsample};
  const auto mx = parse_double(slide.property("openslide.mpp-x")), my = parse_double(slide.property("openslide.mpp-y"));
  if (mx && my) s.mpp = std::array<double, 2>{*mx, *my};
  s.identity = slide.path() + " " + std::to_string(slide.dimensions()[0]) + "x" + std::to_string(slide.dimensions()[1]);
  const int level = options.level;
  const double ds = L.downsample;
  s.read = [&slide, level, ds](std::int64_t x, std::int64_t y, std::int64_t w, std::int64_t h, Device device,
                               int workers, const Stream& stream) {
    wsi::ReadOptions ro;
    ro.device = device;
    ro.workers = workers;
    // Level-0 coordinates that map back to exactly (x, y) at this level (the reader rounds down).
    const auto l0 = [ds](std::int64_t v) { return static_cast<std::int64_t>(std::ceil(static_cast<double>(v) * ds - 1e-9)); };
    return slide.read_region(wsi::Region{l0(x), l0(y), level, w, h}, ro, stream);
  };
  const int tl = options.tissue_level < 0 ? slide.level_count() - 1 : options.tissue_level;
  s.thumbnail = [&slide, tl, ds](std::array<double, 2>& scale) {
    const wsi::Level& T = slide.level(tl);
    scale = {T.downsample / ds, T.downsample / ds};
    return slide.read_region(wsi::Region{0, 0, tl, T.width, T.height});
  };
  return run_source(s, pipeline, options);
}

Result run(const Array& rgb, const Pipeline& pipeline, const Options& options) {
  if (rgb.ndim() != 3 || rgb.shape(2) != 3 || rgb.dtype() != DType::uint8)
    throw InvalidArgument("tiled::run: the image must be uint8 (h, w, 3), got " + rgb.str());
  if (options.level != 0) throw InvalidArgument("tiled::run: an in-memory image has only level 0");
  Source s;
  s.height = rgb.shape(0);
  s.width = rgb.shape(1);
  std::ostringstream id;
  id << "array " << s.height << "x" << s.width;
  s.identity = id.str();
  s.read = [&rgb](std::int64_t x, std::int64_t y, std::int64_t w, std::int64_t h, Device device, int,
                  const Stream& stream) {
    return rgb.slice({Slice{y, y + h}, Slice{x, x + w}, Slice{}}).to(device, stream).contiguous(stream);
  };
  s.thumbnail = [&rgb](std::array<double, 2>& scale) {
    const std::int64_t f = std::max<std::int64_t>(1, (std::max(rgb.shape(0), rgb.shape(1)) + 2047) / 2048);
    scale = {static_cast<double>(f), static_cast<double>(f)};
    Array host = rgb.slice({Slice{std::nullopt, std::nullopt, f}, Slice{std::nullopt, std::nullopt, f}, Slice{}})
                           .to(Device::cpu())
                           .contiguous();
    return host;
  };
  return run_source(s, pipeline, options);
}

// ---- Result ---------------------------------------------------------------------------------------
Result::Result() : impl_(std::make_unique<Impl>()) {}
Result::~Result() = default;
Result::Result(Result&&) noexcept = default;
Result& Result::operator=(Result&&) noexcept = default;
Result::Result(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

std::int64_t Result::width() const { return impl_->width; }
std::int64_t Result::height() const { return impl_->height; }
std::int64_t Result::tiles_total() const { return impl_->rows * impl_->cols; }
std::int64_t Result::tiles_processed() const { return impl_->processed; }
std::int64_t Result::tiles_computed() const { return impl_->computed; }
bool Result::complete() const { return impl_->complete; }
std::array<double, 2> Result::downsample() const { return impl_->downsample; }
std::optional<std::array<double, 2>> Result::mpp() const { return impl_->mpp; }
const Array& Result::tissue_mask() const { return impl_->tissue; }
const Array& Result::tile_mask() const { return impl_->tiles; }
const std::vector<Object>& Result::objects() const { return impl_->objects; }
const Timing& Result::timing() const { return impl_->timing; }

void Result::Impl::tile_labels(std::int64_t index, std::vector<std::int32_t>& out) const {
  const detail::TileRecord& r = records[static_cast<std::size_t>(index)];
  out.resize(static_cast<std::size_t>(r.width * r.height));
  if (r.index < 0) {
    std::fill(out.begin(), out.end(), 0);
    return;
  }
  if (!r.packed.empty()) {
    detail::unpack_labels(r.packed, out.data(), out.size());
    return;
  }
  detail::TileRecord disk;
  if (!detail::read_record(checkpoint_dir + "/tile_" + std::to_string(index) + ".bin", disk, true))
    throw FormatError("tiled: checkpoint of tile " + std::to_string(index) + " is missing or incomplete");
  detail::unpack_labels(disk.packed, out.data(), out.size());
}

}  // namespace cuskimage::tiled
