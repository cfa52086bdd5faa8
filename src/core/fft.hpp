// The library's one FFT layer, shared by every module that transforms (filters' frequency-domain
// filters, registration, and later iradon and match_template): FFTW3 plans for CPU arrays, cuFFT
// plans for CUDA arrays. Both libraries are optional at build time (CUSK_HAVE_FFTW,
// CUSK_HAVE_CUFFT); callers keep their entry points and throw NotSupported without them.
//
// FFTW: its planner is not thread-safe (execution is), so plans are made and destroyed under one
// process-wide lock; FFTW_ESTIMATE plans are cheap and never touch the arrays, so each call plans
// on its own buffers and destroys the plan after executing it.
// cuFFT: plans are cached per (device, type, extents, batch, stride) for the process's life, made
// with auto allocation off: each execution takes its work area from the stream-ordered pool, so
// nothing is cudaMalloc'ed or freed (freeing would synchronize the device) once a shape is planned.
#pragma once

#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "cuskimage/array.hpp"
#include "cuskimage/error.hpp"
#include "cuskimage/stream.hpp"

#if CUSK_HAVE_FFTW
#include <fftw3.h>
#endif
#if CUSK_HAVE_CUFFT
#include <cufft.h>
#endif

namespace cuskimage::detail::fft {

/// An FFT extent as the int both libraries' planners take; larger ones raise NotSupported.
int as_int(std::int64_t v, const char* who);

#if CUSK_HAVE_FFTW

std::mutex& fftw_planner_mutex();

/// FFTW's plan makers for one precision. Complex buffers are interleaved (re, im) arrays of T.
template <class T>
struct Fftw;
template <>
struct Fftw<double> {
  using plan = fftw_plan;
  static constexpr int forward = FFTW_FORWARD, backward = FFTW_BACKWARD;
  static plan r2c(int rank, const int* n, int howmany, double* in, int idist, double* out, int odist) {
    return fftw_plan_many_dft_r2c(rank, n, howmany, in, nullptr, 1, idist, reinterpret_cast<fftw_complex*>(out),
                                  nullptr, 1, odist, FFTW_ESTIMATE);
  }
  static plan c2r(int rank, const int* n, int howmany, double* in, int idist, double* out, int odist) {
    return fftw_plan_many_dft_c2r(rank, n, howmany, reinterpret_cast<fftw_complex*>(in), nullptr, 1, idist, out,
                                  nullptr, 1, odist, FFTW_ESTIMATE);
  }
  /// In-place n-d complex transform of `howmany` packed arrays of `idist` complex entries each.
  static plan c2c(int rank, const int* n, int howmany, double* io, int idist, int sign) {
    auto* p = reinterpret_cast<fftw_complex*>(io);
    return fftw_plan_many_dft(rank, n, howmany, p, nullptr, 1, idist, p, nullptr, 1, idist, sign, FFTW_ESTIMATE);
  }
  static plan c2c(int n0, int n1, double* io, int sign) {
    const int n[2] = {n0, n1};
    return c2c(2, n, 1, io, 0, sign);
  }
  static void execute(plan p) { fftw_execute(p); }
  static void destroy(plan p) { fftw_destroy_plan(p); }
};
template <>
struct Fftw<float> {
  using plan = fftwf_plan;
  static constexpr int forward = FFTW_FORWARD, backward = FFTW_BACKWARD;
  static plan r2c(int rank, const int* n, int howmany, float* in, int idist, float* out, int odist) {
    return fftwf_plan_many_dft_r2c(rank, n, howmany, in, nullptr, 1, idist, reinterpret_cast<fftwf_complex*>(out),
                                   nullptr, 1, odist, FFTW_ESTIMATE);
  }
  static plan c2r(int rank, const int* n, int howmany, float* in, int idist, float* out, int odist) {
    return fftwf_plan_many_dft_c2r(rank, n, howmany, reinterpret_cast<fftwf_complex*>(in), nullptr, 1, idist, out,
                                   nullptr, 1, odist, FFTW_ESTIMATE);
  }
  static plan c2c(int rank, const int* n, int howmany, float* io, int idist, int sign) {
    auto* p = reinterpret_cast<fftwf_complex*>(io);
    return fftwf_plan_many_dft(rank, n, howmany, p, nullptr, 1, idist, p, nullptr, 1, idist, sign, FFTW_ESTIMATE);
  }
  static plan c2c(int n0, int n1, float* io, int sign) {
    const int n[2] = {n0, n1};
    return c2c(2, n, 1, io, 0, sign);
  }
  static void execute(plan p) { fftwf_execute(p); }
  static void destroy(plan p) { fftwf_destroy_plan(p); }
};

/// Plans (under the planner lock), executes and destroys one FFTW plan; `who` names the caller's
/// module in the error when FFTW cannot plan.
template <class T, class Make>
void fftw_run(const char* who, const char* what, Make&& make) {
  typename Fftw<T>::plan p;
  {
    std::lock_guard<std::mutex> lock(fftw_planner_mutex());
    p = make();
  }
  if (!p) throw NotSupported(std::string(who) + ": FFTW could not plan the " + what);
  Fftw<T>::execute(p);
  std::lock_guard<std::mutex> lock(fftw_planner_mutex());
  Fftw<T>::destroy(p);
}

#endif  // CUSK_HAVE_FFTW

#if CUSK_HAVE_CUFFT

void cufft_check(cufftResult r, const char* what);

struct CufftPlan {
  cufftHandle handle = 0;
  std::size_t work_size = 0;
  std::mutex mutex;  // a plan holds its stream and work area: set + exec under this lock
};

/// The cached plan on the current device. stride 0: `batch` packed transforms one after another.
/// stride > 0 (complex only): the element stride of the transform's last axis, with the `batch`
/// transforms 1 element apart (every column of a row-major block at once). Extents of 1 are
/// dropped (cuFFT's planner may refuse them; for real transforms the last one stays).
CufftPlan& cufft_plan(cufftType type, const std::vector<long long>& extents, long long batch, long long stride = 0);

/// A work area of `bytes` from the stream-ordered pool, on the current device.
Array cufft_work_area(std::size_t bytes, const Stream& s);

/// Runs `exec(handle)` on `s` with a work area from the pool.
template <class Exec>
void cufft_run(CufftPlan& plan, const Stream& s, Exec&& exec) {
  Array work = cufft_work_area(plan.work_size, s);
  std::lock_guard<std::mutex> lock(plan.mutex);
  cufft_check(cufftSetStream(plan.handle, s.handle()), "cufftSetStream");
  cufft_check(cufftSetWorkArea(plan.handle, work.data()), "cufftSetWorkArea");
  exec(plan.handle);
}

/// cuFFT's types and executors for one precision; complex buffers are interleaved arrays of T.
template <class T>
struct Cufft;
template <>
struct Cufft<float> {
  static constexpr cufftType r2c = CUFFT_R2C, c2r = CUFFT_C2R, c2c = CUFFT_C2C;
  static cufftResult fwd(cufftHandle h, float* in, float* out) {
    return cufftExecR2C(h, in, reinterpret_cast<cufftComplex*>(out));
  }
  static cufftResult inv(cufftHandle h, float* in, float* out) {
    return cufftExecC2R(h, reinterpret_cast<cufftComplex*>(in), out);
  }
  static cufftResult cc(cufftHandle h, float* io, int dir) {
    auto* p = reinterpret_cast<cufftComplex*>(io);
    return cufftExecC2C(h, p, p, dir);
  }
};
template <>
struct Cufft<double> {
  static constexpr cufftType r2c = CUFFT_D2Z, c2r = CUFFT_Z2D, c2c = CUFFT_Z2Z;
  static cufftResult fwd(cufftHandle h, double* in, double* out) {
    return cufftExecD2Z(h, in, reinterpret_cast<cufftDoubleComplex*>(out));
  }
  static cufftResult inv(cufftHandle h, double* in, double* out) {
    return cufftExecZ2D(h, reinterpret_cast<cufftDoubleComplex*>(in), out);
  }
  static cufftResult cc(cufftHandle h, double* io, int dir) {
    auto* p = reinterpret_cast<cufftDoubleComplex*>(io);
    return cufftExecZ2Z(h, p, p, dir);
  }
};

#endif  // CUSK_HAVE_CUFFT

}  // namespace cuskimage::detail::fft
