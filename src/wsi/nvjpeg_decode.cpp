// One device read through nvJPEG with the host decoder alongside (device_decode; builds with
// CUSK_HAVE_NVJPEG). The engine, its slots and the colour paths are in nvjpeg_engine.cpp.
//
// The units (a tile and its parts) are sorted by their host cost, most expensive first (a tile
// needed only in part is cheaper for the host: decode_tile_part). Feeders take batches from that
// end and host workers single units from the other:
//   * feeders (1-2 threads, WsiNvjpegPolicy::depth slots each): wait for their oldest slot, take a
//     batch, pread + merge its tiles with the level's JPEGTables into the slot's host buffers (the
//     other slots decode meanwhile), nvjpegDecodeBatched on the slot's stream, then the colour
//     kernel (or crops); an event marks completion. A feeder takes a batch only while the GPU's
//     tiles in flight plus the batch take no longer (at the measured GPU rate) than the host
//     workers need for what would be left (at their measured rate): both sides finish together.
//     The first batches of a read are small (WsiNvjpegPolicy::ramp) so the engines start early;
//     batch sizes are rounded down to powers of two (an nvJPEG state per size);
//   * host workers (hybrid): take one unit at a time, decode it with libjpeg-turbo into a pinned
//     staging ring (a single part: only that part) and copy the parts up on their own stream.
// Levels the GPU decoder rejects (nvjpegDecodeBatchedSupported on the hardware backend, a frame size
// other than the tile's, a subsampling other than 4:4:4/4:2:2/4:2:0) and batches nvJPEG fails go to
// the host decoder. Every stream used is joined back into the caller's stream by events; nothing
// synchronizes the device. The scheduler's parameters are tuning::WsiNvjpegPolicy's, read once
// per read.
//
// Bytes moved per 256² tile: ~10-20 KB compressed host->device, 98 KB of YCbCr planes written and
// read, 196,608 B of RGB written; the floor is the decoders' throughput, not HBM: the NVJPG engines'
// rate (71-75 k tiles/s on the H200 with stacks of 8, ~36 k one tile per image) plus the host
// workers' libjpeg-turbo rate (~3,100 tiles/s per core on its host), and PCIe for the host-decoded
// tiles (8 GB/s at 40,000 tiles/s, pinned).
#include "src/wsi/wsi_detail.hpp"

#if CUSK_HAVE_NVJPEG
#include <algorithm>
#include <atomic>
#include <cstring>
#include <map>
#include <mutex>
#include <thread>

#include "cuskimage/tuning.hpp"
#include "src/core/device_guard.hpp"
#include "src/wsi/nvjpeg_engine.hpp"

namespace cuskimage::wsi::detail {
namespace nvj {
namespace {

/// A host staging for the scope of one role; its copies are marked in `join` at the end.
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

/// One read: the queue of units both sides take from, the join events, the counts and the rate
/// measurements. Its feeders (Feeder) and host workers run on parallel_for's threads.
struct DeviceRead {
  Engine& eng;
  const int device;
  const std::vector<DevicePart>& parts;
  const std::vector<DeviceUnit>& units;
  const FetchFn& fetch;
  const std::string& path;
  const Settings set;

  std::map<const TiledImage*, LevelInfo> levels;
  std::vector<std::size_t> order, host_only;  // the GPU's units, most expensive for the host first; the rest
  std::vector<double> prefix;                 // host cost of order[0, i)
  int nf = 0, nh = 0;                         // feeders, host workers
  double gpu_rate = 0, host_total_rate = 0;
  cudaEvent_t ready = nullptr;  // the caller's stream's earlier work
  // Each role marks the end of its streams' work with events of this read (depth per feeder plus
  // one staging per role); the calling thread makes its stream wait for them.
  std::size_t per_role = 0;
  std::vector<cudaEvent_t> joins;
  std::vector<char> joined;

