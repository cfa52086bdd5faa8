// Device reads through nvJPEG, with the host decoder alongside (builds with CUSK_HAVE_NVJPEG).
//
// One Engine per GPU: an nvJPEG handle on the hardware backend (the NVJPG engines of A100/H100/H200:
// baseline JPEG, 4:4:4/4:2:2/4:2:0) when nvJPEG can create one, else its default (CUDA) backend, and
// a pool of decode slots -- an nvJPEG state, a non-blocking stream, a completion event, the host
// JPEG streams of the batch in flight and device scratch for tiles needed in part. A state decodes
// one batch at a time, so throughput comes from several slots in flight.
//
// device_decode runs two kinds of worker over one queue of units (a small region, or one part of a
// large region):
//   * feeders (1-2 threads, two slots each): take a chunk of units, wait for their older slot,
//     pread the chunk's tiles and merge each with its level's JPEGTables into the slot's host
//     buffers (this overlaps the other slot's decode), then one nvjpegDecodeBatched on the slot's
//     stream: whole tiles land in the output, partial ones in scratch and are cropped on the device
//     (cudaMemcpy2DAsync); an event marks the slot's completion;
//   * host workers (hybrid): take one unit at a time, decode it with libjpeg-turbo into a pinned
//     staging ring (only the parts it needs: decode_tile_part) and copy it up on their own stream.
// Chunks shrink as the queue drains (guided by the GPU's share of the last read), so the GPU's last
// batch finishes about when the host workers run out of work. Levels the GPU decoder rejects
// (nvjpegDecodeBatchedSupported on the hardware backend, frame size other than the tile's, a
// subsampling NVJPG lacks) and batches nvJPEG fails go to the host decoder. Every stream used is
// joined back into the caller's stream by events; nothing synchronizes the device.
//
// Bytes moved per 256² tile: ~10-20 KB compressed host->device plus 196,608 B of RGB written (and
// read + written again for cropped parts); the floor is the decoders' throughput, not HBM: the
// NVJPG engines' rate plus the host workers' libjpeg-turbo rate (about 2,700 tiles/s per core on
// the H200 host), and PCIe for the host-decoded tiles (8 GB/s at 40,000 tiles/s, pinned).
// nvJPEG's IDCT and chroma upsampling differ from libjpeg's, so GPU pixels differ slightly from
// the CPU path (tests state the tolerance); host-decoded ones are exact.
#include "src/wsi/wsi_detail.hpp"

#if CUSK_HAVE_NVJPEG
#include <cuda_runtime.h>
#include <library_types.h>
#include <nvjpeg.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <condition_variable>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <map>

#include "src/core/cuda_check.hpp"
#include "src/core/device_guard.hpp"
#endif

namespace cuskimage::wsi::detail {

#if !CUSK_HAVE_NVJPEG
std::string gpu_jpeg_decoder_info(int) {
  return "none: this build has no nvJPEG (configure with a CUDA toolkit that has it, or -DCUSK_NVJPEG_ROOT=<nvidia-nvjpeg "
         "wheel>); device reads decode on the host";
}
#else
namespace {

std::string status_text(nvjpegStatus_t s) { return "nvJPEG status " + std::to_string(static_cast<int>(s)); }

int env_int(const char* name, int fallback, int lo, int hi) {
  const char* v = std::getenv(name);
  if (!v || !*v) return fallback;
  return std::clamp(std::atoi(v), lo, hi);
}

/// Largest batch one slot decodes (tiles); CUSK_WSI_NVJPEG_BATCH overrides.
int max_batch() {
  static const int b = env_int("CUSK_WSI_NVJPEG_BATCH", 128, 1, 4096);
  return b;
}
/// Smallest chunk a feeder takes while more is left (tiles).
int min_batch() { return std::min(max_batch(), 16); }

struct Slot {
  nvjpegJpegState_t state = nullptr;
  cudaStream_t stream = nullptr;
  cudaEvent_t done = nullptr;
  bool pending = false;   // `done` is recorded for a batch not yet known to be finished
  int batch = 0;          // the batch size `state` was initialised for (0: none)
  bool preallocated = false;
  std::vector<std::vector<unsigned char>> streams;  // the host JPEG streams of the batch in flight
  std::vector<unsigned char> raw;
  unsigned char* scratch = nullptr;  // device: tiles needed in part
  std::size_t scratch_bytes = 0;
  // Reused per batch.
  std::vector<const unsigned char*> data;
  std::vector<std::size_t> lengths;
  std::vector<nvjpegImage_t> images;
};

/// Whether nvJPEG writes the part straight into the output: a whole tile at a 16-byte aligned
/// address and pitch (others decode into scratch and are copied out on the device).
bool in_place(const DevicePart& p) {
  return p.x0 == 0 && p.y0 == 0 && p.x1 == p.image->tile_width && p.y1 == p.image->tile_height &&
         reinterpret_cast<std::uintptr_t>(p.dst) % 16 == 0 && p.pitch % 16 == 0;
}

/// Pinned staging of one host worker: a ring of buffers, each with the event of its last copy.
struct Staging {
  cudaStream_t stream = nullptr;
  cudaEvent_t end = nullptr;
  struct Buf {
    unsigned char* p = nullptr;
    std::size_t bytes = 0;
    cudaEvent_t copied = nullptr;
    bool pending = false;
  };
  static constexpr int kRing = 3;
  Buf ring[kRing];
  int next = 0;

