// estimate_transform: scikit-image's TRANSFORMS table, dispatching to each class's from_estimate.
#include <algorithm>
#include <cctype>
#include <string>

#include "cuskimage/transform/geometric.hpp"

namespace cuskimage::transform {

namespace {

template <class T>
Estimated<std::shared_ptr<GeometricTransform>> erase(Estimated<T> est) {
  if (!est) return Estimated<std::shared_ptr<GeometricTransform>>::failure(est.message);
  return std::shared_ptr<GeometricTransform>(std::make_shared<T>(std::move(est).value()));
}

void no_weights(const Array& weights, const char* ttype) {
  if (weights.valid())
    throw InvalidArgument(std::string("estimate_transform: the ") + ttype + " transform takes no weights");
}

}  // namespace

Estimated<std::shared_ptr<GeometricTransform>> estimate_transform(TransformType ttype, const Array& src,
                                                                  const Array& dst,
                                                                  const EstimateTransformOptions& opts,
                                                                  const Array& weights) {
  switch (ttype) {
    case TransformType::euclidean:
      no_weights(weights, "euclidean");
      return erase(EuclideanTransform::from_estimate(src, dst));
    case TransformType::similarity:
      no_weights(weights, "similarity");
      return erase(SimilarityTransform::from_estimate(src, dst));
    case TransformType::affine:
      return erase(AffineTransform::from_estimate(src, dst, weights));
    case TransformType::piecewise_affine:
      no_weights(weights, "piecewise-affine");
      return erase(PiecewiseAffineTransform::from_estimate(src, dst));
    case TransformType::projective:
      return erase(ProjectiveTransform::from_estimate(src, dst, weights));
    case TransformType::fundamental:
      no_weights(weights, "fundamental");
      return erase(FundamentalMatrixTransform::from_estimate(src, dst));
    case TransformType::essential:
      no_weights(weights, "essential");
      return erase(EssentialMatrixTransform::from_estimate(src, dst));
    case TransformType::polynomial:
      return erase(PolynomialTransform::from_estimate(src, dst, opts.order, weights));
  }
  throw InvalidArgument("estimate_transform: unknown transform type");
}

Estimated<std::shared_ptr<GeometricTransform>> estimate_transform(const std::string& ttype, const Array& src,
                                                                  const Array& dst,
                                                                  const EstimateTransformOptions& opts,
                                                                  const Array& weights) {
  std::string lower = ttype;
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
  if (const auto t = meta::enum_from_name<TransformType>(lower)) return estimate_transform(*t, src, dst, opts, weights);
  throw InvalidArgument("the transformation type '" + lower + "' is not implemented");
}

}  // namespace cuskimage::transform
