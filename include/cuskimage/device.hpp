// Where an Array lives. The device of an op's input picks its backend (CPU or CUDA).
#pragma once

#include <string>

namespace cuskimage {

class Device {
 public:
  enum class Kind { cpu, cuda };

  constexpr Device() = default;
  static constexpr Device cpu() { return Device(Kind::cpu, 0); }
  static constexpr Device cuda(int index = 0) { return Device(Kind::cuda, index); }
  /// Parses "cpu", "cuda", "cuda:1". Throws InvalidArgument.
  static Device parse(const std::string& text);

  constexpr Kind kind() const { return kind_; }
  constexpr int index() const { return index_; }
  constexpr bool is_cpu() const { return kind_ == Kind::cpu; }
  constexpr bool is_cuda() const { return kind_ == Kind::cuda; }
  std::string str() const;

  friend constexpr bool operator==(Device a, Device b) {
    return a.kind_ == b.kind_ && (a.kind_ == Kind::cpu || a.index_ == b.index_);
  }

 private:
  constexpr Device(Kind k, int i) : kind_(k), index_(i) {}
  Kind kind_ = Kind::cpu;
  int index_ = 0;
};

/// Number of usable CUDA devices; 0 when there is no GPU or no driver (never throws).
int cuda_device_count();
inline bool cuda_available() { return cuda_device_count() > 0; }
/// Default device for tools: cuda:0 when a GPU is present, else cpu.
Device default_device();

}  // namespace cuskimage