  Staging() {
    CUSK_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    CUSK_CUDA_CHECK(cudaEventCreateWithFlags(&end, cudaEventDisableTiming));
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

/// One GPU's nvJPEG handle, slots and host stagings. Never destroyed (freeing CUDA resources from
/// static destructors races the runtime's own teardown).
class Engine {
 public:
  explicit Engine(int device) : device_(device) {
    int major = 0, minor = 0, patch = 0;
    nvjpegGetProperty(MAJOR_VERSION, &major);
    nvjpegGetProperty(MINOR_VERSION, &minor);
    nvjpegGetProperty(PATCH_LEVEL, &patch);
    const std::string version = "nvJPEG " + std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch);
    const nvjpegStatus_t hw = nvjpegCreateEx(NVJPEG_BACKEND_HARDWARE, nullptr, nullptr, NVJPEG_FLAGS_DEFAULT, &handle_);
    if (hw == NVJPEG_STATUS_SUCCESS) {
      hardware_ = true;
      unsigned engines = 0, cores = 0;
      if (nvjpegGetHardwareDecoderInfo(handle_, &engines, &cores) == NVJPEG_STATUS_SUCCESS && engines > 0) {
        engines_ = engines, cores_ = cores;
        description_ = version + ", hardware backend (NVJPG: " + std::to_string(engines) + " engines x " + std::to_string(cores) +
                       " cores)";
      } else {
        description_ = version + ", hardware backend (NVJPG; engine count not reported)";
      }
    } else {
      handle_ = nullptr;
      const nvjpegStatus_t def = nvjpegCreateEx(NVJPEG_BACKEND_DEFAULT, nullptr, nullptr, NVJPEG_FLAGS_DEFAULT, &handle_);
      if (def != NVJPEG_STATUS_SUCCESS)
        throw NotSupported("wsi: nvJPEG could not start on cuda:" + std::to_string(device) + " (hardware backend: " +
                           status_text(hw) + ", default backend: " + status_text(def) + ")");
      description_ = version + ", default backend (CUDA; hardware backend unavailable: " + status_text(hw) + ")";
    }
    if (nvjpegJpegStreamCreate(handle_, &parse_) != NVJPEG_STATUS_SUCCESS)
      throw NotSupported("wsi: nvJPEG could not create a stream parser on cuda:" + std::to_string(device));
  }

  nvjpegHandle_t handle() const { return handle_; }
  bool hardware() const { return hardware_; }
  const std::string& description() const { return description_; }

  /// Whether the GPU decoder takes the complete JPEG stream `data` of a tw x th tile (whole tiles
  /// land in place, so the frame must be the tile's size); `why` says why not.
  bool supports(const unsigned char* data, std::size_t n, std::int64_t tw, std::int64_t th, std::string& why) {
    std::lock_guard lock(parse_mu_);
    if (nvjpegJpegStreamParseHeader(handle_, data, n, parse_) != NVJPEG_STATUS_SUCCESS) {
      why = "nvJPEG cannot parse the tiles' JPEG header";
      return false;
    }
    unsigned w = 0, h = 0;
    nvjpegJpegStreamGetFrameDimensions(parse_, &w, &h);
    if (static_cast<std::int64_t>(w) != tw || static_cast<std::int64_t>(h) != th) {
      why = "JPEG frames are not of the tile size";
      return false;
    }
    nvjpegChromaSubsampling_t css = NVJPEG_CSS_UNKNOWN;
    nvjpegJpegStreamGetChromaSubsampling(parse_, &css);
    if (css != NVJPEG_CSS_444 && css != NVJPEG_CSS_422 && css != NVJPEG_CSS_420) {
      why = "chroma subsampling " + std::to_string(static_cast<int>(css)) + " is left to the host decoder";
      return false;
    }
    if (hardware_) {
      int unsupported = 1;  // nvjpegDecodeBatchedSupported reports 0 for "supported"
      if (nvjpegDecodeBatchedSupported(handle_, parse_, &unsupported) != NVJPEG_STATUS_SUCCESS || unsupported != 0) {
        why = "the hardware decoder does not take these JPEG tiles";
        return false;
      }
    }
    return true;
  }

  /// n slots for one feeder, all at once (so concurrent reads cannot deadlock on partial sets).
  std::vector<Slot*> acquire_slots(int n) {
    std::unique_lock lock(mu_);
    const int cap = env_int("CUSK_WSI_NVJPEG_SLOTS", 8, 2, 64);
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
      // In reverse, so the next acquire_slots gets them in the same order (slot 0 first: the same
      // slot sees the same batch sizes call after call and keeps its initialisation).
      for (auto it = slots.rbegin(); it != slots.rend(); ++it) free_slots_.push_back(*it);
    }
    cv_.notify_all();
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

  /// The GPU's share of the units of recent reads (guides the chunk sizes).
  double gpu_share() {
    std::lock_guard lock(mu_);
    return share_;
  }
  void observe_share(double s) {
    std::lock_guard lock(mu_);
    share_ = 0.7 * share_ + 0.3 * std::clamp(s, 0.05, 1.0);
  }

 private:
  Slot* create_slot() {
    auto s = std::make_unique<Slot>();
    if (nvjpegJpegStateCreate(handle_, &s->state) != NVJPEG_STATUS_SUCCESS)
      throw NotSupported("wsi: nvJPEG state could not be created on cuda:" + std::to_string(device_));
    CUSK_CUDA_CHECK(cudaStreamCreateWithFlags(&s->stream, cudaStreamNonBlocking));
    // A feeder waits on its older slot while the other decodes: blocking sync yields the core to
    // the host workers.
    CUSK_CUDA_CHECK(cudaEventCreateWithFlags(&s->done, cudaEventDisableTiming | cudaEventBlockingSync));
    return s.release();  // kept for the process
  }

  int device_;
  nvjpegHandle_t handle_ = nullptr;
  nvjpegJpegStream_t parse_ = nullptr;
  std::mutex parse_mu_;
  bool hardware_ = false;
  unsigned engines_ = 0, cores_ = 0;
  std::string description_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<Slot*> free_slots_;
  int created_ = 0;
  std::vector<Staging*> free_staging_;
  double share_ = 0.5;
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
  DeviceDecodeCounts counts;
  if (units.empty()) return counts;

  // Which levels the GPU takes: the first tile of each level in this read decides.
  std::map<const TiledImage*, bool> gpu_level;
  {
    std::vector<unsigned char> raw, merged;
    for (const DevicePart& p : parts) {
      if (gpu_level.count(p.image)) continue;
      fetch(*p.image, p.index, raw);
      merge_jpeg_tables_into(*p.image, raw, merged);
      std::string why;
      gpu_level[p.image] = eng.supports(merged.data(), merged.size(), p.image->tile_width, p.image->tile_height, why);
    }
  }
  std::vector<std::size_t> gpu_units, host_units;
  std::size_t gpu_parts = 0;
  for (std::size_t u = 0; u < units.size(); ++u) {
    bool ok = true;
    for (std::size_t k = units[u].first; k < units[u].first + units[u].count; ++k) ok = ok && gpu_level[parts[k].image];
    (ok ? gpu_units : host_units).push_back(u);
    if (ok) gpu_parts += units[u].count;
  }
  const int nf = gpu_units.empty() ? 0 : std::max(1, env_int("CUSK_WSI_NVJPEG_FEEDERS", feeders, 1, 8));
  const int nh = std::max(host_workers, nf == 0 ? 1 : 0);
  const double parts_per_unit = gpu_units.empty() ? 1.0 : static_cast<double>(gpu_parts) / static_cast<double>(gpu_units.size());
  const double share = nh > 0 ? eng.gpu_share() : 1.0;

  // Everything below runs after the caller's stream has allocated and filled the outputs.
  cudaEvent_t ready = nullptr;
  CUSK_CUDA_CHECK(cudaEventCreateWithFlags(&ready, cudaEventDisableTiming));
  struct EventGuard {
    cudaEvent_t e;
    ~EventGuard() { cudaEventDestroy(e); }  // released once the waits already queued are done
  } ready_guard{ready};
  CUSK_CUDA_CHECK(cudaEventRecord(ready, stream));

  std::atomic<std::size_t> next_gpu{0}, next_host{0};
  std::atomic<bool> stop{false}, gpu_failed{false};
  std::atomic<std::uint64_t> n_gpu{0}, n_host{0};

  // A unit on the host decoder: into pinned staging, then one copy up.
  const auto host_unit = [&](Staging& st, const DeviceUnit& u, std::vector<unsigned char>& raw) {
    if (u.dst) {
      const std::size_t row = static_cast<std::size_t>(u.width) * 3, bytes = row * static_cast<std::size_t>(u.height);
      Staging::Buf& b = st.take(bytes);
      if (u.fill >= 0) std::memset(b.p, u.fill, bytes);
      for (std::size_t k = u.first; k < u.first + u.count; ++k) {
        const DevicePart& p = parts[k];
        fetch(*p.image, p.index, raw);
        decode_tile_part(*p.image, raw.data(), raw.size(), p.x0, p.y0, p.x1, p.y1,
                         b.p + static_cast<std::size_t>(p.ry) * row + static_cast<std::size_t>(p.rx) * 3,
                         static_cast<std::ptrdiff_t>(row), 3, path);
      }
      CUSK_CUDA_CHECK(cudaMemcpyAsync(u.dst, b.p, bytes, cudaMemcpyHostToDevice, st.stream));
      st.copied(b);
    } else {
      for (std::size_t k = u.first; k < u.first + u.count; ++k) {
        const DevicePart& p = parts[k];
        const std::size_t row = static_cast<std::size_t>(p.x1 - p.x0) * 3, h = static_cast<std::size_t>(p.y1 - p.y0);
        Staging::Buf& b = st.take(row * h);
        fetch(*p.image, p.index, raw);
        decode_tile_part(*p.image, raw.data(), raw.size(), p.x0, p.y0, p.x1, p.y1, b.p, static_cast<std::ptrdiff_t>(row), 3, path);
        CUSK_CUDA_CHECK(cudaMemcpy2DAsync(p.dst, p.pitch, b.p, row, row, h, cudaMemcpyHostToDevice, st.stream));
        st.copied(b);
      }
    }
    n_host += u.count;
  };

  // Each worker marks the end of its streams' work with events of this call (`joins`, three per
  // worker: two slots and a staging); the calling thread makes `stream` wait for them (a
  // per-thread default stream names another stream on each thread, so only the caller may).
  const int roles = nf + nh;
  std::vector<cudaEvent_t> joins(static_cast<std::size_t>(3 * roles), nullptr);
  struct JoinGuard {
    std::vector<cudaEvent_t>& joins;
    cudaStream_t stream;
    ~JoinGuard() {
      for (cudaEvent_t e : joins)
        if (e) {
          cudaStreamWaitEvent(stream, e, 0);
          cudaEventDestroy(e);
        }
    }
  } join_guard{joins, stream};
  for (auto& e : joins) CUSK_CUDA_CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));

