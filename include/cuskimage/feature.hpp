// cuskimage::feature — skimage.feature (0.26). One sub-header per scikit-image file.
#pragma once

#include "cuskimage/feature/peak.hpp"
#include "cuskimage/feature/texture.hpp"
#include "cuskimage/feature/blob.hpp"
#include "cuskimage/feature/basic_features.hpp"
#include "cuskimage/feature/canny.hpp"
#include "cuskimage/feature/corner.hpp"
#include "cuskimage/feature/template.hpp"
#include "cuskimage/feature/hog.hpp"
#include "cuskimage/feature/haar.hpp"
#include "cuskimage/feature/daisy.hpp"
#include "cuskimage/feature/match.hpp"
#include "cuskimage/feature/brief.hpp"
#include "cuskimage/feature/util.hpp"
#include "cuskimage/feature/sift.hpp"
#include "cuskimage/feature/orb.hpp"
#include "cuskimage/feature/censure.hpp"
