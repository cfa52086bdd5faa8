// Device reads through nvJPEG, with the host decoder alongside (builds with CUSK_HAVE_NVJPEG).
//
// One Engine per GPU: an nvJPEG handle on the hardware backend (the NVJPG engines of A100/H100/H200:
// baseline JPEG, 4:4:4/4:2:2/4:2:0) when nvJPEG can create one, else its default (CUDA) backend, and
// a pool of decode slots -- a non-blocking stream, a completion event, nvJPEG states (one per batch
// size: re-initialising a state for another size costs), the host JPEG streams of the batch in
// flight, device scratch and the batch's colour jobs. A state decodes one batch at a time, so
// throughput comes from several slots in flight.
//
// Colour (CUSK_WSI_NVJPEG_COLOR): NVJPG's own RGB output upsamples 4:2:0/4:2:2 chroma by
// replication (libjpeg's "simple" upsampling; measured on the H200: its pixels equal libjpeg-turbo's
// with do_fancy_upsampling = FALSE, sample for sample, so its IDCT is libjpeg's ISLOW), while the
// host path -- and OpenSlide -- use libjpeg's fancy (triangle) upsampling: up to 35 levels apart at
// chroma edges, mean 4.6 on a busy reduced level. So by default ("exact") nvJPEG writes the tiles'
// YCbCr planes into scratch and one kernel per batch (kernels/wsi/ycc_jobs.cu, src/wsi/ycc.hpp)
// upsamples and converts them as libjpeg-turbo does, writing each part straight into its output:
// no RGB scratch, no crop copies, any alignment, and the host decoder's bytes. On that path runs of
// up to CUSK_WSI_NVJPEG_STACK (8) tiles of a level go to nvJPEG as one image (JpegStacker, built
// from the stored tiles: one frame, a restart interval per tile): the decoder's cost per image is
// paid once per stack (H200, exact path: 36 k -> 71-75 k tiles/s), and
// the planes are the tiles' own (the kernel upsamples each tile within its own rows). A self-check
// (three copies of a tile stacked must decode as the tile alone) or a refused stack turns it off.
// "nvjpeg" keeps
// nvJPEG's RGB output (interleaved, in place for whole aligned tiles), with the handle's
// NVJPEG_FLAGS_UPSAMPLING_WITH_INTERPOLATION (CUSK_WSI_NVJPEG_INTERP=0 drops it).
//
// device_decode: the units (a tile and its parts) are sorted by their host cost, most expensive
// first (a tile needed only in part is cheaper for the host: decode_tile_part). Feeders take
// batches from that end and host workers single units from the other:
//   * feeders (1-2 threads, CUSK_WSI_NVJPEG_DEPTH slots each): wait for their oldest slot, take a
//     batch, pread + merge its tiles with the level's JPEGTables into the slot's host buffers (the
//     other slots decode meanwhile), nvjpegDecodeBatched on the slot's stream, then the colour
//     kernel (or crops); an event marks completion. A feeder takes a batch only while the GPU's
//     tiles in flight plus the batch take no longer (at the measured GPU rate) than the host
//     workers need for what would be left (at their measured rate): both sides finish together.
//     The first batches of a read are small (CUSK_WSI_NVJPEG_RAMP) so the engines start early;
//   * host workers (hybrid): take one unit at a time, decode it with libjpeg-turbo into a pinned
//     staging ring (a single part: only that part) and copy the parts up on their own stream.
// Levels the GPU decoder rejects (nvjpegDecodeBatchedSupported on the hardware backend, a frame size
// other than the tile's, a subsampling other than 4:4:4/4:2:2/4:2:0) and batches nvJPEG fails go to
// the host decoder. Every stream used is joined back into the caller's stream by events; nothing
// synchronizes the device. Knobs (environment, read once): CUSK_WSI_NVJPEG_BATCH (largest batch,
// 128), _MIN_CHUNK (8), _RAMP (32), _DEPTH (2), _SLOTS (cap, 16), _FEEDERS, _POW2 (1: batch sizes
// rounded down to powers of two, a state per size; 0: one state re-initialised per size), _SPIN (0:
// feeders block on events; 1: spin), _NO_PIPELINE (0), _SHARE (0: the rule; 1-100: a fixed GPU share
// of the units, percent), _STACK (8: tiles per image on the exact path; 1: one tile per image),
// CUSK_WSI_HOST_WORKERS (hybrid host workers).
//
// Bytes moved per 256² tile: ~10-20 KB compressed host->device, 98 KB of YCbCr planes written and
// read, 196,608 B of RGB written; the floor is the decoders' throughput, not HBM: the NVJPG engines'
// rate (71-75 k tiles/s on the H200 with stacks of 8, ~36 k one tile per image) plus the host
// workers' libjpeg-turbo rate (~3,100 tiles/s
// per core on its host), and PCIe for the host-decoded tiles (8 GB/s at 40,000 tiles/s, pinned).
#include "src/wsi/wsi_detail.hpp"

#include <algorithm>
#include <atomic>

