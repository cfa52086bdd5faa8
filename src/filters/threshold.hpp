// Threshold selection from a histogram, written once for both backends: the CPU calls these
// functions directly, the CUDA backend runs them in a one-thread kernel on the device-resident
// histogram (a few thousand flops for 256 bins, so that only the final value crosses to the host).
//
// Every function follows scikit-image 0.26 operation by operation in NumPy's dtypes: counts are
// float32, cumulative sums are sequential, counts * bin_centers is float64 for integer centres and
// float32 for float32 centres, argmax/argmin return the first index (a NaN wins argmax, as NumPy).
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "src/core/hd.hpp"
#include "src/filters/histogram.hpp"

namespace cuskimage::filters::detail {

enum class Method : int { otsu, yen, isodata, minimum, triangle, multiotsu, li };

enum Status : int {
  kOk = 0,
  kEmpty = 1,            // empty image
  kNonFinite = 2,        // NaN or infinity in a float image (numpy.histogram's ValueError)
  kTooFewValues = 3,     // multiotsu: fewer distinct values than classes
  kNoThreshold = 4,      // isodata: no threshold satisfies the criterion
  kNoTwoMaxima = 5,      // minimum: smoothing did not leave two maxima
  kMaxIter = 6,          // minimum: max_num_iter reached
  kBadGuess = 7,         // li: initial_guess outside the image's range
  kZeroWeights = 8,      // li: a class became empty (NumPy's ZeroDivisionError)
};

struct SelectParams {
  Method method = Method::otsu;
  std::int64_t nbins = 256;
  int classes = 3;
  std::int64_t max_num_iter = 10000;
  bool return_all = false;
  std::int64_t capacity = 1;  // room for values in SelectResult
  double tolerance = 0;       // li: 0 = scikit-image's default
  bool has_guess = false;     // li: initial_guess given
  double guess = 0;
};

/// Header of the result buffer: status, number of values, then `capacity` values (doubles).
struct SelectResult {
  double status;
  double count;
  double nvalues_seen;  // multiotsu: distinct values (for the message)
};
inline constexpr int kResultHeader = 3;

// ---- histogram accessors ---------------------------------------------------------------------------
/// Raw integer counts of a histogram window [offset, offset + n).
struct RawCounts {
  const unsigned long long* p;
  std::int64_t offset;
  CUSK_HD float f(std::int64_t i) const { return static_cast<float>(p[offset + i]); }
  CUSK_HD long long raw(std::int64_t i) const { return static_cast<long long>(p[offset + i]); }
};
/// Counts given by the caller (hist=), already float32.
struct FloatCountsView {
  const float* p;
  std::int64_t offset;
  CUSK_HD float f(std::int64_t i) const { return p[offset + i]; }
  CUSK_HD long long raw(std::int64_t i) const { return static_cast<long long>(p[offset + i]); }
};

/// Integer bin centres base + i; NumPy multiplies float32 counts by int64 centres in float64.
struct IntCenters {
  long long base;
  using prod = double;
  using value = long long;
  CUSK_HD long long operator()(std::int64_t i) const { return base + i; }
};
/// numpy.histogram centres in precision T.
template <class T>
struct FloatCenters {
  FloatBins<T> bins;
  using prod = T;
  using value = T;
  CUSK_HD T operator()(std::int64_t i) const { return bins.center(i); }
};
/// Caller-given centres (hist=(counts, centers)) of type C.
template <class C>
struct TableCenters {
  const C* p;
  std::int64_t offset;
  using prod = std::conditional_t<std::is_same_v<C, float>, float, double>;
  using value = C;
  CUSK_HD C operator()(std::int64_t i) const { return p[offset + i]; }
};

template <class F>
CUSK_HD bool is_nan(F x) {
  return x != x;
}

/// NumPy's pairwise summation of f(lo .. lo + n): blocks of up to 128 elements summed with 8
/// accumulators, halves split at a multiple of 8. Iterative (an explicit stack) so that the
/// device code needs no recursion. Acc is float (float32 sums) or double.
template <class Acc, class F>
CUSK_HD Acc pairwise(const F& f, std::int64_t lo, std::int64_t n) {
  auto leaf = [&](std::int64_t a, std::int64_t m) -> Acc {
    if (m < 8) {
      Acc r = Acc(0);
      for (std::int64_t i = 0; i < m; ++i) r = r + f(a + i);
      return r;
    }
    Acc r[8];
    for (int k = 0; k < 8; ++k) r[k] = f(a + k);
    std::int64_t i = 8;
    for (; i < m - (m % 8); i += 8)
      for (int k = 0; k < 8; ++k) r[k] = r[k] + f(a + i + k);
    Acc res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
    for (; i < m; ++i) res = res + f(a + i);
    return res;
  };
  struct Frame {
    std::int64_t lo, n;
    Acc left;
    int stage;
  };
  Frame st[48];  // depth <= log2(n / 128) + 1
  int sp = 0;
  st[0] = Frame{lo, n, Acc(0), 0};
  Acc ret = Acc(0);
  while (sp >= 0) {
    Frame& fr = st[sp];
    if (fr.n <= 128) {
      ret = leaf(fr.lo, fr.n);
      --sp;
      continue;
    }
    std::int64_t n2 = fr.n / 2;
    n2 -= n2 % 8;
    if (fr.stage == 0) {
      fr.stage = 1;
      st[sp + 1] = Frame{fr.lo, n2, Acc(0), 0};
      ++sp;
    } else if (fr.stage == 1) {
      fr.left = ret;
      fr.stage = 2;
      st[sp + 1] = Frame{fr.lo + n2, fr.n - n2, Acc(0), 0};
      ++sp;
    } else {
      ret = fr.left + ret;
      --sp;
    }
  }
  return ret;
}

/// NumPy's float32 sum of the counts (counts.sum()).
template <class Cnt>
CUSK_HD float pairwise_sum(const Cnt& c, std::int64_t lo, std::int64_t n) {
  return pairwise<float>([&](std::int64_t i) { return c.f(i); }, lo, n);
}

// ---- otsu ------------------------------------------------------------------------------------------
/// First-index argmax step as NumPy's: a NaN wins (the first one), else the larger value, ties keep
/// the lower index. Returns true when (v, i) beats (best_v, best_i).
template <class P>
CUSK_HD bool argmax_better(P v, std::int64_t i, P best_v, std::int64_t best_i) {
  if (best_i < 0) return true;
  if (is_nan(best_v)) return is_nan(v) && i < best_i;
  if (is_nan(v)) return true;
  return v > best_v || (v == best_v && i < best_i);
}

/// The sequential part of Otsu: cumulative sums in NumPy's order into scratch (4n doubles): w1, s1
/// (forward cumsums of counts and counts * centres) and w2, s2 (reverse ones).
template <class Cnt, class Ctr>
CUSK_HD void otsu_prefix(const Cnt& c, std::int64_t n, const Ctr& ctr, double* scratch) {
  using P = typename Ctr::prod;
  double *w1 = scratch, *s1 = scratch + n, *w2 = scratch + 2 * n, *s2 = scratch + 3 * n;
  float w = 0.0f;
  P s = P(0);
  for (std::int64_t i = n - 1; i >= 0; --i) {
    w = w + c.f(i);
    s = add_rn(s, mul_rn(P(c.f(i)), P(ctr(i))));
    w2[i] = w;
    s2[i] = s;
  }
  w = 0.0f;
  s = P(0);
  for (std::int64_t i = 0; i < n; ++i) {
    w = w + c.f(i);
    s = add_rn(s, mul_rn(P(c.f(i)), P(ctr(i))));
    w1[i] = w;
    s1[i] = s;
  }
}

/// variance12[i] of scikit-image (0 <= i < n - 1) from otsu_prefix's sums.
template <class P>
CUSK_HD P otsu_variance(const double* scratch, std::int64_t n, std::int64_t i) {
  const float wa = static_cast<float>(scratch[i]);
  const float wb = static_cast<float>(scratch[2 * n + i + 1]);
  const P m1 = static_cast<P>(scratch[n + i]) / P(wa);
  const P m2 = static_cast<P>(scratch[3 * n + i + 1]) / P(wb);
  const P d = m1 - m2;
  return P(wa * wb) * (d * d);
}

/// Index of the Otsu threshold; scratch holds 4n doubles.
template <class Cnt, class Ctr>
CUSK_HD std::int64_t select_otsu(const Cnt& c, std::int64_t n, const Ctr& ctr, double* scratch) {
  using P = typename Ctr::prod;
  otsu_prefix(c, n, ctr, scratch);
  std::int64_t best = -1;
  P best_v = P(0);
  for (std::int64_t i = 0; i + 1 < n; ++i) {
    const P v = otsu_variance<P>(scratch, n, i);
    if (argmax_better(v, i, best_v, best)) {
      best = i;
      best_v = v;
    }
  }
  return best < 0 ? 0 : best;
}

// ---- yen -------------------------------------------------------------------------------------------
/// Index of Yen's threshold (n >= 2); scratch holds n doubles.
template <class Cnt>
CUSK_HD std::int64_t select_yen(const Cnt& c, std::int64_t n, double* scratch) {
  const float total = pairwise_sum(c, 0, n);
  float p2 = 0.0f;  // reverse cumsum of pmf**2
  for (std::int64_t i = n - 1; i >= 0; --i) {
    const float pmf = c.f(i) / total;
    p2 = add_rn(p2, mul_rn(pmf, pmf));
    scratch[i] = p2;
  }
  float p1 = 0.0f, p1sq = 0.0f;
  std::int64_t best = 0;
  float best_v = 0.0f;
  for (std::int64_t i = 0; i + 1 < n; ++i) {
    const float pmf = c.f(i) / total;
    p1 = p1 + pmf;
    p1sq = add_rn(p1sq, mul_rn(pmf, pmf));
    const float inv = 1.0f / (p1sq * static_cast<float>(scratch[i + 1]));
    const float q = p1 * (1.0f - p1);
    const float arg = inv * (q * q);
    // Rounded from a double log: identical on host and device (CUDA's logf is within 1 ulp only).
    const float v = static_cast<float>(log(static_cast<double>(arg)));
    if (i == 0 || (!is_nan(best_v) && (is_nan(v) || v > best_v))) {
      best = i;
      best_v = v;
    }
  }
  return best;
}

// ---- isodata ---------------------------------------------------------------------------------------
/// Writes the indices satisfying the isodata criterion (up to `cap`) and returns how many there are.
template <class Cnt, class Ctr>
CUSK_HD std::int64_t select_isodata(const Cnt& c, std::int64_t n, const Ctr& ctr, double* out, std::int64_t cap) {
  using P = typename Ctr::prod;
  float csum_total = 0.0f;
  P isum_total = P(0);
  for (std::int64_t i = 0; i < n; ++i) {
    csum_total = csum_total + c.f(i);
    isum_total = add_rn(isum_total, mul_rn(P(c.f(i)), P(ctr(i))));
  }
  const auto width = ctr(1) - ctr(0);
  float csuml = 0.0f;
  P isum = P(0);
  std::int64_t found = 0;
  for (std::int64_t i = 0; i + 1 < n; ++i) {
    csuml = csuml + c.f(i);
    isum = add_rn(isum, mul_rn(P(c.f(i)), P(ctr(i))));
    const float csumh = csum_total - csuml;
    const P lower = isum / P(csuml);
    const P higher = (isum_total - isum) / P(csumh);
    const P all_mean = (lower + higher) / P(2);
    const P dist = all_mean - P(ctr(i));
    if (dist >= P(0) && dist < P(width)) {
      if (found < cap) out[found] = static_cast<double>(i);
      ++found;
    }
  }
  return found;
}

// ---- minimum ---------------------------------------------------------------------------------------
/// scipy.ndimage.uniform_filter1d(h, 3) of a float32 line (mode reflect, double running sum).
CUSK_HD void uniform3(const float* in, float* out, std::int64_t n) {
  auto at = [&](std::int64_t k) -> double {  // extended line: in[0], in[0..n-1], in[n-1]
    const std::int64_t j = k - 1;
    return static_cast<double>(in[j < 0 ? 0 : (j >= n ? n - 1 : j)]);
  };
  double tmp = 0.0;
  for (std::int64_t k = 0; k < 3; ++k) tmp += at(k);
  tmp /= 3.0;
  out[0] = static_cast<float>(tmp);
  for (std::int64_t k = 1; k < n; ++k) {
    tmp += (at(k + 2) - at(k - 1)) / 3.0;
    out[k] = static_cast<float>(tmp);
  }
}

/// Local maxima as scikit-image's find_local_maxima_idx (plateaus count once); stores the first two.
CUSK_HD int local_maxima(const float* h, std::int64_t n, std::int64_t* idx) {
  int count = 0, direction = 1;
  for (std::int64_t i = 0; i + 1 < n; ++i) {
    if (direction > 0) {
      if (h[i + 1] < h[i]) {
        direction = -1;
        if (count < 2) idx[count] = i;
        ++count;
      }
    } else if (h[i + 1] > h[i]) {
      direction = 1;
    }
  }
  return count;
}

/// Index of the minimum threshold or -status; scratch holds n doubles (used as 2n floats).
template <class Cnt>
CUSK_HD std::int64_t select_minimum(const Cnt& c, std::int64_t n, std::int64_t max_num_iter, double* scratch) {
  float* a = reinterpret_cast<float*>(scratch);
  float* b = a + n;
  for (std::int64_t i = 0; i < n; ++i) a[i] = c.f(i);
  std::int64_t idx[2] = {0, 0};
  int count = 0;
  std::int64_t counter = 0;
  for (counter = 0; counter < max_num_iter; ++counter) {
    uniform3(a, b, n);
    float* t = a;
    a = b;
    b = t;
    count = local_maxima(a, n, idx);
    if (count < 3) break;
  }
  if (counter == max_num_iter) counter = max_num_iter - 1;  // Python's loop variable keeps the last value
  if (max_num_iter <= 0 || count != 2) return -kNoTwoMaxima;
  if (counter == max_num_iter - 1) return -kMaxIter;
  std::int64_t best = idx[0];
  for (std::int64_t i = idx[0] + 1; i <= idx[1]; ++i)
    if (a[i] < a[best]) best = i;  // NaN cannot occur: counts are finite
  return best;
}

// ---- triangle --------------------------------------------------------------------------------------
/// Index of the triangle threshold, or -1 when all counts sit in one bin (the caller returns the
/// first pixel then).
template <class Cnt>
CUSK_HD std::int64_t select_triangle(const Cnt& c, std::int64_t n) {
  std::int64_t peak = 0, low = -1, high = -1;
  for (std::int64_t i = 0; i < n; ++i) {
    const long long v = c.raw(i);
    if (v > c.raw(peak)) peak = i;
    if (v != 0) {
      if (low < 0) low = i;
      high = i;
    }
  }
  if (low == high) return -1;
  const long long peak_height = c.raw(peak);
  const bool flip = peak - low < high - peak;
  auto h = [&](std::int64_t k) { return flip ? c.raw(n - 1 - k) : c.raw(k); };
  if (flip) {
    low = n - high - 1;
    peak = n - peak - 1;
  }
  const long long width = peak - low;
  const double norm = sqrt(static_cast<double>(peak_height * peak_height + width * width));
  const double ph = static_cast<double>(peak_height) / norm;
  const double w = static_cast<double>(width) / norm;
  std::int64_t best = 0;
  double best_v = 0;
  for (std::int64_t x = 0; x < width; ++x) {
    const double len = add_rn(mul_rn(ph, double(x)), -mul_rn(w, double(h(x + low))));
    if (x == 0 || (!is_nan(best_v) && (is_nan(len) || len > best_v))) {
      best = x;
      best_v = len;
    }
  }
  std::int64_t level = best + low;
  if (flip) level = n - level - 1;
  return level;
}

// ---- multiotsu -------------------------------------------------------------------------------------
/// Between-class variance of bins [i, j] as scikit-image's lookup table holds it.
CUSK_HD float multiotsu_var(const float* zm, const float* fm, std::int64_t i, std::int64_t j) {
  if (i == 0) {
    if (j == 0 || !(zm[j] > 0.0f)) return 0.0f;
    return (fm[j] * fm[j]) / zm[j];
  }
  const float z = zm[j] - zm[i - 1];
  if (!(z > 0.0f)) return 0.0f;
  const float f = fm[j] - fm[i - 1];
  return (f * f) / z;
}

/// Threshold indices of multi-Otsu (k = classes - 1) into out[0..k); returns k or -status.
/// prob: the probabilities (float32); scratch holds n doubles (used as 2n floats); idx: k slots.
template <class Cnt>
CUSK_HD std::int64_t select_multiotsu(const Cnt& prob, std::int64_t n, int classes, double* scratch,
                                      std::int64_t* cur, double* out, double* nvalues_out) {
  const int k = classes - 1;
  std::int64_t nvalues = 0;
  for (std::int64_t i = 0; i < n; ++i) nvalues += prob.f(i) != 0.0f;
  *nvalues_out = static_cast<double>(nvalues);
  if (nvalues < classes) return -kTooFewValues;
  if (nvalues == classes) {
    std::int64_t m = 0;
    for (std::int64_t i = 0; i < n && m < k; ++i)
      if (prob.f(i) != 0.0f) out[m++] = static_cast<double>(i);
    return k;
  }
  float* zm = reinterpret_cast<float*>(scratch);
  float* fm = zm + n;
  zm[0] = prob.f(0);
  fm[0] = prob.f(0);  // scikit-image's first moment starts at prob[0], kept for identical results
  for (std::int64_t i = 1; i < n; ++i) {
    zm[i] = zm[i - 1] + prob.f(i);
    fm[i] = add_rn(fm[i - 1], mul_rn(static_cast<float>(i), prob.f(i)));
  }
  // Lexicographic walk over t0 < t1 < ... < t(k-1), t_m < n - k + m (the recursion's order).
  for (int m = 0; m < k; ++m) {
    cur[m] = m;
    out[m] = static_cast<double>(m);
  }
  if (n - k <= 0) return k;
  float sigma_max = 0.0f;
  while (true) {
    float sigma = multiotsu_var(zm, fm, 0, cur[0]) + multiotsu_var(zm, fm, cur[k - 1] + 1, n - 1);
    for (int m = 0; m + 1 < k; ++m) sigma = sigma + multiotsu_var(zm, fm, cur[m] + 1, cur[m + 1]);
    if (sigma > sigma_max) {
      sigma_max = sigma;
      for (int m = 0; m < k; ++m) out[m] = static_cast<double>(cur[m]);
    }
    int m = k - 1;
    while (m >= 0 && cur[m] + 1 >= n - k + m) --m;
    if (m < 0) break;
    ++cur[m];
    for (int q = m + 1; q < k; ++q) cur[q] = cur[q - 1] + 1;
  }
  return k;
}

// ---- li (integer images) --------------------------------------------------------------------------
/// NumPy's float64 sums: pairwise over the whole array, or (buffered_sum_f64, when the input is
/// cast from float32) pairwise within buffers of 8192 elements accumulated in order.
template <class F>
CUSK_HD double pairwise_sum_f64(const F& f, std::int64_t lo, std::int64_t n) {
  return pairwise<double>(f, lo, n);
}
template <class F>
CUSK_HD double buffered_sum_f64(const F& f, std::int64_t lo, std::int64_t n) {
  constexpr std::int64_t kBuffer = 8192;
  double acc = 0.0;
  for (std::int64_t k = 0; k < n; k += kBuffer) acc = acc + pairwise_sum_f64(f, lo + k, n - k < kBuffer ? n - k : kBuffer);
  return acc;
}

/// np.average(bin_centers[lo:lo+n], weights=hist[lo:lo+n]) with centres c0 + index; false when
/// the weights sum to zero (NumPy's ZeroDivisionError).
template <class Cnt>
CUSK_HD bool li_average(const Cnt& c, long long c0, std::int64_t lo, std::int64_t n, double* out) {
  const double scl = buffered_sum_f64([&](std::int64_t i) { return static_cast<double>(c.f(i)); }, lo, n);
  if (scl == 0.0) return false;
  const double num = pairwise_sum_f64(
      [&](std::int64_t i) { return mul_rn(static_cast<double>(c0 + i), static_cast<double>(c.f(i))); }, lo, n);
  *out = num / scl;
  return true;
}

/// Li's threshold of an integer image. scikit-image subtracts the minimum in the image's dtype
/// (wrapping for signed types whose range exceeds the dtype's maximum) and iterates on the
/// histogram of those values: c[0..n) with centres c0 + i, n >= 2. Returns the threshold, or sets
/// *status.
template <class Cnt>
CUSK_HD double select_li_int(const Cnt& c, std::int64_t n, long long c0, double image_min, const SelectParams& p,
                             int* status) {
  const double tol = p.tolerance != 0.0 ? p.tolerance : 0.5;  // Python's `tolerance or 0.5`
  double t_next;
  if (!p.has_guess) {  // np.mean of the integers: an exact float64 sum, then one division
    long long s = 0, cnt = 0;
    for (std::int64_t i = 0; i < n; ++i) {
      s += (c0 + i) * c.raw(i);
      cnt += c.raw(i);
    }
    t_next = static_cast<double>(s) / static_cast<double>(cnt);
  } else {
    const double t = p.guess - image_min;
    if (!(0.0 < t && t < static_cast<double>(c0 + n - 1))) {
      *status = kBadGuess;
      return 0;
    }
    t_next = static_cast<double>(static_cast<long long>(t));  // image.dtype.type(t): truncation
  }
  double t_curr = -2.0 * tol;
  while (fabs(t_next - t_curr) > tol) {
    t_curr = t_next;
    // background: centres <= t_curr, i.e. indices [0, kb]; foreground: (kb, n)
    const double fl = floor(t_curr) - static_cast<double>(c0);
    const std::int64_t kb = fl < -1.0 ? -1 : (fl > static_cast<double>(n - 1) ? n - 1 : static_cast<std::int64_t>(fl));
    double mean_fore = 0, mean_back = 0;
    if (!li_average(c, c0, kb + 1, n - 1 - kb, &mean_fore) || !li_average(c, c0, 0, kb + 1, &mean_back)) {
      *status = kZeroWeights;
      return 0;
    }
    if (mean_back == 0.0) break;
    t_next = (mean_back - mean_fore) / (log(mean_back) - log(mean_fore));
  }
  return t_next + image_min;
}

/// Runs `p.method` on a trimmed histogram of n bins; writes status/values into `res` (header then
/// values). `first` is image.ravel()[0] (triangle on a single bin); `constant` tells otsu that the
/// image holds one value (returned as is). Values are bin indices mapped through `ctr`.
template <class Cnt, class Ctr>
CUSK_HD void run_select(const SelectParams& p, const Cnt& c, std::int64_t n, const Ctr& ctr, bool constant,
                        double first, double* scratch, std::int64_t* cur, double* res) {
  SelectResult* h = reinterpret_cast<SelectResult*>(res);
  double* vals = res + kResultHeader;
  h->status = kOk;
  h->count = 1;
  auto put = [&](std::int64_t i) { vals[0] = static_cast<double>(ctr(i)); };
  switch (p.method) {
    case Method::otsu:
      if (constant) vals[0] = first;
      else put(select_otsu(c, n, ctr, scratch));
      break;
    case Method::yen:
      if (n == 1) put(0);
      else put(select_yen(c, n, scratch));
      break;
    case Method::isodata: {
      if (n == 1) {
        put(0);
        break;
      }
      const std::int64_t found = select_isodata(c, n, ctr, vals, p.capacity);
      if (found == 0) {
        h->status = kNoThreshold;
        h->count = 0;
        break;
      }
      const std::int64_t m = found < p.capacity ? found : p.capacity;
      for (std::int64_t i = 0; i < m; ++i) vals[i] = static_cast<double>(ctr(static_cast<std::int64_t>(vals[i])));
      h->count = static_cast<double>(p.return_all ? m : 1);
      break;
    }
    case Method::minimum: {
      const std::int64_t r = select_minimum(c, n, p.max_num_iter, scratch);
      if (r < 0) {
        h->status = static_cast<double>(-r);
        h->count = 0;
      } else {
        put(r);
      }
      break;
    }
    case Method::triangle: {
      const std::int64_t r = select_triangle(c, n);
      if (r < 0) vals[0] = first;
      else put(r);
      break;
    }
    case Method::li:  // integer images only, handled by select_from_histogram
      break;
    case Method::multiotsu: {
      const std::int64_t r = select_multiotsu(c, n, p.classes, scratch, cur, vals, &h->nvalues_seen);
      if (r < 0) {
        h->status = static_cast<double>(-r);
        h->count = 0;
      } else {
        for (std::int64_t i = 0; i < r; ++i) vals[i] = static_cast<double>(ctr(static_cast<std::int64_t>(vals[i])));
        h->count = static_cast<double>(r);
      }
      break;
    }
  }
}

}  // namespace cuskimage::filters::detail

