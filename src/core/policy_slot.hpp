// The process-wide value of one tuning policy (include/cuskimage/tuning.hpp): set by its setter,
// read once per call by the family's dispatch. A mutex, not atomics: policies are small structs
// and a dispatch reads one a call, far from any kernel's cost.
#pragma once

#include <mutex>

namespace cuskimage::detail {

template <class P>
class PolicySlot {
 public:
  P get() const {
    std::lock_guard lock(mu_);
    return value_;
  }
  /// Stores `p`; returns the value it replaces.
  P set(const P& p) {
    std::lock_guard lock(mu_);
    P old = value_;
    value_ = p;
    return old;
  }

 private:
  mutable std::mutex mu_;
  P value_{};
};

}  // namespace cuskimage::detail

/// Defines a family's setter and getter of include/cuskimage/tuning.hpp over one PolicySlot; used
/// inside namespace cuskimage::tuning: CUSK_TUNING_POLICY(ColorPolicy, color_policy) defines
/// set_color_policy and color_policy.
#define CUSK_TUNING_POLICY(Policy, name)                                     \
  namespace {                                                                \
  ::cuskimage::detail::PolicySlot<Policy> g_##name;                          \
  }                                                                          \
  Policy set_##name(const Policy& policy) { return g_##name.set(policy); }   \
  Policy name() { return g_##name.get(); }
