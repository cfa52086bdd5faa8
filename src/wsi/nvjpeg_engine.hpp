// The pieces of device reads through nvJPEG (builds with CUSK_HAVE_NVJPEG) shared by the engine
// (nvjpeg_engine.cpp: the handle, its decode slots, the exact path's self-check) and the scheduler
// of one read (nvjpeg_decode.cpp: feeders and host workers).
#pragma once

#if CUSK_HAVE_NVJPEG
#include <cuda_runtime.h>
#include <library_types.h>
#include <nvjpeg.h>

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "cuskimage/tuning.hpp"
#include "src/core/cuda_check.hpp"
#include "src/wsi/wsi_detail.hpp"
#include "src/wsi/ycc.hpp"

namespace cuskimage::wsi::detail::nvj {

using Clock = std::chrono::steady_clock;
inline double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

inline std::string status_text(nvjpegStatus_t s) { return "nvJPEG status " + std::to_string(static_cast<int>(s)); }

inline std::size_t align_up(std::size_t v, std::size_t a) { return (v + a - 1) / a * a; }
inline std::size_t floor_pow2(std::size_t v) {
  std::size_t p = 1;
  while (p * 2 <= v) p *= 2;
  return p;
}

/// tuning::WsiNvjpegPolicy with its defaults filled in, read once per read.
struct Settings {
  bool exact = true;      // the exact colour path (else nvJPEG's RGB)
  std::size_t stack = 8;  // tiles per stacked image on the exact path (1: none)
  int batch = 128;        // largest batch
  int depth = 2;          // slots per feeder
  int ramp = 32;          // a read's first batch (0: full batches from the start)
  int min_chunk = 8;      // hybrid: smaller batches wait for the GPU's work in flight
};
Settings settings_of(const tuning::WsiNvjpegPolicy& p);

/// Decode slots per engine, at most (each holds a stream, nvJPEG states and scratch).
inline constexpr int kMaxSlots = 16;

/// Where the YCbCr planes of one decoded image -- a tile, or a stack of m tiles one below the
/// other -- lie in a slot's scratch (exact colour path): 64-byte row pitches, 256-byte aligned
/// planes. Tile q of a stack: its Y rows from q * tile_height, its chroma rows from q * ch.
struct Planes {
  std::size_t y_pitch, c_pitch, cb, cr, bytes;  // cb, cr: offsets from the image's base
  int cw, ch;                                   // one tile's chroma plane
  std::size_t y_tile, c_tile;                   // bytes from one tile's plane rows to the next tile's
};
Planes planes_of(const TiledImage& t, int hs, int vs, std::size_t m = 1);

/// What the GPU decoder makes of a level (decided per read from its first tile).
struct LevelInfo {
  bool gpu = false;
  bool stack = false;  // its tiles stack (stack_jpeg_streams) and the GPU decoder takes the stack
  int hs = 1, vs = 1;  // chroma subsampling
};

/// The colour job of the whole of tile q of an image of `t`'s level decoded at `base` (planes `pl`);
/// callers point it at its output and narrow it to the part they need.
YccJob tile_job(const unsigned char* base, const Planes& pl, std::size_t q, const LevelInfo& li, const TiledImage& t);

/// nvJPEG's output descriptor for the YCbCr planes `pl` of an image decoded at `base`.
nvjpegImage_t planes_image(unsigned char* base, const Planes& pl);

/// Whether nvJPEG's RGB output goes straight into the output: a unit of one whole tile at a 16-byte
/// aligned address and pitch (others decode into scratch and are copied out on the device).
bool in_place(const DevicePart& p);

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

  Staging();
  /// The next ring buffer with at least `bytes`, its previous copy finished.
  Buf& take(std::size_t bytes);
  void copied(Buf& b) {
    CUSK_CUDA_CHECK(cudaEventRecord(b.copied, stream));
    b.pending = true;
  }
};

/// One GPU's nvJPEG handle, slots, host stagings, join events and rate estimates. Never destroyed
/// (freeing CUDA resources from static destructors races the runtime's own teardown).
class Engine {
 public:
  explicit Engine(int device);

  nvjpegHandle_t handle() const { return handle_; }
  bool hardware() const { return hardware_; }
  /// The decoder and colour path in words, under the policy `set`.
  std::string description(const Settings& set);

  /// Whether batches use the exact colour path now.
  bool exact(const Settings& set) {
    if (!set.exact) return false;
    std::lock_guard lock(mu_);
    return exact_failure_.empty();
  }
  void exact_failed(const std::string& why) {
    std::lock_guard lock(mu_);
    if (exact_failure_.empty()) exact_failure_ = why;
  }
  /// Tiles per image on the exact path now (1 once stacking failed).
  std::size_t stack(const Settings& set) {
    if (set.stack <= 1) return 1;
    std::lock_guard lock(mu_);
    return stack_failure_.empty() ? set.stack : 1;
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
  LevelInfo supports(const unsigned char* data, std::size_t n, std::int64_t tw, std::int64_t th);

  /// n slots for one feeder, all at once (so concurrent reads cannot deadlock on partial sets).
  std::vector<Slot*> acquire_slots(int n);
  void release_slots(const std::vector<Slot*>& slots);

  /// The state of `s` for batches of n tiles in `format`, initialised (one per size and format:
  /// re-initialising a state for another size costs). nullptr and `st` set when nvJPEG refuses.
  nvjpegJpegState_t state_for(Slot& s, int n, nvjpegOutputFormat_t format, const TiledImage& t, std::size_t tiles_per_image,
                              nvjpegStatus_t& st);

  Staging* acquire_staging();
  void release_staging(Staging* s) {
    std::lock_guard lock(mu_);
    free_staging_.push_back(s);
  }

  /// Timing-free events for joining streams into the caller's, reused.
  std::vector<cudaEvent_t> acquire_events(std::size_t n);
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
  Slot* create_slot();

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
Engine& engine(int device);

/// The exact colour path's self-check, once per engine (see nvjpeg_engine.cpp).
void self_check(Engine& eng, const TiledImage& t, std::uint64_t index, const LevelInfo& li, const FetchFn& fetch,
                const std::string& path, const Settings& set);

}  // namespace cuskimage::wsi::detail::nvj
#endif
