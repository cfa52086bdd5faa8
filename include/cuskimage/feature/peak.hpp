// skimage.feature.peak (scikit-image 0.26): peak_local_max; corner_peaks.
#pragma once

#include "cuskimage/array.hpp"
#include "cuskimage/options.hpp"
#include "cuskimage/stream.hpp"

namespace cuskimage::feature {}  // namespace cuskimage::feature
