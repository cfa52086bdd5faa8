// The decoded-tile LRU cache and the worker pool of the wsi reader.
#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <deque>
#include <exception>
#include <thread>

#include "src/wsi/wsi_detail.hpp"

namespace cuskimage::wsi::detail {

[[noreturn]] void format_error(const std::string& path, const std::string& what) {
  throw FormatError("wsi: '" + path + "': " + what);
}

// ---- TileCache -------------------------------------------------------------------------------------
TileCache::Tile TileCache::get(std::uint64_t key) {
  std::lock_guard lock(mu_);
  auto it = index_.find(key);
  if (it == index_.end()) {
    ++misses_;
    return nullptr;
  }
  ++hits_;
  lru_.splice(lru_.begin(), lru_, it->second);
  return it->second->tile;
}

void TileCache::put(std::uint64_t key, Tile tile) {
  std::lock_guard lock(mu_);
  if (!tile || tile->size() > capacity_) return;
  if (auto it = index_.find(key); it != index_.end()) {  // another thread decoded it too
    lru_.splice(lru_.begin(), lru_, it->second);
    return;
  }
  used_ += tile->size();
  lru_.push_front({key, std::move(tile)});
  index_[key] = lru_.begin();
  evict_locked();
}

bool TileCache::admit(std::uint64_t key, std::size_t tile_bytes) {
  std::lock_guard lock(mu_);
  if (capacity_ == 0 || tile_bytes == 0 || tile_bytes > capacity_) return false;
  const std::size_t want = std::min<std::size_t>(std::max<std::size_t>(2 * (capacity_ / tile_bytes), 64), std::size_t(1) << 20);
  int bits = 6;
  while ((std::size_t(1) << bits) < want) ++bits;
  if (bits != recent_bits_) {  // a new budget or tile size: start remembering afresh
    recent_bits_ = bits;
    recent_.assign(std::size_t(1) << bits, 0);
  }
  std::uint64_t& slot = recent_[(key * 0x9E3779B97F4A7C15ull) >> (64 - bits)];
  if (slot == key + 1) {
    slot = 0;
    return true;
  }
  slot = key + 1;
  return false;
}

void TileCache::evict_locked() {
  while (used_ > capacity_ && !lru_.empty()) {
    used_ -= lru_.back().tile->size();
    index_.erase(lru_.back().key);
    lru_.pop_back();
  }
}

void TileCache::set_capacity(std::size_t bytes) {
  std::lock_guard lock(mu_);
  capacity_ = bytes;
  evict_locked();
}

CacheStats TileCache::stats() const {
  std::lock_guard lock(mu_);
  return {capacity_, used_, lru_.size(), hits_, misses_};
}

// ---- worker pool -------------------------------------------------------------------------------------
namespace {

/// A fixed set of threads running queued jobs; grows on demand up to the largest worker count asked.
class Pool {
 public:
  static Pool& instance() {
    static Pool pool;
    return pool;
  }
  void ensure(std::size_t threads) {
    std::lock_guard lock(mu_);
    while (threads_.size() < threads) threads_.emplace_back([this] { loop(); });
  }
  void submit(std::function<void()> job) {
    {
      std::lock_guard lock(mu_);
      jobs_.push_back(std::move(job));
    }
    cv_.notify_one();
  }
  ~Pool() {
    {
      std::lock_guard lock(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    for (auto& t : threads_) t.join();
  }

 private:
  void loop() {
    for (;;) {
      std::function<void()> job;
      {
        std::unique_lock lock(mu_);
        cv_.wait(lock, [&] { return stop_ || !jobs_.empty(); });
        if (jobs_.empty()) return;
        job = std::move(jobs_.front());
        jobs_.pop_front();
      }
      job();
    }
  }
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> jobs_;
  std::vector<std::thread> threads_;
  bool stop_ = false;
};

}  // namespace

void parallel_for(std::size_t n, int workers, const std::function<void(std::size_t)>& fn) {
  if (workers <= 0) workers = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  const std::size_t helpers = std::min<std::size_t>(static_cast<std::size_t>(workers) - 1, n > 0 ? n - 1 : 0);
  if (helpers == 0) {
    for (std::size_t i = 0; i < n; ++i) fn(i);
    return;
  }
  // Shared by the caller and the helpers; the caller waits until every helper has left.
  struct State {
    std::atomic<std::size_t> next{0};
    std::mutex mu;
    std::condition_variable cv;
    std::size_t running = 0;
    std::exception_ptr error;
  };
  auto st = std::make_shared<State>();
  const auto work = [st, n, &fn] {
    for (;;) {
      const std::size_t i = st->next.fetch_add(1);
      if (i >= n) break;
      try {
        fn(i);
      } catch (...) {
        std::lock_guard lock(st->mu);
        if (!st->error) st->error = std::current_exception();
        st->next = n;  // stop handing out work
      }
    }
  };
  Pool& pool = Pool::instance();
  pool.ensure(helpers);
  st->running = helpers;
  for (std::size_t h = 0; h < helpers; ++h)
    pool.submit([st, work] {
      work();
      std::lock_guard lock(st->mu);
      if (--st->running == 0) st->cv.notify_all();
    });
  work();
  std::unique_lock lock(st->mu);
  st->cv.wait(lock, [&] { return st->running == 0; });
  if (st->error) std::rethrow_exception(st->error);
}

}  // namespace cuskimage::wsi::detail