  // A host staging for the scope of one worker; its copies are marked in `join` at the end.
  struct StagingScope {
    Engine& eng;
    cudaEvent_t ready, join;
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
      cudaEventRecord(join, st->stream);
      eng.release_staging(st);
    }
  };

  const auto host_worker = [&](std::size_t r) {
    cuskimage::detail::DeviceGuard role_guard(device);
    StagingScope scope{eng, ready, joins[3 * r + 2]};
    std::vector<unsigned char> raw;
    for (;;) {
      if (stop) return;
      std::size_t u;
      if (const std::size_t i = next_host.fetch_add(1); i < host_units.size()) u = host_units[i];
      else if (const std::size_t j = next_gpu.fetch_add(1); j < gpu_units.size()) u = gpu_units[j];
      else return;
      host_unit(scope.get(), units[u], raw);
    }
  };

  const auto feeder = [&](std::size_t r) {
    cuskimage::detail::DeviceGuard role_guard(device);
    const std::vector<Slot*> slots = eng.acquire_slots(2);
    struct SlotScope {
      Engine& eng;
      const std::vector<Slot*>& slots;
      cudaEvent_t* join;
      std::vector<bool> used;
      ~SlotScope() {
        for (std::size_t i = 0; i < slots.size() && i < 2; ++i)
          if (used[i]) cudaEventRecord(join[i], slots[i]->stream);
        eng.release_slots(slots);
      }
    } slot_scope{eng, slots, &joins[3 * r], std::vector<bool>(slots.size(), false)};
    StagingScope host{eng, ready, joins[3 * r + 2]};  // for batches nvJPEG fails, and host units at the end
    std::vector<unsigned char> raw;
    std::size_t which = 0;
    while (!stop) {
      // Guided chunk: the GPU's share of what is left, split over the feeders and halved so the
      // last chunks are small; never more than one slot's batch. After a batch nvJPEG failed,
      // the host decoder takes the rest.
      if (gpu_failed) break;
      const std::size_t taken = next_gpu.load();
      if (taken >= gpu_units.size()) break;
      const double left_parts = static_cast<double>(gpu_units.size() - taken) * parts_per_unit;
      const double guided = nh > 0 ? left_parts * share / (2.0 * nf) : left_parts / nf;
      const double want = std::clamp(std::ceil(guided), static_cast<double>(min_batch()), static_cast<double>(max_batch()));
      const std::size_t k = std::max<std::size_t>(1, static_cast<std::size_t>(want / parts_per_unit));
      const std::size_t b = next_gpu.fetch_add(k);
      if (b >= gpu_units.size()) break;
      const std::size_t e = std::min(gpu_units.size(), b + k);

      const std::size_t si = which;
      which = (which + 1) % slots.size();
      Slot& s = *slots[si];
      if (!slot_scope.used[si]) {
        CUSK_CUDA_CHECK(cudaStreamWaitEvent(s.stream, ready, 0));
        slot_scope.used[si] = true;
      }
      if (s.pending) {
        CUSK_CUDA_CHECK(cudaEventSynchronize(s.done));
        s.pending = false;
      }
      // Host side of the batch: fetch + merge (the other slot decodes meanwhile).
      std::size_t n = 0, partial = 0, tile_bytes = 0;
      for (std::size_t i = b; i < e; ++i) {
        const DeviceUnit& u = units[gpu_units[i]];
        for (std::size_t q = u.first; q < u.first + u.count; ++q) {
          const DevicePart& p = parts[q];
          if (s.streams.size() <= n) s.streams.emplace_back();
          fetch(*p.image, p.index, s.raw);
          merge_jpeg_tables_into(*p.image, s.raw, s.streams[n]);
          partial += in_place(p) ? 0 : 1;
          tile_bytes = std::max<std::size_t>(tile_bytes, static_cast<std::size_t>(p.image->tile_width * p.image->tile_height) * 3);
          ++n;
        }
      }
      if (partial * tile_bytes > s.scratch_bytes) {
        if (s.scratch) CUSK_CUDA_CHECK(cudaFreeAsync(s.scratch, s.stream));
        s.scratch = nullptr;
        s.scratch_bytes = 0;
        const std::size_t bytes = std::max<std::size_t>(partial, static_cast<std::size_t>(max_batch())) * tile_bytes;
        CUSK_CUDA_CHECK(cudaMallocAsync(reinterpret_cast<void**>(&s.scratch), bytes, s.stream));
        s.scratch_bytes = bytes;
      }
      s.data.resize(n);
      s.lengths.resize(n);
      s.images.assign(n, nvjpegImage_t{});
      std::vector<std::size_t> crop_of;  // batch index -> scratch tile, for parts not decoded in place
      crop_of.assign(n, ~std::size_t(0));
      {
        std::size_t j = 0, sp = 0;
        for (std::size_t i = b; i < e; ++i) {
          const DeviceUnit& u = units[gpu_units[i]];
          for (std::size_t q = u.first; q < u.first + u.count; ++q, ++j) {
            const DevicePart& p = parts[q];
            s.data[j] = s.streams[j].data();
            s.lengths[j] = s.streams[j].size();
            if (in_place(p)) {
              s.images[j].channel[0] = p.dst;
              s.images[j].pitch[0] = p.pitch;
            } else {
              crop_of[j] = sp;
              s.images[j].channel[0] = s.scratch + sp * tile_bytes;
              s.images[j].pitch[0] = static_cast<std::size_t>(p.image->tile_width) * 3;
              ++sp;
            }
          }
        }
      }
      if (!s.preallocated && eng.hardware()) {
        // A memory pool sized for the largest batch (nvImageCodec measured > 20 % from this).
        const DevicePart& p0 = parts[units[gpu_units[b]].first];
        nvjpegDecodeBatchedPreAllocate(eng.handle(), s.state, max_batch(), static_cast<int>(p0.image->tile_width),
                                       static_cast<int>(p0.image->tile_height), NVJPEG_CSS_444, NVJPEG_OUTPUT_RGBI);
        s.preallocated = true;
      }
      nvjpegStatus_t st = NVJPEG_STATUS_SUCCESS;
      if (s.batch != static_cast<int>(n)) {
        st = nvjpegDecodeBatchedInitialize(eng.handle(), s.state, static_cast<int>(n), 1, NVJPEG_OUTPUT_RGBI);
        s.batch = st == NVJPEG_STATUS_SUCCESS ? static_cast<int>(n) : 0;
      }
      if (st == NVJPEG_STATUS_SUCCESS)
        st = nvjpegDecodeBatched(eng.handle(), s.state, s.data.data(), s.lengths.data(), s.images.data(), s.stream);
      if (st != NVJPEG_STATUS_SUCCESS) {
        // The host decoder takes this batch (and decides whether the tiles are corrupt).
        s.batch = 0;
        gpu_failed = true;
        for (std::size_t i = b; i < e; ++i) host_unit(host.get(), units[gpu_units[i]], raw);
        continue;
      }
      // Crops of the partial tiles, in stream order after the decode.
      {
        std::size_t j = 0;
        for (std::size_t i = b; i < e; ++i) {
          const DeviceUnit& u = units[gpu_units[i]];
          for (std::size_t q = u.first; q < u.first + u.count; ++q, ++j) {
            if (crop_of[j] == ~std::size_t(0)) continue;
            const DevicePart& p = parts[q];
            const std::size_t tp = static_cast<std::size_t>(p.image->tile_width) * 3;
            const unsigned char* src = s.scratch + crop_of[j] * tile_bytes + static_cast<std::size_t>(p.y0) * tp +
                                       static_cast<std::size_t>(p.x0) * 3;
            CUSK_CUDA_CHECK(cudaMemcpy2DAsync(p.dst, p.pitch, src, tp, static_cast<std::size_t>(p.x1 - p.x0) * 3,
                                              static_cast<std::size_t>(p.y1 - p.y0), cudaMemcpyDeviceToDevice, s.stream));
          }
        }
      }
      CUSK_CUDA_CHECK(cudaEventRecord(s.done, s.stream));
      s.pending = true;
      n_gpu += n;
    }
    // The GPU queue is empty (or nvJPEG failed): help with what is left on the host decoder.
    while (!stop) {
      std::size_t u;
      if (const std::size_t i = next_host.fetch_add(1); i < host_units.size()) u = host_units[i];
      else if (const std::size_t j = next_gpu.fetch_add(1); j < gpu_units.size()) u = gpu_units[j];
      else break;
      host_unit(host.get(), units[u], raw);
    }
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
  if (nh > 0 && nf > 0) {
    const double done_units = static_cast<double>(counts.gpu + counts.host);
    if (done_units > 0) eng.observe_share(static_cast<double>(counts.gpu) / done_units);
  }
  return counts;
}
#endif

}  // namespace cuskimage::wsi::detail
