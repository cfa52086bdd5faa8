// Umbrella header: the core types and every module.
#pragma once

#include "cuskimage/array.hpp"
#include "cuskimage/device.hpp"
#include "cuskimage/dtype.hpp"
#include "cuskimage/error.hpp"
#include "cuskimage/filters.hpp"
#include "cuskimage/interop.hpp"
#include "cuskimage/io.hpp"
#include "cuskimage/memory.hpp"
#include "cuskimage/morphology.hpp"
#include "cuskimage/ndimage.hpp"
#include "cuskimage/stream.hpp"
#include "cuskimage/util.hpp"
#include "cuskimage/version.hpp"
#include "cuskimage/view.hpp"
#include "cuskimage/wsi.hpp"
