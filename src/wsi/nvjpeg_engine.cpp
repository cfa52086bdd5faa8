// Device reads through nvJPEG: the engine (one per GPU) and the exact colour path's self-check
// (builds with CUSK_HAVE_NVJPEG; nvjpeg_decode.cpp schedules one read on it).
//
// One Engine per GPU: an nvJPEG handle on the hardware backend (the NVJPG engines of A100/H100/H200:
// baseline JPEG, 4:4:4/4:2:2/4:2:0) when nvJPEG can create one, else its default (CUDA) backend, and
// a pool of decode slots -- a non-blocking stream, a completion event, nvJPEG states (one per batch
// size: re-initialising a state for another size costs), the host JPEG streams of the batch in
// flight, device scratch and the batch's colour jobs. A state decodes one batch at a time, so
// throughput comes from several slots in flight.
//
// Colour (tuning::WsiNvjpegPolicy::colour): NVJPG's own RGB output upsamples 4:2:0/4:2:2 chroma by
// replication (libjpeg's "simple" upsampling; measured on the H200: its pixels equal libjpeg-turbo's
// with do_fancy_upsampling = FALSE, sample for sample, so its IDCT is libjpeg's ISLOW), while the
// host path -- and OpenSlide -- use libjpeg's fancy (triangle) upsampling: up to 35 levels apart at
// chroma edges, mean 4.6 on a busy reduced level. So by default ("exact") nvJPEG writes the tiles'
// YCbCr planes into scratch and one kernel per batch (kernels/wsi/ycc_jobs.cu, src/wsi/ycc.hpp)
// upsamples and converts them as libjpeg-turbo does, writing each part straight into its output:
// no RGB scratch, no crop copies, any alignment, and the host decoder's bytes. On that path runs of
// up to WsiNvjpegPolicy::stack (8) tiles of a level go to nvJPEG as one image (JpegStacker, built
// from the stored tiles: one frame, a restart interval per tile): the decoder's cost per image is
// paid once per stack (H200, exact path: 36 k -> 71-75 k tiles/s), and the planes are the tiles'
// own (the kernel upsamples each tile within its own rows). A self-check (three copies of a tile
// stacked must decode as the tile alone) or a refused stack turns it off. "nvjpeg_rgb" keeps
// nvJPEG's RGB output (interleaved, in place for whole aligned tiles), with the handle's
// NVJPEG_FLAGS_UPSAMPLING_WITH_INTERPOLATION where nvJPEG has it.
//
// Removed with their environment switches (no sweep adopted them): one nvJPEG state re-initialised
// per batch size (instead of one state per size), spinning feeders (instead of blocking on events),
// NVJPEG_FLAGS_HW_DECODE_NO_PIPELINE, a fixed GPU share of the units (instead of the balance rule),
// nvJPEG RGB without interpolated chroma, and overrides of the feeder and host worker counts (the
// read's ReadOptions::workers decides them).
#include "src/wsi/nvjpeg_engine.hpp"

#include <algorithm>

#include "cuskimage/tuning.hpp"
#include "src/core/policy_slot.hpp"
#include "src/wsi/wsi_detail.hpp"

namespace cuskimage::tuning {
CUSK_TUNING_POLICY(WsiNvjpegPolicy, wsi_nvjpeg_policy)
}  // namespace cuskimage::tuning

namespace cuskimage::wsi::detail {

std::size_t gpu_chunk(double in_flight, double gpu_rate, double host_rate, const double* prefix, std::size_t front,
                      std::size_t back, std::size_t limit) {
  if (!(gpu_rate > 0) || !(host_rate > 0)) return std::min(limit, back - front);
  std::size_t c = 0;
  while (c < limit && front + c < back &&
         (in_flight + static_cast<double>(c + 1)) / gpu_rate <= (prefix[back] - prefix[front + c + 1]) / host_rate)
    ++c;
  return c;
}
}  // namespace cuskimage::wsi::detail

#if CUSK_HAVE_NVJPEG
#include <cmath>
#include <cstdlib>
#include <map>
#include <memory>

#include "src/core/device_guard.hpp"
#endif

