// The morphology families' tuning policies (include/cuskimage/tuning.hpp).
#include "cuskimage/tuning.hpp"

#include "src/core/policy_slot.hpp"

namespace cuskimage::tuning {
namespace {

cuskimage::detail::PolicySlot<MaxTreePolicy>& max_tree_slot() {
  static cuskimage::detail::PolicySlot<MaxTreePolicy> slot;
  return slot;
}

}  // namespace

MaxTreePolicy set_max_tree_policy(const MaxTreePolicy& policy) { return max_tree_slot().set(policy); }
MaxTreePolicy max_tree_policy() { return max_tree_slot().get(); }

}  // namespace cuskimage::tuning
