// libtiff handles whose errors are captured per handle (never printed, never a global handler, so
// threads reading different files do not mix messages). Shared by io (TIFF read/write) and wsi
// (slide reader, pyramid writer).
#pragma once

#include <tiffio.h>

#include <cstdarg>
#include <cstdio>
#include <memory>
#include <string>

namespace cuskimage::io::detail {

/// The first error libtiff reported on a handle.
struct TiffDiagnostics {
  std::string first_error;
  std::string why() const { return first_error.empty() ? std::string("libtiff error") : first_error; }
};

inline int tiff_on_error(TIFF*, void* user, const char* module, const char* fmt, va_list ap) {
  auto* d = static_cast<TiffDiagnostics*>(user);
  if (d && d->first_error.empty()) {
    char buf[512];
    std::vsnprintf(buf, sizeof buf, fmt, ap);
    d->first_error = (module && *module ? std::string(module) + ": " : std::string()) + buf;
  }
  return 1;  // handled: nothing printed
}

inline int tiff_on_warning(TIFF*, void*, const char*, const char*, va_list) { return 1; }

struct TiffCloser {
  void operator()(TIFF* t) const { TIFFClose(t); }
};
using TiffPtr = std::unique_ptr<TIFF, TiffCloser>;

/// TIFFOpen with the handlers above bound to `diag` (which must outlive the handle). Null on failure,
/// with the reason in diag.
inline TiffPtr open_tiff(const std::string& path, const char* mode, TiffDiagnostics& diag) {
  TIFFOpenOptions* opts = TIFFOpenOptionsAlloc();
  TIFFOpenOptionsSetErrorHandlerExtR(opts, tiff_on_error, &diag);
  TIFFOpenOptionsSetWarningHandlerExtR(opts, tiff_on_warning, &diag);
  TIFF* t = TIFFOpenExt(path.c_str(), mode, opts);
  TIFFOpenOptionsFree(opts);
  return TiffPtr(t);
}

}  // namespace cuskimage::io::detail
