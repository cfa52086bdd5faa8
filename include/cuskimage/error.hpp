// Exception hierarchy. Every message names the function and the argument and says what was expected,
// e.g. "util.crop: argument 'crop_width' must be non-negative, got -1".
#pragma once

#include <stdexcept>
#include <string>

namespace cuskimage {

class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Bad argument value, dtype, shape or ndim (scikit-image's ValueError/TypeError).
class InvalidArgument : public Error {
 public:
  using Error::Error;
};

/// Valid request that this build or this device cannot serve (missing codec, unsupported dtype).
class NotSupported : public Error {
 public:
  using Error::Error;
};

/// A CUDA runtime call failed; code() is the cudaError_t value.
class CudaError : public Error {
 public:
  CudaError(const std::string& what, int code) : Error(what), code_(code) {}
  int code() const noexcept { return code_; }

 private:
  int code_;
};

/// Host or device allocation failed.
class OutOfMemory : public Error {
 public:
  using Error::Error;
};

/// A file is missing, truncated, corrupt or of an unsupported layout; the message names the path.
class FormatError : public Error {
 public:
  using Error::Error;
};

}  // namespace cuskimage
