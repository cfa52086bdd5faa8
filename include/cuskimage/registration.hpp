// cuskimage::registration — skimage.registration (0.26): phase_cross_correlation,
// optical_flow_tvl1, optical_flow_ilk.
#pragma once

#include "cuskimage/array.hpp"
#include "cuskimage/options.hpp"
#include "cuskimage/stream.hpp"

namespace cuskimage::registration {}  // namespace cuskimage::registration