  std::mutex queue_mu;
  std::size_t front = 0, back = 0;  // order[front, back) is left
  std::atomic<std::size_t> next_host_only{0};
  std::atomic<std::int64_t> in_flight{0};  // GPU tiles taken and not seen finished
  std::atomic<bool> stop{false}, gpu_failed{false};
  std::atomic<std::uint64_t> n_gpu{0}, n_host{0}, n_exact{0};
  std::mutex stats_mu;
  Clock::time_point t_start;
  double gpu_first = -1, gpu_last = -1, host_cost_done = 0, host_busy = 0;

  DeviceRead(Engine& e, int dev, const std::vector<DevicePart>& p, const std::vector<DeviceUnit>& u, const FetchFn& f,
             const std::string& pa, const Settings& s)
      : eng(e), device(dev), parts(p), units(u), fetch(f), path(pa), set(s) {}

  const LevelInfo& level_of(const TiledImage* t) const { return levels.at(t); }
  const DevicePart& first_part(std::size_t i) const { return parts[units[order[i]].first]; }

  void plan(int feeders, int host_workers);
  DeviceDecodeCounts run(cudaStream_t stream);
  bool take_host_unit(std::size_t& u);
  void host_unit(Staging& st, const DeviceUnit& u, std::vector<unsigned char>& raw);
  void host_worker(std::size_t r);
};

/// Which levels the GPU takes (the first tile of each level in this read decides), the units'
/// order, the self-check, the number of each role and the rates to balance with.
void DeviceRead::plan(int feeders, int host_workers) {
  {
    std::vector<unsigned char> raw, merged;
    for (const DevicePart& p : parts) {
      if (levels.count(p.image)) continue;
      fetch(*p.image, p.index, raw);
      merge_jpeg_tables_into(*p.image, raw, merged);
      levels[p.image] = eng.supports(merged.data(), merged.size(), p.image->tile_width, p.image->tile_height);
    }
  }
  // Feeders take from the front, host workers from the back; units of levels the GPU rejects go to
  // the host workers first.
  for (std::size_t u = 0; u < units.size(); ++u) (level_of(parts[units[u].first].image).gpu ? order : host_only).push_back(u);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return units[a].host_cost > units[b].host_cost; });
  prefix.assign(order.size() + 1, 0.0);
  for (std::size_t i = 0; i < order.size(); ++i) prefix[i + 1] = prefix[i] + units[order[i]].host_cost;
  back = order.size();

  if (!order.empty() && eng.exact(set)) {
    const DevicePart& p = first_part(0);
    eng.self_check_once([&] { self_check(eng, *p.image, p.index, level_of(p.image), fetch, path, set); });
  }

  nf = order.empty() ? 0 : std::max(1, feeders);
  // Host workers: never more than there are units.
  nh = std::max(std::min(std::max(host_workers, 0), static_cast<int>(std::min<std::size_t>(units.size(), 256))),
                nf == 0 ? 1 : 0);
  double host_rate = 0;
  eng.rates(gpu_rate, host_rate);
  host_total_rate = host_rate * nh;
}

bool DeviceRead::take_host_unit(std::size_t& u) {
  if (const std::size_t i = next_host_only.fetch_add(1); i < host_only.size()) {
    u = host_only[i];
    return true;
  }
  std::lock_guard lock(queue_mu);
  if (back <= front) return false;
  u = order[--back];
  return true;
}

/// A unit on the host decoder: into pinned staging, then the parts' copies up.
void DeviceRead::host_unit(Staging& st, const DeviceUnit& u, std::vector<unsigned char>& raw) {
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
}

void DeviceRead::host_worker(std::size_t r) {
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
}

/// One feeder thread: its slots, the batch it stages, the colour jobs it queues.
class Feeder {
 public:
  Feeder(DeviceRead& rd, std::size_t r) : rd_(rd), r_(r) {}
  void run();

