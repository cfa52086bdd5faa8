// numpy's np.random.default_rng(seed).permutation(n), reproduced exactly (host only): SeedSequence
// seeds PCG64 (128-bit LCG, XSL-RR output); Generator.shuffle draws j = random_interval(i) for
// i = n-1 .. 1 (masked rejection on buffered 32-bit halves while i < 2^32) and swaps a[i], a[j].
// morphology.medial_axis uses it as scikit-image does, for its tie-break order.
#pragma once

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <numeric>
#include <thread>
#include <utility>
#include <vector>

namespace cuskimage::morphology::detail {

class NumpyPermutation {
 public:
  explicit NumpyPermutation(std::uint64_t seed) {
    std::vector<std::uint32_t> entropy;
    do {
      entropy.push_back(static_cast<std::uint32_t>(seed));
      seed >>= 32;
    } while (seed != 0);
    std::uint32_t hash = 0x43b0d7e5u;
    auto hashmix = [&](std::uint32_t v) {
      v ^= hash;
      hash *= 0x931e8875u;
      v *= hash;
      v ^= v >> 16;
      return v;
    };
    auto mix = [](std::uint32_t x, std::uint32_t y) {
      std::uint32_t r = 0xca01f9ddu * x - 0x4973f715u * y;
      return r ^ (r >> 16);
    };
    std::array<std::uint32_t, 4> pool{};
    for (std::size_t i = 0; i < 4; ++i) pool[i] = hashmix(i < entropy.size() ? entropy[i] : 0u);
    for (std::size_t a = 0; a < 4; ++a)
      for (std::size_t b = 0; b < 4; ++b)
        if (a != b) pool[b] = mix(pool[b], hashmix(pool[a]));
    for (std::size_t a = 4; a < entropy.size(); ++a)
      for (std::size_t b = 0; b < 4; ++b) pool[b] = mix(pool[b], hashmix(entropy[a]));
    std::uint32_t hb = 0x8b51f9ddu;
    std::uint64_t w[4];
    for (int i = 0; i < 8; ++i) {
      std::uint32_t v = pool[i % 4];
      v ^= hb;
      hb *= 0x58f38dedu;
      v *= hb;
      v ^= v >> 16;
      if (i % 2 == 0)
        w[i / 2] = v;
      else
        w[i / 2] |= static_cast<std::uint64_t>(v) << 32;
    }
    const U128 initstate = (static_cast<U128>(w[0]) << 64) | w[1];
    const U128 initseq = (static_cast<U128>(w[2]) << 64) | w[3];
    inc_ = (initseq << 1) | 1;
    state_ = 0;
    step();
    state_ += initstate;
    step();
  }

  /// numpy's random_interval(max) on this generator (the reference, one draw at a time).
  std::uint64_t interval(std::uint64_t max) {
    std::uint64_t mask = max;
    for (int sh : {1, 2, 4, 8, 16, 32}) mask |= mask >> sh;
    if (max <= 0xffffffffull) {
      for (;;) {
        const std::uint64_t v = next32() & mask;
        if (v <= max) return v;
      }
    }
    for (;;) {
      const std::uint64_t v = next64() & mask;
      if (v <= max) return v;
    }
  }

  /// The Fisher-Yates targets of shuffle on a fresh generator: element k is random_interval(n - 1 - k),
  /// k = 0 .. n - 2, equal to calling interval() for i = n-1 .. 1 (which it replaces: the generator's
  /// state afterwards is unspecified). Needs n - 1 <= 2^32 - 1 (every draw a buffered 32-bit half).
  /// `batch_outputs` (tests): the outputs generated per batch (0: the default).
  std::vector<std::uint32_t> shuffle_targets(std::int64_t n, std::int64_t batch_outputs = 0) {
    std::vector<std::uint32_t> out(static_cast<std::size_t>(n > 1 ? n - 1 : 0));
    shuffle_target_pieces(
        n, std::int64_t(1) << 20,
        [&](const std::uint32_t* p, std::int64_t first, std::int64_t count) {
          std::copy(p, p + count, out.begin() + first);
        },
        batch_outputs);
    return out;
  }

