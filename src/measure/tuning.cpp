// The measure families' tuning policies (include/cuskimage/tuning.hpp).
#include "cuskimage/tuning.hpp"

#include "src/core/policy_slot.hpp"

namespace cuskimage::tuning {
namespace {

cuskimage::detail::PolicySlot<RegionpropsPolicy>& regionprops_slot() {
  static cuskimage::detail::PolicySlot<RegionpropsPolicy> slot;
  return slot;
}

}  // namespace

RegionpropsPolicy set_regionprops_policy(const RegionpropsPolicy& policy) { return regionprops_slot().set(policy); }
RegionpropsPolicy regionprops_policy() { return regionprops_slot().get(); }

}  // namespace cuskimage::tuning