 private:
  void wait_slot(Slot& s);
  std::size_t any_pending() const;
  bool take_batch(std::size_t& b, std::size_t& c, bool& wait_more);
  void decode_batch(Slot& s, std::size_t b, std::size_t c, StagingScope& host);
  bool submit(Slot& s, std::size_t b, std::size_t c, bool exact, std::size_t k);
  std::size_t stage_stacks(Slot& s, std::size_t b, std::size_t c, std::size_t k);
  std::size_t stage_tiles(Slot& s, std::size_t b, std::size_t c);
  void reserve_scratch(Slot& s, std::size_t need, std::size_t c);
  std::size_t describe_images(Slot& s, std::size_t b, std::size_t c, bool exact);
  void queue_colour(Slot& s, std::size_t b, std::size_t c);
  void queue_crops(Slot& s, std::size_t b, std::size_t n);

  DeviceRead& rd_;
  const std::size_t r_;
  std::vector<Slot*> slots_;
  std::size_t which_ = 0;  // the slot of the next batch
  std::size_t ramp_ = 0;   // the next batch's limit while the read ramps up
  nvjpegStatus_t refused_ = NVJPEG_STATUS_SUCCESS;  // why submit's last batch was refused
  std::vector<unsigned char> raw_;
  std::vector<YccJob> jobs_;
};

void Feeder::run() {
  cuskimage::detail::DeviceGuard role_guard(rd_.device);
  slots_ = rd_.eng.acquire_slots(rd_.set.depth);
  const std::size_t jbase = rd_.per_role * r_;
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
  } slot_scope{rd_.eng, slots_, &rd_.joins[jbase], &rd_.joined[jbase], std::vector<bool>(slots_.size(), false)};
  for (Slot* s : slots_)
    if (s->pending) {  // left by a read that ended in an exception
      cudaEventSynchronize(s->done);
      s->pending = false;
    }
  const std::size_t hj = jbase + rd_.per_role - 1;
  StagingScope host{rd_.eng, rd_.ready, rd_.joins[hj], rd_.joined[hj]};  // for batches nvJPEG fails, and host units at the end
  ramp_ = rd_.set.ramp > 0 ? static_cast<std::size_t>(rd_.set.ramp) : static_cast<std::size_t>(rd_.set.batch);

  while (!rd_.stop && !rd_.gpu_failed) {
    const std::size_t si = which_;
    Slot& s = *slots_[si];
    wait_slot(s);
    std::size_t b = 0, c = 0;
    bool wait_more = false;
    if (!take_batch(b, c, wait_more)) break;
    if (wait_more || c == 0) {
      // The GPU has enough in flight for now: wait for a batch of this feeder to finish, or for
      // the other feeders'; with nothing in flight the host workers finish the rest sooner.
      if (const std::size_t p = any_pending(); p < slots_.size()) {
        wait_slot(*slots_[p]);
        continue;
      }
      if (rd_.in_flight.load() > 0) {
        std::this_thread::sleep_for(std::chrono::microseconds(20));
        continue;
      }
      break;
    }
    ramp_ = std::min<std::size_t>(ramp_ * 2, static_cast<std::size_t>(rd_.set.batch));
    which_ = (which_ + 1) % slots_.size();
    if (!slot_scope.used[si]) {
      CUSK_CUDA_CHECK(cudaStreamWaitEvent(s.stream, rd_.ready, 0));
      slot_scope.used[si] = true;
    }
    decode_batch(s, b, c, host);
  }
  for (Slot* s : slots_) wait_slot(*s);
  // The GPU's queue is done (or nvJPEG failed): help with what is left on the host decoder.
  std::size_t u;
  while (!rd_.stop && rd_.take_host_unit(u)) rd_.host_unit(host.get(), rd_.units[u], raw_);
}

void Feeder::wait_slot(Slot& s) {
  if (!s.pending) return;
  CUSK_CUDA_CHECK(cudaEventSynchronize(s.done));
  s.pending = false;
  rd_.in_flight -= static_cast<std::int64_t>(s.tiles);
  const double t = seconds_since(rd_.t_start);
  std::lock_guard lock(rd_.stats_mu);
  rd_.gpu_last = std::max(rd_.gpu_last, t);
}