  /// The same targets in consecutive pieces: sink(const std::uint32_t* t, std::int64_t first,
  /// std::int64_t count) receives elements [first, first + count) in order, count <= `piece` (only
  /// the last piece is shorter); `t` is reused once sink returns. No buffer grows with n (a piece and
  /// a few 512 KiB batches of generator outputs are reused), so a caller can upload each piece while
  /// the next one is drawn (medial_axis on CUDA), and no per-call host memory is touched for the
  /// first time (first touch of fresh pages costs ~6 ms per 10 MB in the VM measured).
  /// The acceptance scan is sequential (where each draw starts depends on how many earlier draws were
  /// rejected). The generator's 64-bit outputs are not: above kPipelineMin targets, `producers`
  /// threads (0: up to 2, fewer on small hosts) make batches ahead of the scan (PCG64 jumps ahead in
  /// O(log n)), so the scan never waits for them and no parallel region is opened per batch.
  /// `batch_outputs` (tests): outputs per batch (0: kBatch).
  template <class Sink>
  void shuffle_target_pieces(std::int64_t n, std::int64_t piece, Sink&& sink, std::int64_t batch_outputs = 0,
                             int producers = 0) {
    if (n <= 1) return;
    const std::int64_t total = n - 1;
    Scanner scan(static_cast<std::uint64_t>(total), std::clamp<std::int64_t>(piece, 1, total));
    const std::int64_t batch = batch_outputs > 0 ? batch_outputs : kBatch;
    if (producers <= 0) {
      const unsigned hw = std::thread::hardware_concurrency();
      producers = hw >= 3 ? 2 : hw == 2 ? 1 : 0;
    }
    if (total <= kPipelineMin || producers <= 0) {
      // Inline: batches sized to what the rest is expected to need (~0.7 outputs per target).
      NumpyPermutation g = *this;
      std::vector<std::uint64_t> buf;
      while (!scan.done()) {
        const std::int64_t want =
            batch_outputs > 0 ? batch_outputs
                              : std::min<std::int64_t>(kBatch, static_cast<std::int64_t>(scan.left()) * 3 / 4 + 64);
        buf.resize(static_cast<std::size_t>(want));
        for (auto& w : buf) w = g.next64();
        scan.consume(buf.data(), want, sink);
      }
      return;
    }
    // Pipelined: batch b (outputs [b * batch, (b + 1) * batch)) is made by producer b % producers
    // into ring slot b % kRing once the scan has released the batch kRing before it.
    constexpr int kRing = 4;
    std::unique_ptr<std::uint64_t[]> ring(new std::uint64_t[static_cast<std::size_t>(kRing * batch)]);
    std::atomic<std::int64_t> ready[kRing];
    for (auto& r : ready) r.store(-1);
    std::atomic<std::int64_t> released{0};  // batches the scan is done with
    std::atomic<bool> stop{false};
    const NumpyPermutation origin = *this;
    auto produce = [&](int p) {
      for (std::int64_t b = p; !stop.load(std::memory_order_acquire); b += producers) {
        for (std::int64_t r = released.load(std::memory_order_acquire); r + kRing <= b;
             r = released.load(std::memory_order_acquire)) {
          if (stop.load(std::memory_order_acquire)) return;
          released.wait(r, std::memory_order_acquire);
        }
        // The scan's end bumps `released` to wake waiting producers: seen here, it comes with `stop`.
        if (stop.load(std::memory_order_acquire)) return;
        NumpyPermutation g = origin;
        g.advance(static_cast<std::uint64_t>(b * batch));
        std::uint64_t* dst = ring.get() + (b % kRing) * batch;
        for (std::int64_t t = 0; t < batch; ++t) {
          if ((t & 4095) == 4095 && stop.load(std::memory_order_relaxed)) return;  // the scan has ended
          dst[t] = g.next64();
        }
        ready[b % kRing].store(b, std::memory_order_release);
        ready[b % kRing].notify_all();
      }
    };
    std::vector<std::thread> threads;
    threads.reserve(static_cast<std::size_t>(producers));
    auto finish = [&] {
      stop.store(true, std::memory_order_release);
      released.fetch_add(kRing, std::memory_order_acq_rel);  // wakes producers waiting for a slot
      released.notify_all();
      for (auto& t : threads) t.join();
    };
    try {
      for (int p = 0; p < producers; ++p) threads.emplace_back(produce, p);
      for (std::int64_t b = 0; !scan.done(); ++b) {
        std::atomic<std::int64_t>& slot = ready[b % kRing];
        for (std::int64_t v = slot.load(std::memory_order_acquire); v != b; v = slot.load(std::memory_order_acquire))
          slot.wait(v, std::memory_order_acquire);
        scan.consume(ring.get() + (b % kRing) * batch, batch, sink);
        released.store(b + 1, std::memory_order_release);
        released.notify_all();
      }
    } catch (...) {
      finish();
      throw;
    }
    finish();
  }

  /// numpy's permutation(n) (shuffle of arange(n)).
  std::vector<std::int64_t> permutation(std::int64_t n) {
    std::vector<std::int64_t> a(static_cast<std::size_t>(n > 0 ? n : 0));
    std::iota(a.begin(), a.end(), 0);
    if (n - 1 <= 0xffffffffll) {
      const std::vector<std::uint32_t> t = shuffle_targets(n);
      for (std::int64_t k = 0; k + 1 < n; ++k) std::swap(a[n - 1 - k], a[t[k]]);
      return a;
    }
    for (std::int64_t i = n - 1; i > 0; --i) std::swap(a[i], a[interval(static_cast<std::uint64_t>(i))]);
    return a;
  }

 private:
  using U128 = unsigned __int128;
  static constexpr U128 kMult = (static_cast<U128>(2549297995355413924ull) << 64) | 4865540595714422341ull;

