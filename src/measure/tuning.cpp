// The measure families' tuning policies (include/cuskimage/tuning.hpp).
#include "cuskimage/tuning.hpp"

#include "src/core/policy_slot.hpp"

namespace cuskimage::tuning {

CUSK_TUNING_POLICY(RegionpropsPolicy, regionprops_policy)

}  // namespace cuskimage::tuning