std::size_t Feeder::any_pending() const {
  for (std::size_t i = 0; i < slots_.size(); ++i)
    if (slots_[(which_ + i) % slots_.size()]->pending) return (which_ + i) % slots_.size();
  return slots_.size();
}

/// How much to take (order[b, b + c)): with host workers, the most that keeps the GPU's work in
/// flight within what the host workers need for the rest; without, an even share of what is left.
/// `wait_more`: too little for now. false: nothing is left.
bool Feeder::take_batch(std::size_t& b, std::size_t& c, bool& wait_more) {
  std::lock_guard lock(rd_.queue_mu);
  const std::size_t left = rd_.back - rd_.front;
  if (left == 0) return false;
  const std::size_t lim = std::min<std::size_t>({left, static_cast<std::size_t>(rd_.set.batch), ramp_});
  if (rd_.nh == 0) {
    c = std::min(lim, (left + rd_.nf - 1) / static_cast<std::size_t>(rd_.nf));
  } else {
    const double inflight = static_cast<double>(std::max<std::int64_t>(0, rd_.in_flight.load()));
    c = gpu_chunk(inflight, rd_.gpu_rate, rd_.host_total_rate, rd_.prefix.data(), rd_.front, rd_.back, lim);
    if (c < static_cast<std::size_t>(rd_.set.min_chunk) && c < left && inflight > 0) wait_more = true;
  }
  if (!wait_more && c > 0) {
    c = floor_pow2(c);
    b = rd_.front;
    rd_.front += c;
    rd_.in_flight += static_cast<std::int64_t>(c);
  }
  return true;
}

/// order[b, b + c) on slot s, falling back from stacks to single tiles, from the exact colour path
/// to nvJPEG's RGB, and from nvJPEG to the host decoder.
void Feeder::decode_batch(Slot& s, std::size_t b, std::size_t c, StagingScope& host) {
  const bool exact = rd_.eng.exact(rd_.set);
  const std::size_t k = exact ? rd_.eng.stack(rd_.set) : 1;
  bool ok = submit(s, b, c, exact, k);
  if (!ok && k > 1) {
    // A stacked batch refused: single tiles from now on when they work.
    const nvjpegStatus_t why = refused_;
    ok = submit(s, b, c, exact, 1);
    if (ok) rd_.eng.stack_failed(status_text(why) + " for a stacked batch");
  }
  if (!ok && exact) {
    // YCbCr output refused: nvJPEG's RGB from now on when that works (a corrupt tile fails both).
    const nvjpegStatus_t why = refused_;
    ok = submit(s, b, c, false, 1);
    if (ok) rd_.eng.exact_failed(status_text(why) + " for YCbCr output");
  }
  if (!ok) {
    // The host decoder takes this batch (and decides whether the tiles are corrupt), and the rest.
    rd_.in_flight -= static_cast<std::int64_t>(c);
    rd_.gpu_failed = true;
    for (std::size_t i = b; i < b + c; ++i) rd_.host_unit(host.get(), rd_.units[rd_.order[i]], raw_);
  }
}

