// The morphology families' tuning policies (include/cuskimage/tuning.hpp).
#include "cuskimage/tuning.hpp"

#include "src/core/policy_slot.hpp"

namespace cuskimage::tuning {

CUSK_TUNING_POLICY(MaxTreePolicy, max_tree_policy)

}  // namespace cuskimage::tuning