  static constexpr std::int64_t kBatch = std::int64_t(1) << 16;        // outputs per batch (512 KiB)
  static constexpr std::int64_t kPipelineMin = std::int64_t(1) << 18;  // targets below: no threads

  /// numpy's acceptance scan over 32-bit halves of the generator's outputs (low half first), the
  /// targets collected in pieces.
  class Scanner {
   public:
    Scanner(std::uint64_t total, std::int64_t piece)
        : i_(total), mask_(total), piece_(piece), out_(new std::uint32_t[static_cast<std::size_t>(piece)]) {
      for (int sh : {1, 2, 4, 8, 16, 32}) mask_ |= mask_ >> sh;
    }
    bool done() const { return i_ == 0; }
    std::uint64_t left() const { return i_; }

    /// Draws from `words` 64-bit outputs (all of them unless the scan ends inside).
    template <class Sink>
    void consume(const std::uint64_t* bp, std::int64_t words, Sink& sink) {
      const std::int64_t draws = 2 * words;
      std::uint64_t i = i_, mask = mask_;
      std::int64_t j = j_;
      std::uint32_t* const o = out_.get();
      std::int64_t q = 0;
      while (i > 0 && q < draws) {
        // Each draw finds at most one target, so this many draws cannot overrun the piece.
        const std::int64_t limit = std::min<std::int64_t>(draws, q + (piece_ - j));
        while (i > 0 && q < limit) {
          const std::uint64_t half = mask >> 1;  // this octave: half < i <= mask
          // Both halves of a word per step while one acceptance cannot leave the octave: the
          // second draw's test (v1 <= i - a0) is taken both ways at once, which shortens the
          // dependent chain through i (~25% faster than one draw per step).
          while ((q & 1) == 0 && q + 2 <= limit && i > half + 1) {
            const std::uint64_t word = bp[q >> 1];
            const std::uint64_t v0 = word & 0xffffffffull & mask, v1 = (word >> 32) & mask;
            q += 2;
            const std::uint64_t a0 = v0 <= i;
            const std::uint64_t a1 =
                static_cast<std::uint64_t>(v1 <= i) & (static_cast<std::uint64_t>(v1 < i) | (a0 ^ 1));
            o[j] = static_cast<std::uint32_t>(v0);  // kept only when accepted (j then moves on)
            j += static_cast<std::int64_t>(a0);
            o[j] = static_cast<std::uint32_t>(v1);
            j += static_cast<std::int64_t>(a1);
            i -= a0 + a1;
          }
          // One draw at a time near the octave's end, at an odd position or against the limit.
          while (q < limit && i > half) {
            const std::uint64_t word = bp[q >> 1];
            const std::uint64_t v = ((q & 1) ? (word >> 32) : (word & 0xffffffffull)) & mask;
            ++q;
            o[j] = static_cast<std::uint32_t>(v);
            const std::uint64_t acc = v <= i;
            j += static_cast<std::int64_t>(acc);
            i -= acc;
            if ((q & 1) == 0 && q + 2 <= limit && i > half + 1) break;  // back to pairs
          }
          if (i <= half) mask = half;
        }
        if (j == piece_ || (i == 0 && j > 0)) {
          sink(static_cast<const std::uint32_t*>(o), base_, j);
          base_ += j;
          j = 0;
        }
      }
      i_ = i, mask_ = mask, j_ = j;
    }

   private:
    std::uint64_t i_, mask_;
    std::int64_t piece_, base_ = 0, j_ = 0;  // piece size; its first target; targets found in it
    std::unique_ptr<std::uint32_t[]> out_;
  };

  void step() { state_ = state_ * kMult + inc_; }
  /// Jumps `delta` steps ahead (Brown's LCG advance).
  void advance(std::uint64_t delta) {
    U128 acc_mult = 1, acc_plus = 0, cur_mult = kMult, cur_plus = inc_;
    while (delta > 0) {
      if (delta & 1) {
        acc_mult *= cur_mult;
        acc_plus = acc_plus * cur_mult + cur_plus;
      }
      cur_plus = (cur_mult + 1) * cur_plus;
      cur_mult *= cur_mult;
      delta >>= 1;
    }
    state_ = acc_mult * state_ + acc_plus;
  }
  std::uint64_t next64() {
    step();
    const std::uint64_t x = static_cast<std::uint64_t>(state_ >> 64) ^ static_cast<std::uint64_t>(state_);
    const unsigned rot = static_cast<unsigned>(state_ >> 122);
    return (x >> rot) | (x << ((64 - rot) & 63));
  }
  std::uint32_t next32() {
    if (has32_) {
      has32_ = false;
      return buf32_;
    }
    const std::uint64_t v = next64();
    has32_ = true;
    buf32_ = static_cast<std::uint32_t>(v >> 32);
    return static_cast<std::uint32_t>(v);
  }

  U128 state_ = 0, inc_ = 0;
  bool has32_ = false;
  std::uint32_t buf32_ = 0;
};

}  // namespace cuskimage::morphology::detail