/// One batch: order[b, b + c) on slot s; on the exact path runs of up to k tiles of one level as
/// one stacked image. false: nvJPEG refused it (`refused_` says how; nothing was queued).
bool Feeder::submit(Slot& s, std::size_t b, std::size_t c, bool exact, std::size_t k) {
  const std::size_t scratch_need = exact ? stage_stacks(s, b, c, k) : stage_tiles(s, b, c);
  reserve_scratch(s, scratch_need, c);
  const std::size_t most = describe_images(s, b, c, exact);  // tiles in the largest image
  const std::size_t n = s.data.size();                       // images handed to nvJPEG
  const nvjpegOutputFormat_t format = exact ? NVJPEG_OUTPUT_YUV : NVJPEG_OUTPUT_RGBI;
  nvjpegStatus_t st = NVJPEG_STATUS_SUCCESS;
  nvjpegJpegState_t state = rd_.eng.state_for(s, static_cast<int>(n), format, *rd_.first_part(b).image, std::max(k, most), st);
  if (state) st = nvjpegDecodeBatched(rd_.eng.handle(), state, s.data.data(), s.lengths.data(), s.images.data(), s.stream);
  if (st != NVJPEG_STATUS_SUCCESS) {
    for (State& x : s.states)
      if (x.state == state) x.batch = 0;  // re-initialise before the next use
    refused_ = st;
    return false;
  }
  {
    std::lock_guard lock(rd_.stats_mu);
    if (rd_.gpu_first < 0) rd_.gpu_first = seconds_since(rd_.t_start);
  }
  // The parts: the colour kernel (exact) or crops of the scratch tiles, in stream order.
  if (exact) {
    queue_colour(s, b, c);
  } else {
    queue_crops(s, b, n);
  }
  CUSK_CUDA_CHECK(cudaEventRecord(s.done, s.stream));
  s.pending = true;
  s.tiles = c;
  rd_.n_gpu += c;
  return true;
}

