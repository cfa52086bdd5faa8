// CUDA stream handle passed last to every op. Work is asynchronous on it.
#pragma once

#include <cstddef>
#include <memory>

// Same declaration as the CUDA runtime's, so this header needs no CUDA headers.
struct CUstream_st;
typedef struct CUstream_st* cudaStream_t;

namespace cuskimage {

class Stream {
 public:
  /// The library's default: CUDA's per-thread default stream (never the legacy stream 0).
  Stream() : handle_(per_thread_handle()) {}
  /// Wraps a stream the caller owns. The legacy default stream cannot be wrapped by accident:
  /// Stream(0) and Stream(nullptr) do not compile, and a null handle is rejected at run time.
  explicit Stream(cudaStream_t handle);
  Stream(int) = delete;
  Stream(std::nullptr_t) = delete;

  /// A new non-blocking stream owned by the returned object (and its copies).
  static Stream create();
  static Stream per_thread() { return Stream(); }

  cudaStream_t handle() const { return handle_; }
  /// Blocks the host until all work queued on the stream is done.
  void synchronize() const;

  friend bool operator==(const Stream& a, const Stream& b) { return a.handle_ == b.handle_; }

 private:
  static cudaStream_t per_thread_handle();
  cudaStream_t handle_;
  std::shared_ptr<void> owner_;
};

}  // namespace cuskimage
