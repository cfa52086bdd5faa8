// cuskimage::feature — skimage.feature (0.26). One sub-header per scikit-image file.
#pragma once

#include "cuskimage/feature/peak.hpp"
#include "cuskimage/feature/canny.hpp"
#include "cuskimage/feature/corner.hpp"
#include "cuskimage/feature/template.hpp"
#include "cuskimage/feature/hog.hpp"
#include "cuskimage/feature/haar.hpp"
#include "cuskimage/feature/daisy.hpp"
#include "cuskimage/feature/fisher_vector.hpp"
#include "cuskimage/feature/cascade.hpp"
