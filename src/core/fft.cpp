// The shared FFT layer's non-template parts: FFTW's planner lock and cuFFT's plan cache.
#include "src/core/fft.hpp"

#include <map>
#include <memory>
#include <tuple>

#include "src/core/cuda_check.hpp"

namespace cuskimage::detail::fft {

int as_int(std::int64_t v, const char* who) {
  if (v > 0x7fffffff)
    throw NotSupported(std::string(who) + ": FFT extent " + std::to_string(v) + " exceeds the FFT library's int range");
  return static_cast<int>(v);
}

#if CUSK_HAVE_FFTW
std::mutex& fftw_planner_mutex() {
  static std::mutex m;
  return m;
}
#endif

#if CUSK_HAVE_CUFFT

void cufft_check(cufftResult r, const char* what) {
  if (r != CUFFT_SUCCESS)
    throw CudaError(std::string("cuFFT ") + what + " failed (cufftResult " + std::to_string(static_cast<int>(r)) + ")",
                    static_cast<int>(r));
}

namespace {

// device, type, extents, batch, element stride
using PlanKey = std::tuple<int, int, std::vector<long long>, long long, long long>;

std::vector<long long> squeeze(const std::vector<long long>& n, bool keep_last) {
  std::vector<long long> out;
  for (std::size_t d = 0; d < n.size(); ++d)
    if (n[d] != 1 || (keep_last && d + 1 == n.size())) out.push_back(n[d]);
  if (out.empty()) out.push_back(1);
  return out;
}

}  // namespace

CufftPlan& cufft_plan(cufftType type, const std::vector<long long>& extents, long long batch, long long stride) {
  const bool real = type == CUFFT_R2C || type == CUFFT_C2R || type == CUFFT_D2Z || type == CUFFT_Z2D;
  const std::vector<long long> n = squeeze(extents, real);
  static std::mutex m;
  static std::map<PlanKey, std::unique_ptr<CufftPlan>> cache;
  int dev = 0;
  CUSK_CUDA_CHECK(cudaGetDevice(&dev));
  std::lock_guard<std::mutex> lock(m);
  auto& slot = cache[PlanKey{dev, static_cast<int>(type), n, batch, stride}];
  if (!slot) {
    auto p = std::make_unique<CufftPlan>();
    cufft_check(cufftCreate(&p->handle), "cufftCreate");
    cufft_check(cufftSetAutoAllocation(p->handle, 0), "cufftSetAutoAllocation");
    std::vector<long long> dims = n, embed = n;
    const int rank = static_cast<int>(dims.size());
    if (stride > 0)
      cufft_check(cufftMakePlanMany64(p->handle, rank, dims.data(), embed.data(), stride, 1, embed.data(), stride, 1,
                                      type, batch, &p->work_size),
                  "plan (strided)");
    else
      cufft_check(cufftMakePlanMany64(p->handle, rank, dims.data(), nullptr, 1, 0, nullptr, 1, 0, type, batch,
                                      &p->work_size),
                  "plan");
    slot = std::move(p);
  }
  return *slot;
}

Array cufft_work_area(std::size_t bytes, const Stream& s) {
  int dev = 0;
  CUSK_CUDA_CHECK(cudaGetDevice(&dev));
  return Array::empty({static_cast<std::int64_t>(bytes ? bytes : 1)}, DType::uint8, Device::cuda(dev), s);
}

#endif  // CUSK_HAVE_CUFFT

}  // namespace cuskimage::detail::fft