namespace cuskimage::wsi::detail {

#if !CUSK_HAVE_NVJPEG
std::string gpu_jpeg_decoder_info(int) {
  return "none: this build has no nvJPEG (configure with a CUDA toolkit that has it, or -DCUSK_NVJPEG_ROOT=<nvidia-nvjpeg "
         "wheel>); device reads decode on the host";
}
#else
namespace nvj {

Settings settings_of(const tuning::WsiNvjpegPolicy& p) {
  Settings s;
  s.exact = p.colour != tuning::NvjpegColour::nvjpeg_rgb;
  if (p.stack > 0) s.stack = static_cast<std::size_t>(std::min(p.stack, 64));
  if (p.batch > 0) s.batch = std::min(p.batch, 4096);
  if (p.depth > 0) s.depth = std::min(p.depth, 16);
  if (p.ramp != 0) s.ramp = p.ramp < 0 ? 0 : std::min(p.ramp, 4096);
  if (p.min_chunk > 0) s.min_chunk = std::min(p.min_chunk, 4096);
  return s;
}

Planes planes_of(const TiledImage& t, int hs, int vs, std::size_t m) {
  Planes p{};
  p.cw = static_cast<int>(t.tile_width / hs);
  p.ch = static_cast<int>(t.tile_height / vs);
  p.y_pitch = align_up(static_cast<std::size_t>(t.tile_width), 64);
  p.c_pitch = align_up(static_cast<std::size_t>(p.cw), 64);
  p.y_tile = p.y_pitch * static_cast<std::size_t>(t.tile_height);
  p.c_tile = p.c_pitch * static_cast<std::size_t>(p.ch);
  const std::size_t ybytes = align_up(p.y_tile * m, 256);
  const std::size_t cbytes = align_up(p.c_tile * m, 256);
  p.cb = ybytes;
  p.cr = ybytes + cbytes;
  p.bytes = ybytes + 2 * cbytes;
  return p;
}

YccJob tile_job(const unsigned char* base, const Planes& pl, std::size_t q, const LevelInfo& li, const TiledImage& t) {
  YccJob j;
  j.y = base + q * pl.y_tile, j.cb = base + pl.cb + q * pl.c_tile, j.cr = base + pl.cr + q * pl.c_tile;
  j.y_pitch = static_cast<std::int32_t>(pl.y_pitch), j.c_pitch = static_cast<std::int32_t>(pl.c_pitch);
  j.cw = pl.cw, j.ch = pl.ch, j.hs = li.hs, j.vs = li.vs;
  j.w = static_cast<std::int32_t>(t.tile_width), j.h = static_cast<std::int32_t>(t.tile_height);
  return j;
}

nvjpegImage_t planes_image(unsigned char* base, const Planes& pl) {
  nvjpegImage_t img{};
  img.channel[0] = base, img.pitch[0] = pl.y_pitch;
  img.channel[1] = base + pl.cb, img.pitch[1] = pl.c_pitch;
  img.channel[2] = base + pl.cr, img.pitch[2] = pl.c_pitch;
  return img;
}

bool in_place(const DevicePart& p) {
  return p.x0 == 0 && p.y0 == 0 && p.x1 == p.image->tile_width && p.y1 == p.image->tile_height &&
         reinterpret_cast<std::uintptr_t>(p.dst) % 16 == 0 && p.pitch % 16 == 0;
}

Staging::Staging() {
  CUSK_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  for (Buf& b : ring) CUSK_CUDA_CHECK(cudaEventCreateWithFlags(&b.copied, cudaEventDisableTiming));
}

Staging::Buf& Staging::take(std::size_t bytes) {
  Buf& b = ring[next];
  next = (next + 1) % kRing;
  if (b.pending) {
    CUSK_CUDA_CHECK(cudaEventSynchronize(b.copied));
    b.pending = false;
  }
  if (b.bytes < bytes) {
    if (b.p) CUSK_CUDA_CHECK(cudaFreeHost(b.p));
    b.p = nullptr;
    b.bytes = 0;
    const std::size_t grow = std::max(bytes, std::size_t(256 * 256 * 3));
    CUSK_CUDA_CHECK(cudaHostAlloc(reinterpret_cast<void**>(&b.p), grow, cudaHostAllocDefault));
    b.bytes = grow;
  }
  return b;
}

Engine::Engine(int device) {
  int major = 0, minor = 0, patch = 0;
  nvjpegGetProperty(MAJOR_VERSION, &major);
  nvjpegGetProperty(MINOR_VERSION, &minor);
  nvjpegGetProperty(PATCH_LEVEL, &patch);
  const std::string version = "nvJPEG " + std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch);
  unsigned flags = NVJPEG_FLAGS_DEFAULT;
#ifdef NVJPEG_FLAGS_UPSAMPLING_WITH_INTERPOLATION
  if (major > 12 || (major == 12 && minor >= 1)) flags |= NVJPEG_FLAGS_UPSAMPLING_WITH_INTERPOLATION;
#endif
  nvjpegStatus_t hw = nvjpegCreateEx(NVJPEG_BACKEND_HARDWARE, nullptr, nullptr, flags, &handle_);
  if (hw != NVJPEG_STATUS_SUCCESS && flags != NVJPEG_FLAGS_DEFAULT) {
    handle_ = nullptr;
    if (nvjpegCreateEx(NVJPEG_BACKEND_HARDWARE, nullptr, nullptr, NVJPEG_FLAGS_DEFAULT, &handle_) == NVJPEG_STATUS_SUCCESS) {
      hw = NVJPEG_STATUS_SUCCESS;
      flag_note_ = "; handle flags " + std::to_string(flags) + " refused";
      flags = NVJPEG_FLAGS_DEFAULT;
    }
  }
  if (hw == NVJPEG_STATUS_SUCCESS) {
    hardware_ = true;
    unsigned engines = 0, cores = 0;
    if (nvjpegGetHardwareDecoderInfo(handle_, &engines, &cores) == NVJPEG_STATUS_SUCCESS && engines > 0) {
      description_ = version + ", hardware backend (NVJPG: " + std::to_string(engines) + " engines x " + std::to_string(cores) +
                     " cores)";
    } else {
      description_ = version + ", hardware backend (NVJPG; engine count not reported)";
    }
  } else {
    handle_ = nullptr;
    nvjpegStatus_t def = nvjpegCreateEx(NVJPEG_BACKEND_DEFAULT, nullptr, nullptr, flags, &handle_);
    if (def != NVJPEG_STATUS_SUCCESS && flags != NVJPEG_FLAGS_DEFAULT) {
      handle_ = nullptr;
      def = nvjpegCreateEx(NVJPEG_BACKEND_DEFAULT, nullptr, nullptr, NVJPEG_FLAGS_DEFAULT, &handle_);
      flags = NVJPEG_FLAGS_DEFAULT;
    }
    if (def != NVJPEG_STATUS_SUCCESS)
      throw NotSupported("wsi: nvJPEG could not start on cuda:" + std::to_string(device) + " (hardware backend: " +
                         status_text(hw) + ", default backend: " + status_text(def) + ")");
    description_ = version + ", default backend (CUDA; hardware backend unavailable: " + status_text(hw) + ")";
  }
  interpolating_ = (flags & 32u) != 0;
  if (nvjpegJpegStreamCreate(handle_, &parse_) != NVJPEG_STATUS_SUCCESS)
    throw NotSupported("wsi: nvJPEG could not create a stream parser on cuda:" + std::to_string(device));
}

std::string Engine::description(const Settings& set) {
  std::lock_guard lock(mu_);
  std::string colour;
  if (set.exact && exact_failure_.empty())
    colour = "colour: exact (YCbCr planes; libjpeg-turbo's fancy upsampling and conversion on the GPU" +
             (self_check_.empty() ? std::string() : "; " + self_check_) + ")" +
             (set.stack <= 1 ? std::string(", one tile per image")
              : stack_failure_.empty() ? ", up to " + std::to_string(set.stack) + " tiles stacked per image"
                                       : ", tiles not stacked: " + stack_failure_);
  else
    colour = std::string("colour: nvJPEG RGB (") + (interpolating_ ? "interpolated" : "replicated") + " chroma upsampling" +
             (exact_failure_.empty() ? "" : "; exact path unavailable: " + exact_failure_) + ")";
  return description_ + ", " + colour + flag_note_;
}

LevelInfo Engine::supports(const unsigned char* data, std::size_t n, std::int64_t tw, std::int64_t th) {
  std::lock_guard lock(parse_mu_);
  LevelInfo info;
  if (nvjpegJpegStreamParseHeader(handle_, data, n, parse_) != NVJPEG_STATUS_SUCCESS) return info;
  unsigned w = 0, h = 0;
  nvjpegJpegStreamGetFrameDimensions(parse_, &w, &h);
  if (static_cast<std::int64_t>(w) != tw || static_cast<std::int64_t>(h) != th) return info;
  unsigned components = 0;
  if (nvjpegJpegStreamGetComponentsNum(parse_, &components) != NVJPEG_STATUS_SUCCESS || components != 3) return info;
  nvjpegChromaSubsampling_t css = NVJPEG_CSS_UNKNOWN;
  nvjpegJpegStreamGetChromaSubsampling(parse_, &css);
  if (css == NVJPEG_CSS_444) info.hs = 1, info.vs = 1;
  else if (css == NVJPEG_CSS_422) info.hs = 2, info.vs = 1;
  else if (css == NVJPEG_CSS_420) info.hs = 2, info.vs = 2;
  else return info;
  // The chroma planes nvJPEG's YCbCr output writes (the exact path's kernel reads them so).
  for (unsigned c = 1; c < 3; ++c) {
    unsigned cw = 0, ch = 0;
    if (nvjpegJpegStreamGetComponentDimensions(parse_, c, &cw, &ch) != NVJPEG_STATUS_SUCCESS ||
        static_cast<std::int64_t>(cw) != tw / info.hs || static_cast<std::int64_t>(ch) != th / info.vs)
      return info;
  }
  if (hardware_) {
    int unsupported = 1;  // nvjpegDecodeBatchedSupported reports 0 for "supported"
    if (nvjpegDecodeBatchedSupported(handle_, parse_, &unsupported) != NVJPEG_STATUS_SUCCESS || unsupported != 0) return info;
  }
  info.gpu = true;
  // Stacks: two copies of this tile, as the decoder will see a stack of the level's tiles.
  JpegStacker stacker;
  std::vector<unsigned char> two;
  if (stacker.begin({}, data, n, two) && stacker.add(data, n, two) && stacker.finish(two) == 2 &&
      nvjpegJpegStreamParseHeader(handle_, two.data(), two.size(), parse_) == NVJPEG_STATUS_SUCCESS) {
    int unsupported = 0;
    if (hardware_ && (nvjpegDecodeBatchedSupported(handle_, parse_, &unsupported) != NVJPEG_STATUS_SUCCESS)) unsupported = 1;
    info.stack = unsupported == 0;
  }
  return info;
}

std::vector<Slot*> Engine::acquire_slots(int n) {
  std::unique_lock lock(mu_);
  const int cap = kMaxSlots;
  n = std::min(n, cap);
  cv_.wait(lock, [&] { return static_cast<int>(free_slots_.size()) + (cap - created_) >= n; });
  std::vector<Slot*> out;
  while (static_cast<int>(out.size()) < n && !free_slots_.empty()) {
    out.push_back(free_slots_.back());
    free_slots_.pop_back();
  }
  while (static_cast<int>(out.size()) < n) {
    ++created_;
    lock.unlock();
    Slot* s = nullptr;
    try {
      s = create_slot();
    } catch (...) {
      lock.lock();
      --created_;
      for (Slot* t : out) free_slots_.push_back(t);
      cv_.notify_all();
      throw;
    }
    lock.lock();
    out.push_back(s);
  }
  return out;
}

void Engine::release_slots(const std::vector<Slot*>& slots) {
  {
    std::lock_guard lock(mu_);
    // In reverse, so the next acquire_slots gets them in the same order.
    for (auto it = slots.rbegin(); it != slots.rend(); ++it) free_slots_.push_back(*it);
  }
  cv_.notify_all();
}

nvjpegJpegState_t Engine::state_for(Slot& s, int n, nvjpegOutputFormat_t format, const TiledImage& t,
                                    std::size_t tiles_per_image, nvjpegStatus_t& st) {
  st = NVJPEG_STATUS_SUCCESS;
  for (State& x : s.states)
    if (x.batch == n && x.format == format) return x.state;
  s.states.push_back({});
  State* x = &s.states.back();
  if ((st = nvjpegJpegStateCreate(handle_, &x->state)) != NVJPEG_STATUS_SUCCESS) {
    s.states.pop_back();
    return nullptr;
  }
  x->batch = 0;
  if ((st = nvjpegDecodeBatchedInitialize(handle_, x->state, n, 1, format)) != NVJPEG_STATUS_SUCCESS) return nullptr;
  x->batch = n;
  x->format = format;
  // A memory pool sized for the batch (nvImageCodec measured > 20 % from this); failure is harmless.
  if (hardware_)
    nvjpegDecodeBatchedPreAllocate(handle_, x->state, n, static_cast<int>(t.tile_width),
                                   static_cast<int>(t.tile_height * static_cast<std::int64_t>(tiles_per_image)), NVJPEG_CSS_444, format);
  return x->state;
}

Staging* Engine::acquire_staging() {
  {
    std::lock_guard lock(mu_);
    if (!free_staging_.empty()) {
      Staging* s = free_staging_.back();
      free_staging_.pop_back();
      return s;
    }
  }
  return new Staging();  // kept for the process (see the class comment)
}

std::vector<cudaEvent_t> Engine::acquire_events(std::size_t n) {
  std::vector<cudaEvent_t> out;
  {
    std::lock_guard lock(mu_);
    while (out.size() < n && !free_events_.empty()) {
      out.push_back(free_events_.back());
      free_events_.pop_back();
    }
  }
  while (out.size() < n) {
    cudaEvent_t e = nullptr;
    CUSK_CUDA_CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
    out.push_back(e);
  }
  return out;
}

Slot* Engine::create_slot() {
  auto s = std::make_unique<Slot>();
  CUSK_CUDA_CHECK(cudaStreamCreateWithFlags(&s->stream, cudaStreamNonBlocking));
  // A feeder waits on its oldest slot while the others decode: blocking sync yields the core to
  // the host workers.
  CUSK_CUDA_CHECK(cudaEventCreateWithFlags(&s->done, cudaEventDisableTiming | cudaEventBlockingSync));
  return s.release();  // kept for the process
}

Engine& engine(int device) {
  static std::mutex mu;
  static std::map<int, Engine*> engines;
  static std::map<int, std::string> failures;
  std::lock_guard lock(mu);
  if (auto it = engines.find(device); it != engines.end()) return *it->second;
  if (auto it = failures.find(device); it != failures.end()) throw NotSupported(it->second);
  try {
    cuskimage::detail::DeviceGuard guard(device);
    Engine* e = new Engine(device);  // kept for the process
    engines[device] = e;
    return *e;
  } catch (const Error& e) {
    failures[device] = e.what();
    throw;
  }
}

/// The exact colour path's self-check, once per engine: one tile through nvJPEG's YCbCr output and
/// the colour kernel, against the host decoder. NVJPG (H200: measured) gives the host's bytes; more
/// than 4 levels apart anywhere, or a refused decode, turns the exact path off, the reason in
/// gpu_jpeg_decoder(). Then, when tiles are stacked, three copies of the tile as one stacked stream:
/// each copy must come out as the single tile did, byte for byte, else stacking is turned off.
/// Stream-ordered on a private stream (no device-wide synchronisation); the state is kept for the
/// process (destroying one may synchronise the device).
void self_check(Engine& eng, const TiledImage& t, std::uint64_t index, const LevelInfo& li, const FetchFn& fetch,
                const std::string& path, const Settings& set) {
  std::vector<unsigned char> raw, merged;
  fetch(t, index, raw);
  merge_jpeg_tables_into(t, raw, merged);
  const std::size_t rgb = tile_bytes(t, 3);
  std::vector<unsigned char> want(rgb);
  decode_tile(t, raw.data(), raw.size(), want.data(), static_cast<std::ptrdiff_t>(t.tile_width * 3), 3, path);
  static std::mutex mu;
  static nvjpegJpegState_t state = nullptr;
  static cudaStream_t st = nullptr;
  std::lock_guard lock(mu);
  if (!st) CUSK_CUDA_CHECK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
  // `stream` decoded as one image of m tiles, each converted to RGB: m tiles' bytes, or a status.
  const auto decode = [&](const std::vector<unsigned char>& stream, std::size_t m, std::vector<unsigned char>& got) {
    const Planes pl = planes_of(t, li.hs, li.vs, m);
    got.assign(rgb * m, 0);
    nvjpegStatus_t status = state ? NVJPEG_STATUS_SUCCESS : nvjpegJpegStateCreate(eng.handle(), &state);
    if (status == NVJPEG_STATUS_SUCCESS) status = nvjpegDecodeBatchedInitialize(eng.handle(), state, 1, 1, NVJPEG_OUTPUT_YUV);
    unsigned char* d = nullptr;
    const std::size_t jobs_at = align_up(pl.bytes + rgb * m, 256);
    CUSK_CUDA_CHECK(cudaMallocAsync(reinterpret_cast<void**>(&d), jobs_at + m * sizeof(YccJob), st));
    if (status == NVJPEG_STATUS_SUCCESS) {
      nvjpegImage_t img = planes_image(d, pl);
      const unsigned char* data = stream.data();
      const std::size_t length = stream.size();
      status = nvjpegDecodeBatched(eng.handle(), state, &data, &length, &img, st);
    }
    std::vector<YccJob> jobs(m);
    if (status == NVJPEG_STATUS_SUCCESS) {
      for (std::size_t q = 0; q < m; ++q) {
        jobs[q] = tile_job(d, pl, q, li, t);
        jobs[q].dst = d + pl.bytes + q * rgb, jobs[q].dst_pitch = static_cast<std::uint64_t>(t.tile_width * 3);
      }
      auto* dj = reinterpret_cast<YccJob*>(d + jobs_at);
      CUSK_CUDA_CHECK(cudaMemcpyAsync(dj, jobs.data(), m * sizeof(YccJob), cudaMemcpyHostToDevice, st));
      launch_ycc_jobs(dj, static_cast<int>(m), std::int64_t(t.tile_width) * t.tile_height, st);
      CUSK_CUDA_CHECK(cudaMemcpyAsync(got.data(), d + pl.bytes, rgb * m, cudaMemcpyDeviceToHost, st));
    }
    CUSK_CUDA_CHECK(cudaFreeAsync(d, st));
    CUSK_CUDA_CHECK(cudaStreamSynchronize(st));
    return status;
  };
  std::vector<unsigned char> got;
  if (const nvjpegStatus_t status = decode(merged, 1, got); status != NVJPEG_STATUS_SUCCESS) {
    eng.exact_failed("self-check: " + status_text(status) + " for YCbCr output");
    return;
  }
  int worst = 0;
  std::size_t differ = 0;
  for (std::size_t i = 0; i < rgb; ++i) {
    const int diff = std::abs(int(want[i]) - int(got[i]));
    worst = std::max(worst, diff);
    differ += diff != 0;
  }
  const std::string what = "self-check on a " + std::to_string(t.tile_width) + "x" + std::to_string(t.tile_height) +
                           " tile: " + (differ == 0 ? std::string("bit-identical to the host decoder")
                                                    : std::to_string(differ) + " of " + std::to_string(rgb) +
                                                          " samples differ, at most by " + std::to_string(worst));
  if (worst > 4) {
    eng.exact_failed(what);
    return;
  }
  eng.self_check_result(what);
  if (eng.stack(set) <= 1 || !li.stack) return;
  std::vector<unsigned char> three, got3;
  if (!stack_jpeg_streams({&merged, &merged, &merged}, three)) {
    eng.stack_failed("self-check: the tile does not stack");
    return;
  }
  if (const nvjpegStatus_t status = decode(three, 3, got3); status != NVJPEG_STATUS_SUCCESS) {
    eng.stack_failed("self-check: " + status_text(status) + " for a stacked stream");
    return;
  }
  for (std::size_t q = 0; q < 3; ++q)
    if (!std::equal(got.begin(), got.end(), got3.begin() + static_cast<std::ptrdiff_t>(q * rgb))) {
      eng.stack_failed("self-check: copy " + std::to_string(q) + " of a stacked tile differs from the tile decoded alone");
      return;
    }
}

}  // namespace nvj

std::string gpu_jpeg_decoder_info(int device) {
  if (device < 0 || device >= cuda_device_count()) return "none: no CUDA device " + std::to_string(device);
  try {
    return nvj::engine(device).description(nvj::settings_of(tuning::wsi_nvjpeg_policy()));
  } catch (const Error& e) {
    return std::string("none: ") + e.what();
  }
}

#endif

}  // namespace cuskimage::wsi::detail