namespace cuskimage::wsi::detail {
namespace {
std::atomic<int> g_colour_override{0};
std::atomic<int> g_stack_override{0};
}
void set_nvjpeg_colour_for_testing(int mode) { g_colour_override = mode; }
void set_nvjpeg_stack_for_testing(int tiles) { g_stack_override = tiles; }

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
#include <cuda_runtime.h>
#include <library_types.h>
#include <nvjpeg.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <map>
#include <mutex>
#include <numeric>
#include <thread>

#include "src/core/cuda_check.hpp"
#include "src/core/device_guard.hpp"
#include "src/wsi/ycc.hpp"
#endif

namespace cuskimage::wsi::detail {

#if !CUSK_HAVE_NVJPEG
std::string gpu_jpeg_decoder_info(int) {
  return "none: this build has no nvJPEG (configure with a CUDA toolkit that has it, or -DCUSK_NVJPEG_ROOT=<nvidia-nvjpeg "
         "wheel>); device reads decode on the host";
}
#else
namespace {

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

std::string status_text(nvjpegStatus_t s) { return "nvJPEG status " + std::to_string(static_cast<int>(s)); }

int env_int(const char* name, int fallback, int lo, int hi) {
  const char* v = std::getenv(name);
  if (!v || !*v) return fallback;
  return std::clamp(std::atoi(v), lo, hi);
}

/// The knobs of the module comment, read once.
struct Knobs {
  int batch = env_int("CUSK_WSI_NVJPEG_BATCH", 128, 1, 4096);
  int min_chunk = env_int("CUSK_WSI_NVJPEG_MIN_CHUNK", 8, 1, 4096);
  int ramp = env_int("CUSK_WSI_NVJPEG_RAMP", 32, 0, 4096);
  int depth = env_int("CUSK_WSI_NVJPEG_DEPTH", 2, 1, 16);
  int slots = env_int("CUSK_WSI_NVJPEG_SLOTS", 16, 2, 64);
  bool pow2 = env_int("CUSK_WSI_NVJPEG_POW2", 1, 0, 1) != 0;
  bool spin = env_int("CUSK_WSI_NVJPEG_SPIN", 0, 0, 1) != 0;
  bool interp = env_int("CUSK_WSI_NVJPEG_INTERP", 1, 0, 1) != 0;
  bool no_pipeline = env_int("CUSK_WSI_NVJPEG_NO_PIPELINE", 0, 0, 1) != 0;
  int share = env_int("CUSK_WSI_NVJPEG_SHARE", 0, 0, 100);  // > 0: a fixed GPU share (percent of the units) instead of the rule
  int stack = env_int("CUSK_WSI_NVJPEG_STACK", 8, 1, 64);  // tiles per stacked stream (exact colour path)
};
const Knobs& knobs() {
  static const Knobs k;
  return k;
}

enum Colour { kExact = 1, kNvjpegRgb = 2 };
int colour_mode() {
  if (const int o = g_colour_override.load(); o == kExact || o == kNvjpegRgb) return o;
  static const int m = [] {
    const char* v = std::getenv("CUSK_WSI_NVJPEG_COLOR");
    return v && std::string(v) == "nvjpeg" ? kNvjpegRgb : kExact;
  }();
  return m;
}

/// Tiles per stacked stream now (the testing override, else the knob).
std::size_t stack_tiles() {
  const int o = g_stack_override.load();
  return static_cast<std::size_t>(o > 0 ? o : knobs().stack);
}

std::size_t align_up(std::size_t v, std::size_t a) { return (v + a - 1) / a * a; }
std::size_t floor_pow2(std::size_t v) {
  std::size_t p = 1;
  while (p * 2 <= v) p *= 2;
  return p;
}

/// Where the YCbCr planes of one decoded image -- a tile, or a stack of m tiles one below the
/// other -- lie in a slot's scratch (exact colour path): 64-byte row pitches, 256-byte aligned
/// planes. Tile q of a stack: its Y rows from q * tile_height, its chroma rows from q * ch.
struct Planes {
  std::size_t y_pitch, c_pitch, cb, cr, bytes;  // cb, cr: offsets from the image's base
  int cw, ch;                                   // one tile's chroma plane
  std::size_t y_tile, c_tile;                   // bytes from one tile's plane rows to the next tile's
};
Planes planes_of(const TiledImage& t, int hs, int vs, std::size_t m = 1) {
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

/// What the GPU decoder makes of a level (decided per read from its first tile).
struct LevelInfo {
  bool gpu = false;
  bool stack = false;  // its tiles stack (stack_jpeg_streams) and the GPU decoder takes the stack
  int hs = 1, vs = 1;  // chroma subsampling
};

/// The colour job of the whole of tile q of an image of `t`'s level decoded at `base` (planes `pl`);
/// callers point it at its output and narrow it to the part they need.
YccJob tile_job(const unsigned char* base, const Planes& pl, std::size_t q, const LevelInfo& li, const TiledImage& t) {
  YccJob j;
  j.y = base + q * pl.y_tile, j.cb = base + pl.cb + q * pl.c_tile, j.cr = base + pl.cr + q * pl.c_tile;
  j.y_pitch = static_cast<std::int32_t>(pl.y_pitch), j.c_pitch = static_cast<std::int32_t>(pl.c_pitch);
  j.cw = pl.cw, j.ch = pl.ch, j.hs = li.hs, j.vs = li.vs;
  j.w = static_cast<std::int32_t>(t.tile_width), j.h = static_cast<std::int32_t>(t.tile_height);
  return j;
}

/// nvJPEG's output descriptor for the YCbCr planes `pl` of an image decoded at `base`.
nvjpegImage_t planes_image(unsigned char* base, const Planes& pl) {
  nvjpegImage_t img{};
  img.channel[0] = base, img.pitch[0] = pl.y_pitch;
  img.channel[1] = base + pl.cb, img.pitch[1] = pl.c_pitch;
  img.channel[2] = base + pl.cr, img.pitch[2] = pl.c_pitch;
  return img;
}

struct State {
  nvjpegJpegState_t state = nullptr;
  int batch = 0;  // initialised for (0: not)
  nvjpegOutputFormat_t format = NVJPEG_OUTPUT_RGBI;
};

struct Slot {
  cudaStream_t stream = nullptr;
  cudaEvent_t done = nullptr;
  bool pending = false;   // `done` is recorded for a batch not yet seen finished
  std::size_t tiles = 0;  // tiles of that batch
  std::vector<State> states;
  std::vector<std::vector<unsigned char>> streams;  // the host JPEG streams of the batch in flight (per image)
  std::vector<unsigned char> raw;
  unsigned char* scratch = nullptr;  // device: YCbCr planes (exact) or RGB tiles needed in part (nvJPEG RGB)
  std::size_t scratch_bytes = 0;
  YccJob* jobs_host = nullptr;  // pinned
  YccJob* jobs_dev = nullptr;
  std::size_t jobs_cap = 0;
  // Reused per batch.
  std::vector<const unsigned char*> data;
  std::vector<std::size_t> lengths;
  std::vector<nvjpegImage_t> images;
  std::vector<std::size_t> offset;  // nvJPEG RGB path, per tile of the batch: its scratch offset (~0: in place)
  struct Group {
    std::size_t first, count, offset;  // tiles [first, first + count) of the batch as one image; its scratch offset
  };
  std::vector<Group> groups;  // exact colour path: the batch's images (streams[g]: group g's stream)
  JpegStacker stacker;
};

/// Whether nvJPEG's RGB output goes straight into the output: a unit of one whole tile at a 16-byte
/// aligned address and pitch (others decode into scratch and are copied out on the device).
bool in_place(const DevicePart& p) {
  return p.x0 == 0 && p.y0 == 0 && p.x1 == p.image->tile_width && p.y1 == p.image->tile_height &&
         reinterpret_cast<std::uintptr_t>(p.dst) % 16 == 0 && p.pitch % 16 == 0;
}

/// Pinned staging of one host worker: a ring of buffers, each with the event of its last copy.
struct Staging {
  cudaStream_t stream = nullptr;
  struct Buf {
    unsigned char* p = nullptr;
    std::size_t bytes = 0;
    cudaEvent_t copied = nullptr;
    bool pending = false;
  };
  static constexpr int kRing = 4;
  Buf ring[kRing];
  int next = 0;

  Staging() {
    CUSK_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    for (Buf& b : ring) CUSK_CUDA_CHECK(cudaEventCreateWithFlags(&b.copied, cudaEventDisableTiming));
  }
  /// The next ring buffer with at least `bytes`, its previous copy finished.
  Buf& take(std::size_t bytes) {
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
  void copied(Buf& b) {
    CUSK_CUDA_CHECK(cudaEventRecord(b.copied, stream));
    b.pending = true;
  }
};

/// One GPU's nvJPEG handle, slots, host stagings, join events and rate estimates. Never destroyed
/// (freeing CUDA resources from static destructors races the runtime's own teardown).
class Engine {
 public:
  explicit Engine(int device) {
    int major = 0, minor = 0, patch = 0;
    nvjpegGetProperty(MAJOR_VERSION, &major);
    nvjpegGetProperty(MINOR_VERSION, &minor);
    nvjpegGetProperty(PATCH_LEVEL, &patch);
    const std::string version = "nvJPEG " + std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch);
    const Knobs& k = knobs();
    unsigned flags = NVJPEG_FLAGS_DEFAULT;
#ifdef NVJPEG_FLAGS_UPSAMPLING_WITH_INTERPOLATION
    if (k.interp && (major > 12 || (major == 12 && minor >= 1))) flags |= NVJPEG_FLAGS_UPSAMPLING_WITH_INTERPOLATION;
#endif
    if (k.no_pipeline) flags |= NVJPEG_FLAGS_HW_DECODE_NO_PIPELINE;
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

  nvjpegHandle_t handle() const { return handle_; }
  bool hardware() const { return hardware_; }
  std::string description() {
    std::lock_guard lock(mu_);
    std::string colour;
    if (colour_mode() == kExact && exact_failure_.empty())
      colour = "colour: exact (YCbCr planes; libjpeg-turbo's fancy upsampling and conversion on the GPU" +
               (self_check_.empty() ? std::string() : "; " + self_check_) + ")" +
               (stack_tiles() <= 1 ? std::string(", one tile per image")
                : stack_failure_.empty() ? ", up to " + std::to_string(stack_tiles()) + " tiles stacked per image"
                                         : ", tiles not stacked: " + stack_failure_);
    else
      colour = std::string("colour: nvJPEG RGB (") + (interpolating_ ? "interpolated" : "replicated") + " chroma upsampling" +
               (exact_failure_.empty() ? "" : "; exact path unavailable: " + exact_failure_) + ")";
    return description_ + ", " + colour + flag_note_;
  }

  /// Whether batches use the exact colour path now.
  bool exact() {
    if (colour_mode() != kExact) return false;
    std::lock_guard lock(mu_);
    return exact_failure_.empty();
  }
  void exact_failed(const std::string& why) {
    std::lock_guard lock(mu_);
    if (exact_failure_.empty()) exact_failure_ = why;
  }
  /// Tiles per image on the exact path now (1 once stacking failed).
  std::size_t stack() {
    if (stack_tiles() <= 1) return 1;
    std::lock_guard lock(mu_);
    return stack_failure_.empty() ? stack_tiles() : 1;
  }
  void stack_failed(const std::string& why) {
    std::lock_guard lock(mu_);
    if (stack_failure_.empty()) stack_failure_ = why;
  }
  /// Runs `check` once per engine (the exact path's self-check; see self_check).
  template <class F>
  void self_check_once(F&& check) {
    std::call_once(self_check_flag_, std::forward<F>(check));
  }
  void self_check_result(const std::string& what) {
    std::lock_guard lock(mu_);
    self_check_ = what;
  }

  /// What the GPU decoder makes of the complete JPEG stream `data` of a tw x th tile (whole tiles
  /// land in place, so the frame must be the tile's size).
  LevelInfo supports(const unsigned char* data, std::size_t n, std::int64_t tw, std::int64_t th) {
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

  /// n slots for one feeder, all at once (so concurrent reads cannot deadlock on partial sets).
  std::vector<Slot*> acquire_slots(int n) {
    std::unique_lock lock(mu_);
    const int cap = knobs().slots;
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
  void release_slots(const std::vector<Slot*>& slots) {
    {
      std::lock_guard lock(mu_);
      // In reverse, so the next acquire_slots gets them in the same order.
      for (auto it = slots.rbegin(); it != slots.rend(); ++it) free_slots_.push_back(*it);
    }
    cv_.notify_all();
  }

  /// The state of `s` for batches of n tiles in `format`, initialised (one per size and format;
  /// without CUSK_WSI_NVJPEG_POW2 one state, re-initialised when they change). nullptr and `st`
  /// set when nvJPEG refuses.
  nvjpegJpegState_t state_for(Slot& s, int n, nvjpegOutputFormat_t format, const TiledImage& t, std::size_t tiles_per_image,
                              nvjpegStatus_t& st) {
    st = NVJPEG_STATUS_SUCCESS;
    for (State& x : s.states)
      if (x.batch == n && x.format == format) return x.state;
    State* x = nullptr;
    if (!knobs().pow2 && !s.states.empty()) {
      x = &s.states.front();
    } else {
      s.states.push_back({});
      x = &s.states.back();
      if ((st = nvjpegJpegStateCreate(handle_, &x->state)) != NVJPEG_STATUS_SUCCESS) {
        s.states.pop_back();
        return nullptr;
      }
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

  Staging* acquire_staging() {
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
  void release_staging(Staging* s) {
    std::lock_guard lock(mu_);
    free_staging_.push_back(s);
  }

  /// Timing-free events for joining streams into the caller's, reused.
  std::vector<cudaEvent_t> acquire_events(std::size_t n) {
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
  void release_events(const std::vector<cudaEvent_t>& events) {
    std::lock_guard lock(mu_);
    free_events_.insert(free_events_.end(), events.begin(), events.end());
  }

  /// Rates that balance the GPU and the host workers: GPU tiles/s, host cost units/s per worker.
  void rates(double& gpu, double& host) {
    std::lock_guard lock(mu_);
    gpu = gpu_rate_, host = host_rate_;
  }
  void observe_rates(double gpu, double host) {
    std::lock_guard lock(mu_);
    if (gpu > 0) gpu_rate_ = 0.6 * gpu_rate_ + 0.4 * gpu;
    if (host > 0) host_rate_ = 0.6 * host_rate_ + 0.4 * host;
  }

 private:
  Slot* create_slot() {
    auto s = std::make_unique<Slot>();
    CUSK_CUDA_CHECK(cudaStreamCreateWithFlags(&s->stream, cudaStreamNonBlocking));
    // A feeder waits on its oldest slot while the others decode: blocking sync yields the core to
    // the host workers (CUSK_WSI_NVJPEG_SPIN=1: spin instead).
    CUSK_CUDA_CHECK(cudaEventCreateWithFlags(&s->done, cudaEventDisableTiming | (knobs().spin ? 0u : cudaEventBlockingSync)));
    return s.release();  // kept for the process
  }

  nvjpegHandle_t handle_ = nullptr;
  nvjpegJpegStream_t parse_ = nullptr;
  std::mutex parse_mu_;
  bool hardware_ = false, interpolating_ = false;
  std::string description_, flag_note_, exact_failure_, self_check_, stack_failure_;
  std::once_flag self_check_flag_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<Slot*> free_slots_;
  int created_ = 0;
  std::vector<Staging*> free_staging_;
  std::vector<cudaEvent_t> free_events_;
  double gpu_rate_ = 40000.0, host_rate_ = 3000.0;
};

/// The engine of `device`, started on first use; the reason nvJPEG could not start is kept and
/// thrown again (NotSupported) without retrying.
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
                const std::string& path) {
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
  if (eng.stack() <= 1 || !li.stack) return;
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

}  // namespace

std::string gpu_jpeg_decoder_info(int device) {
  if (device < 0 || device >= cuda_device_count()) return "none: no CUDA device " + std::to_string(device);
  try {
    return engine(device).description();
  } catch (const Error& e) {
    return std::string("none: ") + e.what();
  }
}

DeviceDecodeCounts device_decode(int device, const std::vector<DevicePart>& parts, const std::vector<DeviceUnit>& units,
                                 int feeders, int host_workers, const FetchFn& fetch, const std::string& path,
                                 cudaStream_t stream) {
  cuskimage::detail::DeviceGuard guard(device);
  Engine& eng = engine(device);
  const Knobs& kn = knobs();
  DeviceDecodeCounts counts;
  if (units.empty()) return counts;

  // Which levels the GPU takes: the first tile of each level in this read decides.
  std::map<const TiledImage*, LevelInfo> levels;
  {
    std::vector<unsigned char> raw, merged;
    for (const DevicePart& p : parts) {
      if (levels.count(p.image)) continue;
      fetch(*p.image, p.index, raw);
      merge_jpeg_tables_into(*p.image, raw, merged);
      levels[p.image] = eng.supports(merged.data(), merged.size(), p.image->tile_width, p.image->tile_height);
    }
  }
  // The GPU's units, most expensive for the host first (feeders take from the front, host workers
  // from the back); units of levels it rejects go to the host workers first.
  const auto& level_of = [&levels](const TiledImage* t) -> const LevelInfo& { return levels.at(t); };
  std::vector<std::size_t> order, host_only;
  for (std::size_t u = 0; u < units.size(); ++u) (level_of(parts[units[u].first].image).gpu ? order : host_only).push_back(u);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return units[a].host_cost > units[b].host_cost; });
  std::vector<double> prefix(order.size() + 1, 0.0);  // host cost of order[0, i)
  for (std::size_t i = 0; i < order.size(); ++i) prefix[i + 1] = prefix[i] + units[order[i]].host_cost;

  if (!order.empty() && eng.exact()) {
    const DevicePart& p = parts[units[order.front()].first];
    eng.self_check_once([&] { self_check(eng, *p.image, p.index, level_of(p.image), fetch, path); });
  }

  const int nf = order.empty() ? 0 : std::max(1, env_int("CUSK_WSI_NVJPEG_FEEDERS", feeders, 1, 8));
  // Host workers: never more than there are units.
  const int nh = std::max(std::min(host_workers > 0 ? env_int("CUSK_WSI_HOST_WORKERS", host_workers, 0, 256) : 0,
                                   static_cast<int>(std::min<std::size_t>(units.size(), 256))),
                          nf == 0 ? 1 : 0);
  double gpu_rate = 0, host_rate = 0;
  eng.rates(gpu_rate, host_rate);
  const double host_total_rate = host_rate * nh;

  // Everything below runs after the caller's stream has allocated and filled the outputs.
  std::vector<cudaEvent_t> ready_v = eng.acquire_events(1);
  cudaEvent_t ready = ready_v[0];
  CUSK_CUDA_CHECK(cudaEventRecord(ready, stream));

  std::mutex queue_mu;
  std::size_t front = 0, back = order.size();  // order[front, back) is left
  std::atomic<std::size_t> next_host_only{0};
  std::atomic<std::int64_t> in_flight{0};  // GPU tiles taken and not seen finished
  std::atomic<bool> stop{false}, gpu_failed{false};
  std::atomic<std::uint64_t> n_gpu{0}, n_host{0}, n_exact{0};
  std::mutex stats_mu;
  const Clock::time_point t_start = Clock::now();
  double gpu_first = -1, gpu_last = -1, host_cost_done = 0, host_busy = 0;

  const auto take_host_unit = [&](std::size_t& u) {
    if (const std::size_t i = next_host_only.fetch_add(1); i < host_only.size()) {
      u = host_only[i];
      return true;
    }
    std::lock_guard lock(queue_mu);
    if (back <= front) return false;
    u = order[--back];
    return true;
  };

  // A unit on the host decoder: into pinned staging, then the parts' copies up.
  const auto host_unit = [&](Staging& st, const DeviceUnit& u, std::vector<unsigned char>& raw) {
    const DevicePart& p0 = parts[u.first];
    const TiledImage& t = *p0.image;
    fetch(t, p0.index, raw);
    if (u.count == 1) {
      const std::size_t row = static_cast<std::size_t>(p0.x1 - p0.x0) * 3, h = static_cast<std::size_t>(p0.y1 - p0.y0);
      Staging::Buf& b = st.take(row * h);
      decode_tile_part(t, raw.data(), raw.size(), p0.x0, p0.y0, p0.x1, p0.y1, b.p, static_cast<std::ptrdiff_t>(row), 3, path);
      CUSK_CUDA_CHECK(cudaMemcpy2DAsync(p0.dst, p0.pitch, b.p, row, row, h, cudaMemcpyHostToDevice, st.stream));
      st.copied(b);
    } else {
      const std::size_t tp = static_cast<std::size_t>(t.tile_width) * 3;
      Staging::Buf& b = st.take(tile_bytes(t, 3));
      decode_tile(t, raw.data(), raw.size(), b.p, static_cast<std::ptrdiff_t>(tp), 3, path);
      for (std::size_t k = u.first; k < u.first + u.count; ++k) {
        const DevicePart& p = parts[k];
        CUSK_CUDA_CHECK(cudaMemcpy2DAsync(p.dst, p.pitch, b.p + static_cast<std::size_t>(p.y0) * tp + static_cast<std::size_t>(p.x0) * 3,
                                          tp, static_cast<std::size_t>(p.x1 - p.x0) * 3, static_cast<std::size_t>(p.y1 - p.y0),
                                          cudaMemcpyHostToDevice, st.stream));
      }
      st.copied(b);
    }
    ++n_host;
  };

  // Each role marks the end of its streams' work with events of this call (`joins`: depth per
  // feeder plus one staging per role); the calling thread makes `stream` wait for them (a
  // per-thread default stream names another stream on each thread, so only the caller may).
  const int roles = nf + nh;
  const std::size_t per_role = static_cast<std::size_t>(kn.depth) + 1;
  std::vector<cudaEvent_t> joins = eng.acquire_events(per_role * static_cast<std::size_t>(roles));
  std::vector<char> joined(joins.size(), 0);
  struct JoinGuard {
    Engine& eng;
    std::vector<cudaEvent_t>& joins;
    std::vector<char>& joined;
    std::vector<cudaEvent_t>& ready;
    cudaStream_t stream;
    ~JoinGuard() {
      for (std::size_t i = 0; i < joins.size(); ++i)
        if (joined[i]) cudaStreamWaitEvent(stream, joins[i], 0);
      eng.release_events(joins);  // re-recording after the waits are queued is safe
      eng.release_events(ready);
    }
  } join_guard{eng, joins, joined, ready_v, stream};

  // A host staging for the scope of one role; its copies are marked in `join` at the end.
  struct StagingScope {
    Engine& eng;
    cudaEvent_t ready, join;
    char& joined;
    Staging* st = nullptr;
    Staging& get() {
      if (!st) {
        st = eng.acquire_staging();
        CUSK_CUDA_CHECK(cudaStreamWaitEvent(st->stream, ready, 0));
      }
      return *st;
    }
    ~StagingScope() {
      if (!st) return;
      if (cudaEventRecord(join, st->stream) == cudaSuccess) joined = 1;
      eng.release_staging(st);
    }
  };

  const auto host_worker = [&](std::size_t r) {
    cuskimage::detail::DeviceGuard role_guard(device);
    const std::size_t j = per_role * r + per_role - 1;
    StagingScope scope{eng, ready, joins[j], joined[j]};
    std::vector<unsigned char> raw;
    double cost = 0, busy = 0;
    std::size_t u;
    while (!stop && take_host_unit(u)) {
      const Clock::time_point t0 = Clock::now();
      host_unit(scope.get(), units[u], raw);
      busy += seconds_since(t0);
      cost += units[u].host_cost;
    }
    std::lock_guard lock(stats_mu);
    host_cost_done += cost;
    host_busy += busy;
  };

  const auto feeder = [&](std::size_t r) {
    cuskimage::detail::DeviceGuard role_guard(device);
    const std::vector<Slot*> slots = eng.acquire_slots(kn.depth);
    const std::size_t jbase = per_role * r;
    struct SlotScope {
      Engine& eng;
      const std::vector<Slot*>& slots;
      cudaEvent_t* join;
      char* joined;
      std::vector<bool> used;
      ~SlotScope() {
        for (std::size_t i = 0; i < slots.size(); ++i)
          if (used[i] && cudaEventRecord(join[i], slots[i]->stream) == cudaSuccess) joined[i] = 1;
        eng.release_slots(slots);
      }
    } slot_scope{eng, slots, &joins[jbase], &joined[jbase], std::vector<bool>(slots.size(), false)};
    for (Slot* s : slots)
      if (s->pending) {  // left by a read that ended in an exception
        cudaEventSynchronize(s->done);
        s->pending = false;
      }
    const std::size_t hj = jbase + per_role - 1;
    StagingScope host{eng, ready, joins[hj], joined[hj]};  // for batches nvJPEG fails, and host units at the end
    std::vector<unsigned char> raw;
    std::vector<YccJob> jobs;
    std::size_t which = 0;
    std::size_t ramp = kn.ramp > 0 ? static_cast<std::size_t>(kn.ramp) : static_cast<std::size_t>(kn.batch);

    const auto wait_slot = [&](Slot& s) {
      if (!s.pending) return;
      CUSK_CUDA_CHECK(cudaEventSynchronize(s.done));
      s.pending = false;
      in_flight -= static_cast<std::int64_t>(s.tiles);
      const double t = seconds_since(t_start);
      std::lock_guard lock(stats_mu);
      gpu_last = std::max(gpu_last, t);
    };
    const auto any_pending = [&] {
      for (std::size_t i = 0; i < slots.size(); ++i)
        if (slots[(which + i) % slots.size()]->pending) return (which + i) % slots.size();
      return slots.size();
    };

    // One batch: order[b, b + c) on slot s; on the exact path runs of up to k tiles of one level as
    // one stacked image. false: nvJPEG refused it (`refused` says how; nothing was queued).
    nvjpegStatus_t refused = NVJPEG_STATUS_SUCCESS;
    const auto submit = [&](Slot& s, std::size_t b, std::size_t c, bool exact, std::size_t k) -> bool {
      std::size_t scratch_need = 0;
      s.groups.clear();
      if (exact) {
        // One image per group: a stack built straight from the tiles as stored (one copy each),
        // or a single tile merged with its tables. A tile another header refuses starts the next group.
        std::size_t i = 0;
        bool have_next = false;  // s.raw holds tile i already (fetched by the last group's refusal)
        while (i < c) {
          const DevicePart& p = parts[units[order[b + i]].first];
          const TiledImage* img = p.image;
          const LevelInfo& li = level_of(img);
          if (!have_next) fetch(*img, p.index, s.raw);
          have_next = false;
          const std::size_t g = s.groups.size();
          if (s.streams.size() <= g) s.streams.resize(g + 1);
          std::size_t m = 1;
          if (k > 1 && li.stack && s.stacker.begin(img->jpeg_tables, s.raw.data(), s.raw.size(), s.streams[g])) {
            while (m < k && i + m < c) {
              const DevicePart& q = parts[units[order[b + i + m]].first];
              if (q.image != img) break;
              fetch(*img, q.index, s.raw);
              if (!s.stacker.add(s.raw.data(), s.raw.size(), s.streams[g])) {
                have_next = true;
                break;
              }
              ++m;
            }
            s.stacker.finish(s.streams[g]);
          } else {
            merge_jpeg_tables_into(*img, s.raw, s.streams[g]);
          }
          s.groups.push_back({i, m, scratch_need});
          scratch_need += planes_of(*img, li.hs, li.vs, m).bytes;
          i += m;
        }
      } else {
        if (s.streams.size() < c) s.streams.resize(c);
        s.offset.assign(c, ~std::size_t(0));
        for (std::size_t i = 0; i < c; ++i) {
          const DeviceUnit& u = units[order[b + i]];
          const DevicePart& p = parts[u.first];
          fetch(*p.image, p.index, s.raw);
          merge_jpeg_tables_into(*p.image, s.raw, s.streams[i]);
          if (!(u.count == 1 && in_place(p))) {
            s.offset[i] = scratch_need;
            scratch_need += align_up(tile_bytes(*p.image, 3), 256);
          }
        }
      }
      if (scratch_need > s.scratch_bytes) {
        if (s.scratch) CUSK_CUDA_CHECK(cudaFreeAsync(s.scratch, s.stream));
        s.scratch = nullptr;
        s.scratch_bytes = 0;
        const std::size_t bytes = std::max(scratch_need, scratch_need / std::max<std::size_t>(c, 1) * static_cast<std::size_t>(kn.batch));
        CUSK_CUDA_CHECK(cudaMallocAsync(reinterpret_cast<void**>(&s.scratch), bytes, s.stream));
        s.scratch_bytes = bytes;
      }
      const std::size_t n = exact ? s.groups.size() : c;  // images handed to nvJPEG
      s.data.resize(n);
      s.lengths.resize(n);
      s.images.assign(n, nvjpegImage_t{});
      std::size_t most = 1;  // tiles in the largest image
      if (exact) {
        for (std::size_t g = 0; g < n; ++g) {
          const Slot::Group& gr = s.groups[g];
          s.data[g] = s.streams[g].data();
          s.lengths[g] = s.streams[g].size();
          const TiledImage& t = *parts[units[order[b + gr.first]].first].image;
          const LevelInfo& li = level_of(&t);
          const Planes pl = planes_of(t, li.hs, li.vs, gr.count);
          s.images[g] = planes_image(s.scratch + gr.offset, pl);
          most = std::max(most, gr.count);
        }
      } else {
        for (std::size_t i = 0; i < n; ++i) {
          const DevicePart& p = parts[units[order[b + i]].first];
          s.data[i] = s.streams[i].data();
          s.lengths[i] = s.streams[i].size();
          if (s.offset[i] == ~std::size_t(0)) {
            s.images[i].channel[0] = p.dst;
            s.images[i].pitch[0] = p.pitch;
          } else {
            s.images[i].channel[0] = s.scratch + s.offset[i];
            s.images[i].pitch[0] = static_cast<std::size_t>(p.image->tile_width) * 3;
          }
        }
      }
      const nvjpegOutputFormat_t format = exact ? NVJPEG_OUTPUT_YUV : NVJPEG_OUTPUT_RGBI;
      nvjpegStatus_t st = NVJPEG_STATUS_SUCCESS;
      nvjpegJpegState_t state = eng.state_for(s, static_cast<int>(n), format, *parts[units[order[b]].first].image, std::max(k, most), st);
      if (state) st = nvjpegDecodeBatched(eng.handle(), state, s.data.data(), s.lengths.data(), s.images.data(), s.stream);
      if (st != NVJPEG_STATUS_SUCCESS) {
        for (State& x : s.states)
          if (x.state == state) x.batch = 0;  // re-initialise before the next use
        refused = st;
        return false;
      }
      {
        std::lock_guard lock(stats_mu);
        if (gpu_first < 0) gpu_first = seconds_since(t_start);
      }
      // The parts: the colour kernel (exact) or crops of the scratch tiles, in stream order.
      if (exact) {
        jobs.clear();
        std::int64_t max_pixels = 0;
        for (const Slot::Group& gr : s.groups) {
          const TiledImage& t = *parts[units[order[b + gr.first]].first].image;
          const LevelInfo& li = level_of(&t);
          const Planes pl = planes_of(t, li.hs, li.vs, gr.count);
          const unsigned char* base = s.scratch + gr.offset;
          for (std::size_t q = 0; q < gr.count; ++q) {
            const DeviceUnit& u = units[order[b + gr.first + q]];
            for (std::size_t kk = u.first; kk < u.first + u.count; ++kk) {
              const DevicePart& p = parts[kk];
              YccJob jb = tile_job(base, pl, q, li, t);
              jb.dst = p.dst, jb.dst_pitch = p.pitch;
              jb.x0 = static_cast<std::int32_t>(p.x0), jb.y0 = static_cast<std::int32_t>(p.y0);
              jb.w = static_cast<std::int32_t>(p.x1 - p.x0), jb.h = static_cast<std::int32_t>(p.y1 - p.y0);
              max_pixels = std::max<std::int64_t>(max_pixels, std::int64_t(jb.w) * jb.h);
              jobs.push_back(jb);
            }
          }
        }
        if (jobs.size() > s.jobs_cap) {
          if (s.jobs_host) CUSK_CUDA_CHECK(cudaFreeHost(s.jobs_host));
          if (s.jobs_dev) CUSK_CUDA_CHECK(cudaFreeAsync(s.jobs_dev, s.stream));
          s.jobs_host = nullptr, s.jobs_dev = nullptr, s.jobs_cap = 0;
          const std::size_t cap = std::max<std::size_t>(jobs.size(), static_cast<std::size_t>(kn.batch) * 2);
          CUSK_CUDA_CHECK(cudaHostAlloc(reinterpret_cast<void**>(&s.jobs_host), cap * sizeof(YccJob), cudaHostAllocDefault));
          CUSK_CUDA_CHECK(cudaMallocAsync(reinterpret_cast<void**>(&s.jobs_dev), cap * sizeof(YccJob), s.stream));
          s.jobs_cap = cap;
        }
        std::memcpy(s.jobs_host, jobs.data(), jobs.size() * sizeof(YccJob));  // the slot's last copy finished (waited)
        CUSK_CUDA_CHECK(cudaMemcpyAsync(s.jobs_dev, s.jobs_host, jobs.size() * sizeof(YccJob), cudaMemcpyHostToDevice, s.stream));
        launch_ycc_jobs(s.jobs_dev, static_cast<int>(jobs.size()), max_pixels, s.stream);
        n_exact += c;
      } else {
        for (std::size_t i = 0; i < n; ++i) {
          if (s.offset[i] == ~std::size_t(0)) continue;
          const DeviceUnit& u = units[order[b + i]];
          const TiledImage& t = *parts[u.first].image;
          const std::size_t tp = static_cast<std::size_t>(t.tile_width) * 3;
          for (std::size_t kk = u.first; kk < u.first + u.count; ++kk) {
            const DevicePart& p = parts[kk];
            const unsigned char* src = s.scratch + s.offset[i] + static_cast<std::size_t>(p.y0) * tp + static_cast<std::size_t>(p.x0) * 3;
            CUSK_CUDA_CHECK(cudaMemcpy2DAsync(p.dst, p.pitch, src, tp, static_cast<std::size_t>(p.x1 - p.x0) * 3,
                                              static_cast<std::size_t>(p.y1 - p.y0), cudaMemcpyDeviceToDevice, s.stream));
          }
        }
      }
      CUSK_CUDA_CHECK(cudaEventRecord(s.done, s.stream));
      s.pending = true;
      s.tiles = c;
      n_gpu += c;
      return true;
    };

    while (!stop && !gpu_failed) {
      const std::size_t si = which;
      Slot& s = *slots[si];
      wait_slot(s);
      // How much to take: with host workers, the most that keeps the GPU's work in flight within
      // what the host workers need for the rest; without, an even share of what is left.
      std::size_t b = 0, c = 0;
      bool wait_more = false;
      {
        std::lock_guard lock(queue_mu);
        const std::size_t left = back - front;
        if (left == 0) break;
        const std::size_t lim = std::min<std::size_t>({left, static_cast<std::size_t>(kn.batch), ramp});
        if (nh == 0) {
          c = std::min(lim, (left + nf - 1) / static_cast<std::size_t>(nf));
        } else if (kn.share > 0) {
          const auto target = static_cast<std::size_t>(static_cast<double>(order.size()) * kn.share / 100.0);
          c = std::min(lim, target > front ? target - front : 0);
        } else {
          const double inflight = static_cast<double>(std::max<std::int64_t>(0, in_flight.load()));
          c = gpu_chunk(inflight, gpu_rate, host_total_rate, prefix.data(), front, back, lim);
          if (c < static_cast<std::size_t>(kn.min_chunk) && c < left && inflight > 0) wait_more = true;
        }
        if (!wait_more && c > 0) {
          if (kn.pow2) c = floor_pow2(c);
          b = front;
          front += c;
          in_flight += static_cast<std::int64_t>(c);
        }
      }
      if (wait_more || c == 0) {
        // The GPU has enough in flight for now: wait for a batch of this feeder to finish, or for
        // the other feeders'; with nothing in flight the host workers finish the rest sooner.
        if (const std::size_t p = any_pending(); p < slots.size()) {
          wait_slot(*slots[p]);
          continue;
        }
        if (in_flight.load() > 0) {
          std::this_thread::sleep_for(std::chrono::microseconds(20));
          continue;
        }
        break;
      }
      ramp = std::min<std::size_t>(ramp * 2, static_cast<std::size_t>(kn.batch));
      which = (which + 1) % slots.size();
      if (!slot_scope.used[si]) {
        CUSK_CUDA_CHECK(cudaStreamWaitEvent(s.stream, ready, 0));
        slot_scope.used[si] = true;
      }
      const bool exact = eng.exact();
      const std::size_t k = exact ? eng.stack() : 1;
      bool ok = submit(s, b, c, exact, k);
      if (!ok && k > 1) {
        // A stacked batch refused: single tiles from now on when they work.
        const nvjpegStatus_t why = refused;
        ok = submit(s, b, c, exact, 1);
        if (ok) eng.stack_failed(status_text(why) + " for a stacked batch");
      }
      if (!ok && exact) {
        // YCbCr output refused: nvJPEG's RGB from now on when that works (a corrupt tile fails both).
        const nvjpegStatus_t why = refused;
        ok = submit(s, b, c, false, 1);
        if (ok) eng.exact_failed(status_text(why) + " for YCbCr output");
      }
      if (!ok) {
        // The host decoder takes this batch (and decides whether the tiles are corrupt), and the rest.
        in_flight -= static_cast<std::int64_t>(c);
        gpu_failed = true;
        for (std::size_t i = b; i < b + c; ++i) host_unit(host.get(), units[order[i]], raw);
      }
    }
    for (Slot* s : slots) wait_slot(*s);
    // The GPU's queue is done (or nvJPEG failed): help with what is left on the host decoder.
    std::size_t u;
    while (!stop && take_host_unit(u)) host_unit(host.get(), units[u], raw);
  };

  parallel_for(static_cast<std::size_t>(roles), roles, [&](std::size_t r) {
    try {
      if (static_cast<int>(r) < nf) feeder(r);
      else host_worker(r);
    } catch (...) {
      stop = true;
      throw;
    }
  });
  counts.gpu = n_gpu.load();
  counts.host = n_host.load();
  counts.gpu_exact = n_exact.load();
  // The rates the next reads balance with: the GPU's over its busy span, the host's per worker.
  const double g = counts.gpu >= 32 && gpu_last > gpu_first && gpu_first >= 0 ? static_cast<double>(counts.gpu) / (gpu_last - gpu_first) : 0;
  const double h = host_cost_done >= 8 && host_busy > 0 ? host_cost_done / host_busy : 0;
  if (nf > 0 && nh > 0) eng.observe_rates(g, h);
  return counts;
}
#endif

}  // namespace cuskimage::wsi::detail
