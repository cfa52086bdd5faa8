// skimage.segmentation._join (scikit-image 0.26): join_segmentations and relabel_sequential; and
// flood / flood_fill, which scikit-image's segmentation re-exports from morphology.
#pragma once

#include <cstdint>

#include "cuskimage/array.hpp"
#include "cuskimage/morphology.hpp"
#include "cuskimage/options.hpp"
#include "cuskimage/stream.hpp"

namespace cuskimage::segmentation {

/// scikit-image's util.ArrayMap: maps in_values[k] -> out_values[k] (both 1-D, same length; on the
/// label image's device). in_values are sorted ascending and distinct.
struct ArrayMap {
  Array in_values;
  Array out_values;
  /// `labels` mapped through the map (values not in in_values become 0, as ArrayMap's __getitem__).
  Array operator()(const Array& labels, const Stream& stream = {}) const;
};

struct RelabelSequentialOptions {
  /// The first label of the output (> 0); label 0 stays 0.
  std::int64_t offset = 1;
};
CUSK_OPTIONS(RelabelSequentialOptions, (offset, "the first output label (> 0)"))

struct RelabelResult {
  Array relabeled;   // the relabelled image
  ArrayMap forward;  // original -> new
  ArrayMap inverse;  // new -> original
};

/// skimage.segmentation.relabel_sequential: the sorted distinct values v_0 < v_1 < ... become
/// offset, offset + 1, ... (0 stays 0). Integer dtypes only, no negative values (InvalidArgument).
/// Output dtype as scikit-image: the input's unless the largest new label does not fit below its
/// maximum, then the smallest unsigned type holding it (or a wider one). in_values have the input's
/// dtype, out_values the output's. Synchronises the stream (the label count sizes the maps).
RelabelResult relabel_sequential(const Array& label_field, const RelabelSequentialOptions& opts = {},
                                 const Stream& stream = {});

struct JoinResult {
  Array joined;
  ArrayMap map_to_s1;  // joined label -> s1 label
  ArrayMap map_to_s2;  // joined label -> s2 label
};

/// skimage.segmentation.join_segmentations: one label per distinct (s1, s2) pair present, numbered
/// in the order of factor * rank(s1) + rank(s2) (factor = s2.max() + 1), as scikit-image; 0 only
/// where both are their smallest value 0. Integer label images of one shape. Synchronises.
Array join_segmentations(const Array& s1, const Array& s2, const Stream& stream = {});
/// join_segmentations with return_mapping=True: the forward maps to s1 and s2 too.
JoinResult join_segmentations_with_mapping(const Array& s1, const Array& s2, const Stream& stream = {});

// skimage.segmentation.flood / flood_fill are morphology's (scikit-image re-exports them).
using morphology::flood;
using morphology::flood_fill;
using morphology::FloodOptions;

}  // namespace cuskimage::segmentation