namespace cuskimage::filters::detail {

/// Probabilities count / total (float64 division rounded to float32, as histogram(normalize=True)
/// followed by astype(float32)).
struct ProbCounts {
  RawCounts c;
  double total;
  CUSK_HD float f(std::int64_t i) const { return static_cast<float>(static_cast<double>(c.p[c.offset + i]) / total); }
  CUSK_HD long long raw(std::int64_t i) const { return c.raw(i); }
};

/// Scratch the selection needs for a histogram of up to `bins` bins (doubles).
inline std::int64_t select_scratch_doubles(std::int64_t bins) { return 4 * bins + 8; }

/// Trims the image histogram as scikit-image's and runs the selection. counts: full-range (integer
/// T) or nbins (float T) bins. first: image.ravel()[0].
template <class T>
CUSK_HD void select_from_histogram(const SelectParams& p, const unsigned long long* counts, const RangeInfo<T>& info,
                                   double* scratch, std::int64_t* cur, double* res) {
  SelectResult* h = reinterpret_cast<SelectResult*>(res);
  const double first = static_cast<double>(info.first);
  if constexpr (std::is_integral_v<T>) {
    const std::int64_t nb = full_range_bins<T>();
    std::int64_t a = 0, b = nb - 1;
    while (a < nb && counts[a] == 0) ++a;
    if (a == nb) {
      h->status = kEmpty;
      h->count = 0;
      return;
    }
    while (counts[b] == 0) --b;
    const IntCenters ctr{static_cast<long long>(std::numeric_limits<T>::min()) + a};
    const RawCounts c{counts, a};
    if (p.method == Method::li) {
      double* vals = res + kResultHeader;
      h->status = kOk;
      h->count = 1;
      if (a == b) {  // one value
        vals[0] = static_cast<double>(ctr(0));
        return;
      }
      // Histogram of image - min in T (modular for signed T), kept in the scratch.
      auto* w = reinterpret_cast<unsigned long long*>(scratch);
      for (std::int64_t i = 0; i < nb; ++i) w[i] = 0;
      // The wrap is spelled out in 64-bit integers. Written as w[int_bin(static_cast<T>(v - base))],
      // nvcc 13 unrolled the loop and addressed the next three bins from the first one's address,
      // as if narrowed consecutive values stayed consecutive: wrong across the wrap (threshold_li of
      // an int8 image spanning more than 127 came out NaN on the H200; see the PTX of this loop).
      const long long lo = static_cast<long long>(std::numeric_limits<T>::min());
      for (std::int64_t i = a; i <= b; ++i) {
        long long x = (lo + i - ctr.base) % nb;  // v - min(image) >= 0, modulo 2^bits
        if (x > static_cast<long long>(std::numeric_limits<T>::max())) x -= nb;
        w[x - lo] += counts[i];
      }
      std::int64_t wa = 0, wb = nb - 1;
      while (w[wa] == 0) ++wa;
      while (w[wb] == 0) --wb;
      int st = kOk;
      const double t = select_li_int(RawCounts{w, wa}, wb - wa + 1,
                                     static_cast<long long>(std::numeric_limits<T>::min()) + wa,
                                     static_cast<double>(ctr.base), p, &st);
      if (st != kOk) {
        h->status = st;
        h->count = 0;
      } else {
        vals[0] = t;
      }
      return;
    }
    if (p.method == Method::multiotsu) {
      double total = 0;
      for (std::int64_t i = a; i <= b; ++i) total += static_cast<double>(counts[i]);
      run_select(p, ProbCounts{c, total}, b - a + 1, ctr, a == b, first, scratch, cur, res);
    } else {
      run_select(p, c, b - a + 1, ctr, a == b, first, scratch, cur, res);
    }
  } else {
    if (info.nonfinite) {
      h->status = kNonFinite;
      h->count = 0;
      return;
    }
    const FloatCenters<T> ctr{FloatBins<T>::make(info.lo, info.hi, p.nbins)};
    const RawCounts c{counts, 0};
    if (p.method == Method::multiotsu) {
      double total = 0;
      for (std::int64_t i = 0; i < p.nbins; ++i) total += static_cast<double>(counts[i]);
      run_select(p, ProbCounts{c, total}, p.nbins, ctr, info.lo == info.hi, first, scratch, cur, res);
    } else {
      run_select(p, c, p.nbins, ctr, info.lo == info.hi, first, scratch, cur, res);
    }
  }
}

}  // namespace cuskimage::filters::detail
