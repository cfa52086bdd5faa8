// CPU reductions of the util module (explicit instantiations for every dtype).
#include <algorithm>
#include <cmath>
#include <vector>

#include "src/core/dispatch.hpp"
#include "src/util/backend.hpp"
#include "src/util/cpu_loops.hpp"

namespace cuskimage::util::detail {

template <class T>
std::vector<MinMax<T>> cpu_minmax(const Array& a, std::int64_t segments) {
  return cpu_reduce(a, segments, MinMaxOp<T>{});
}

template <class T>
std::vector<double> cpu_sum(const Array& a, std::int64_t segments) {
  return cpu_reduce(a, segments, SumOp<T>{});
}

#define CUSK_UTIL_INSTANTIATE(T)                                                    \
  template std::vector<MinMax<T>> cpu_minmax<T>(const Array&, std::int64_t);        \
  template std::vector<double> cpu_sum<T>(const Array&, std::int64_t);
CUSK_FOR_EACH_DTYPE(CUSK_UTIL_INSTANTIATE)
#undef CUSK_UTIL_INSTANTIATE

std::int64_t cpu_count_nonpositive(const Array& a) { return cpu_reduce(a, 1, CountNonPositiveOp<double>{})[0]; }

std::int64_t cpu_count_unique(const Array& a) {
  return cuskimage::detail::dispatch<cuskimage::detail::FloatTypes>(
      a.dtype(), "util.random_noise", [&]<class T>() -> std::int64_t {
        std::vector<T> v = a.to_vector<T>();
        // NaNs last and equal to each other (NumPy's unique with equal_nan).
        std::sort(v.begin(), v.end(), [](T x, T y) { return x < y || (!std::isnan(x) && std::isnan(y)); });
        std::int64_t n = 0;
        for (std::size_t i = 0; i < v.size(); ++i) {
          if (i == 0) {
            ++n;
            continue;
          }
          const bool same = v[i] == v[i - 1] || (std::isnan(v[i]) && std::isnan(v[i - 1]));
          if (!same) ++n;
        }
        return n;
      });
}

}  // namespace cuskimage::util::detail