/// Exact path: one image per group, a stack built straight from the tiles as stored (one copy
/// each), or a single tile merged with its tables. A tile another header refuses starts the next
/// group. Returns the scratch bytes of their planes.
std::size_t Feeder::stage_stacks(Slot& s, std::size_t b, std::size_t c, std::size_t k) {
  std::size_t scratch_need = 0;
  s.groups.clear();
  std::size_t i = 0;
  bool have_next = false;  // s.raw holds tile i already (fetched by the last group's refusal)
  while (i < c) {
    const DevicePart& p = rd_.first_part(b + i);
    const TiledImage* img = p.image;
    const LevelInfo& li = rd_.level_of(img);
    if (!have_next) rd_.fetch(*img, p.index, s.raw);
    have_next = false;
    const std::size_t g = s.groups.size();
    if (s.streams.size() <= g) s.streams.resize(g + 1);
    std::size_t m = 1;
    if (k > 1 && li.stack && s.stacker.begin(img->jpeg_tables, s.raw.data(), s.raw.size(), s.streams[g])) {
      while (m < k && i + m < c) {
        const DevicePart& q = rd_.first_part(b + i + m);
        if (q.image != img) break;
        rd_.fetch(*img, q.index, s.raw);
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
  return scratch_need;
}

/// nvJPEG RGB path: one image per tile; tiles not written in place get scratch. Returns its bytes.
std::size_t Feeder::stage_tiles(Slot& s, std::size_t b, std::size_t c) {
  std::size_t scratch_need = 0;
  if (s.streams.size() < c) s.streams.resize(c);
  s.offset.assign(c, ~std::size_t(0));
  for (std::size_t i = 0; i < c; ++i) {
    const DeviceUnit& u = rd_.units[rd_.order[b + i]];
    const DevicePart& p = rd_.parts[u.first];
    rd_.fetch(*p.image, p.index, s.raw);
    merge_jpeg_tables_into(*p.image, s.raw, s.streams[i]);
    if (!(u.count == 1 && in_place(p))) {
      s.offset[i] = scratch_need;
      scratch_need += align_up(tile_bytes(*p.image, 3), 256);
    }
  }
  return scratch_need;
}

/// Grows the slot's scratch to `need` bytes (room for full batches of the same tiles).
void Feeder::reserve_scratch(Slot& s, std::size_t need, std::size_t c) {
  if (need <= s.scratch_bytes) return;
  if (s.scratch) CUSK_CUDA_CHECK(cudaFreeAsync(s.scratch, s.stream));
  s.scratch = nullptr;
  s.scratch_bytes = 0;
  const std::size_t bytes = std::max(need, need / std::max<std::size_t>(c, 1) * static_cast<std::size_t>(rd_.set.batch));
  CUSK_CUDA_CHECK(cudaMallocAsync(reinterpret_cast<void**>(&s.scratch), bytes, s.stream));
  s.scratch_bytes = bytes;
}

/// nvJPEG's inputs and output descriptors of the staged batch; returns the tiles in its largest image.
std::size_t Feeder::describe_images(Slot& s, std::size_t b, std::size_t c, bool exact) {
  const std::size_t n = exact ? s.groups.size() : c;
  s.data.resize(n);
  s.lengths.resize(n);
  s.images.assign(n, nvjpegImage_t{});
  std::size_t most = 1;
  if (exact) {
    for (std::size_t g = 0; g < n; ++g) {
      const Slot::Group& gr = s.groups[g];
      s.data[g] = s.streams[g].data();
      s.lengths[g] = s.streams[g].size();
      const TiledImage& t = *rd_.first_part(b + gr.first).image;
      const LevelInfo& li = rd_.level_of(&t);
      const Planes pl = planes_of(t, li.hs, li.vs, gr.count);
      s.images[g] = planes_image(s.scratch + gr.offset, pl);
      most = std::max(most, gr.count);
    }
  } else {
    for (std::size_t i = 0; i < n; ++i) {
      const DevicePart& p = rd_.first_part(b + i);
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
  return most;
}

/// Exact path: one colour job per part, converted by one kernel on the slot's stream.
void Feeder::queue_colour(Slot& s, std::size_t b, std::size_t c) {
  jobs_.clear();
  std::int64_t max_pixels = 0;
  for (const Slot::Group& gr : s.groups) {
    const TiledImage& t = *rd_.first_part(b + gr.first).image;
    const LevelInfo& li = rd_.level_of(&t);
    const Planes pl = planes_of(t, li.hs, li.vs, gr.count);
    const unsigned char* base = s.scratch + gr.offset;
    for (std::size_t q = 0; q < gr.count; ++q) {
      const DeviceUnit& u = rd_.units[rd_.order[b + gr.first + q]];
      for (std::size_t kk = u.first; kk < u.first + u.count; ++kk) {
        const DevicePart& p = rd_.parts[kk];
        YccJob jb = tile_job(base, pl, q, li, t);
        jb.dst = p.dst, jb.dst_pitch = p.pitch;
        jb.x0 = static_cast<std::int32_t>(p.x0), jb.y0 = static_cast<std::int32_t>(p.y0);
        jb.w = static_cast<std::int32_t>(p.x1 - p.x0), jb.h = static_cast<std::int32_t>(p.y1 - p.y0);
        max_pixels = std::max<std::int64_t>(max_pixels, std::int64_t(jb.w) * jb.h);
        jobs_.push_back(jb);
      }
    }
  }
  if (jobs_.size() > s.jobs_cap) {
    if (s.jobs_host) CUSK_CUDA_CHECK(cudaFreeHost(s.jobs_host));
    if (s.jobs_dev) CUSK_CUDA_CHECK(cudaFreeAsync(s.jobs_dev, s.stream));
    s.jobs_host = nullptr, s.jobs_dev = nullptr, s.jobs_cap = 0;
    const std::size_t cap = std::max<std::size_t>(jobs_.size(), static_cast<std::size_t>(rd_.set.batch) * 2);
    CUSK_CUDA_CHECK(cudaHostAlloc(reinterpret_cast<void**>(&s.jobs_host), cap * sizeof(YccJob), cudaHostAllocDefault));
    CUSK_CUDA_CHECK(cudaMallocAsync(reinterpret_cast<void**>(&s.jobs_dev), cap * sizeof(YccJob), s.stream));
    s.jobs_cap = cap;
  }
  std::memcpy(s.jobs_host, jobs_.data(), jobs_.size() * sizeof(YccJob));  // the slot's last copy finished (waited)
  CUSK_CUDA_CHECK(cudaMemcpyAsync(s.jobs_dev, s.jobs_host, jobs_.size() * sizeof(YccJob), cudaMemcpyHostToDevice, s.stream));
  launch_ycc_jobs(s.jobs_dev, static_cast<int>(jobs_.size()), max_pixels, s.stream);
  rd_.n_exact += c;
}

/// nvJPEG RGB path: the parts of tiles decoded into scratch, copied out on the slot's stream.
void Feeder::queue_crops(Slot& s, std::size_t b, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) {
    if (s.offset[i] == ~std::size_t(0)) continue;
    const DeviceUnit& u = rd_.units[rd_.order[b + i]];
    const TiledImage& t = *rd_.parts[u.first].image;
    const std::size_t tp = static_cast<std::size_t>(t.tile_width) * 3;
    for (std::size_t kk = u.first; kk < u.first + u.count; ++kk) {
      const DevicePart& p = rd_.parts[kk];
      const unsigned char* src = s.scratch + s.offset[i] + static_cast<std::size_t>(p.y0) * tp + static_cast<std::size_t>(p.x0) * 3;
      CUSK_CUDA_CHECK(cudaMemcpy2DAsync(p.dst, p.pitch, src, tp, static_cast<std::size_t>(p.x1 - p.x0) * 3,
                                        static_cast<std::size_t>(p.y1 - p.y0), cudaMemcpyDeviceToDevice, s.stream));
    }
  }
}

/// Runs the roles after `stream`'s earlier work and joins them back into it.
DeviceDecodeCounts DeviceRead::run(cudaStream_t stream) {
  // Everything below runs after the caller's stream has allocated and filled the outputs.
  std::vector<cudaEvent_t> ready_v = eng.acquire_events(1);
  ready = ready_v[0];
  CUSK_CUDA_CHECK(cudaEventRecord(ready, stream));
  t_start = Clock::now();

  // A per-thread default stream names another stream on each thread, so only the caller may make
  // `stream` wait for the roles' events.
  const int roles = nf + nh;
  per_role = static_cast<std::size_t>(set.depth) + 1;
  joins = eng.acquire_events(per_role * static_cast<std::size_t>(roles));
  joined.assign(joins.size(), 0);
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

  parallel_for(static_cast<std::size_t>(roles), roles, [&](std::size_t r) {
    try {
      if (static_cast<int>(r) < nf) Feeder(*this, r).run();
      else host_worker(r);
    } catch (...) {
      stop = true;
      throw;
    }
  });
  DeviceDecodeCounts counts;
  counts.gpu = n_gpu.load();
  counts.host = n_host.load();
  counts.gpu_exact = n_exact.load();
  // The rates the next reads balance with: the GPU's over its busy span, the host's per worker.
  const double g = counts.gpu >= 32 && gpu_last > gpu_first && gpu_first >= 0 ? static_cast<double>(counts.gpu) / (gpu_last - gpu_first) : 0;
  const double h = host_cost_done >= 8 && host_busy > 0 ? host_cost_done / host_busy : 0;
  if (nf > 0 && nh > 0) eng.observe_rates(g, h);
  return counts;
}

}  // namespace
}  // namespace nvj

DeviceDecodeCounts device_decode(int device, const std::vector<DevicePart>& parts, const std::vector<DeviceUnit>& units,
                                 int feeders, int host_workers, const FetchFn& fetch, const std::string& path,
                                 cudaStream_t stream) {
  cuskimage::detail::DeviceGuard guard(device);
  nvj::Engine& eng = nvj::engine(device);
  if (units.empty()) return {};
  nvj::DeviceRead read(eng, device, parts, units, fetch, path, nvj::settings_of(tuning::wsi_nvjpeg_policy()));
  read.plan(feeders, host_workers);
  return read.run(stream);
}

}  // namespace cuskimage::wsi::detail
#endif
