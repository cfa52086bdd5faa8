// numpy's np.random.default_rng(seed).permutation(n), reproduced exactly (host only): SeedSequence
// seeds PCG64 (128-bit LCG, XSL-RR output); Generator.shuffle draws j = random_interval(i) for
// i = n-1 .. 1 (masked rejection on buffered 32-bit halves while i < 2^32) and swaps a[i], a[j].
// morphology.medial_axis uses it as scikit-image does, for its tie-break order.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <memory>
#include <numeric>
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
  /// the last piece is shorter); `t` is reused once sink returns. No buffer grows with n: a piece
  /// and one batch of generator outputs (2 MiB) are reused, so a caller can upload each piece while
  /// the next one is drawn (medial_axis on CUDA) and no per-call host memory is touched for the first
  /// time (fresh pages cost more than the scan itself in a VM).
  /// The 64-bit outputs are generated in parallel blocks (PCG64 jumps ahead in O(log n)); the
  /// acceptance scan is sequential, one octave of the mask at a time.
  template <class Sink>
  void shuffle_target_pieces(std::int64_t n, std::int64_t piece, Sink&& sink, std::int64_t batch_outputs = 0) {
    if (n <= 1) return;
    constexpr std::int64_t kBlock = std::int64_t(1) << 14;   // 64-bit outputs per parallel block
    constexpr std::int64_t kBatch = std::int64_t(1) << 18;   // outputs per batch (16 blocks)
    const std::int64_t total = n - 1;
    piece = std::clamp<std::int64_t>(piece, 1, total);
    std::uint64_t i = static_cast<std::uint64_t>(total), mask = i;
    for (int sh : {1, 2, 4, 8, 16, 32}) mask |= mask >> sh;
    const std::unique_ptr<std::uint32_t[]> out(new std::uint32_t[static_cast<std::size_t>(piece)]);
    std::unique_ptr<std::uint64_t[]> buf;
    std::int64_t buf_cap = 0;
    std::int64_t base = 0, j = 0;  // the current piece's first target; targets found in it
    std::uint64_t produced = 0;    // outputs generated so far
    const NumpyPermutation origin = *this;
    while (i > 0) {
      // ~1.39 draws (0.7 outputs) per remaining step on average, at most 2 per step in expectation.
      const std::int64_t want = batch_outputs > 0 ? batch_outputs
                                                  : std::min<std::int64_t>(kBatch, static_cast<std::int64_t>(i) * 3 / 4 + 4096);
      const std::int64_t blocks = (want + kBlock - 1) / kBlock;
      if (blocks * kBlock > buf_cap) {
        buf_cap = blocks * kBlock;
        buf.reset(new std::uint64_t[static_cast<std::size_t>(buf_cap)]);  // not value-initialised
      }
      std::uint64_t* const bp = buf.get();
#pragma omp parallel for schedule(static) if (blocks > 1)
      for (std::int64_t b = 0; b < blocks; ++b) {
        NumpyPermutation g = origin;
        g.advance(produced + static_cast<std::uint64_t>(b * kBlock));
        std::uint64_t* dst = bp + b * kBlock;
        for (std::int64_t t = 0; t < kBlock; ++t) dst[t] = g.next64();
      }
      produced += static_cast<std::uint64_t>(blocks * kBlock);
      const std::int64_t draws = 2 * blocks * kBlock;
      std::uint32_t* const o = out.get();
      std::int64_t q = 0;
      while (i > 0 && q < draws) {
        // Each draw finds at most one target, so this many draws cannot overrun the piece.
        const std::int64_t limit = std::min<std::int64_t>(draws, q + (piece - j));
        while (i > 0 && q < limit) {
          const std::uint64_t half = mask >> 1;  // this octave: half < i <= mask
          while (q < limit && i > half) {
            const std::uint64_t word = bp[q >> 1];
            const std::uint64_t v = ((q & 1) ? (word >> 32) : (word & 0xffffffffull)) & mask;  // low half first
            ++q;
            o[j] = static_cast<std::uint32_t>(v);  // kept only when accepted (j then moves on)
            const std::uint64_t acc = v <= i;
            j += static_cast<std::int64_t>(acc);
            i -= acc;
          }
          if (i <= half) mask = half;
        }
        if (j == piece || (i == 0 && j > 0)) {
          sink(static_cast<const std::uint32_t*>(o), base, j);
          base += j;
          j = 0;
        }
      }
    }
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
