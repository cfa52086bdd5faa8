// The Delaunay triangulation of PiecewiseAffineTransform through reentrant Qhull, run and read as
// scipy.spatial.Delaunay does (options "d Qz Qt Qc Qbb Q12", lower-Delaunay facets in Qhull's list
// order, the first two vertices swapped on clockwise-oriented 2-D facets), so the simplices and their
// order are scipy's. Kept apart from Eigen: Qhull's headers define short macro names.
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "cuskimage/transform/geometric.hpp"

extern "C" {
#include <libqhull_r/qhull_ra.h>
}

namespace cuskimage::transform {

namespace {

/// Qhull's messages go to a memory stream so a failure can carry them.
class ErrorStream {
 public:
  ErrorStream() : file_(open_memstream(&buf_, &size_)) {}
  ~ErrorStream() {
    if (file_) std::fclose(file_);
    std::free(buf_);
  }
  ErrorStream(const ErrorStream&) = delete;
  ErrorStream& operator=(const ErrorStream&) = delete;
  FILE* file() const { return file_; }
  std::string text() {
    if (!file_) return {};
    std::fflush(file_);
    return std::string(buf_, size_);
  }

 private:
  char* buf_ = nullptr;
  std::size_t size_ = 0;
  FILE* file_ = nullptr;
};

/// Frees a Qhull instance on every path.
struct QhullRun {
  qhT state;
  qhT* qh = &state;
  explicit QhullRun(FILE* err) { qh_zero(qh, err); }
  ~QhullRun() {
    qh_freeqhull(qh, !qh_ALL);
    int curlong = 0;
    int totlong = 0;
    qh_memfreeshort(qh, &curlong, &totlong);
  }
  QhullRun(const QhullRun&) = delete;
  QhullRun& operator=(const QhullRun&) = delete;
};

}  // namespace

PiecewiseAffineTransform::Mesh delaunay(const Matrix& points) {
  if (points.cols < 2) throw InvalidArgument("Need at least 2-D data");
  if (points.rows == 0) throw InvalidArgument("No points given");
  const int dim = static_cast<int>(points.cols);
  std::vector<coordT> coords(points.data.begin(), points.data.end());
  ErrorStream err;
  QhullRun run(err.file());
  qhT* qh = run.qh;
  char options[] = "qhull d Qz Qt Qc Qbb Q12";
  const int exitcode = qh_new_qhull(qh, dim, static_cast<int>(points.rows), coords.data(), False, options, nullptr,
                                    err.file());
  if (exitcode != 0) {
    std::string msg = err.text();
    if (const auto cut = msg.find("\n\n"); cut != std::string::npos) msg.resize(cut);
    throw InvalidArgument("QhullError: " + msg);
  }
  qh_triangulate(qh);
  PiecewiseAffineTransform::Mesh mesh;
  mesh.points = points;
  const int facet_dim = dim + 1;
  facetT* facet = nullptr;
  FORALLfacets {
    if (facet->upperdelaunay != qh->UPPERdelaunay) continue;
    if (!facet->simplicial && (qh_setsize(qh, facet->vertices) != facet_dim))
      throw InvalidArgument("QhullError: non-simplical facet encountered");
    std::vector<std::int64_t> simplex(static_cast<std::size_t>(facet_dim));
    for (int i = 0; i < facet_dim; ++i) {
      auto* vertex = static_cast<vertexT*>(facet->vertices->e[i].p);
      simplex[static_cast<std::size_t>(i)] = qh_pointid(qh, vertex->point);
    }
    // scipy keeps 2-D simplices counter-clockwise.
    if (facet->toporient == qh_ORIENTclock && facet_dim == 3) std::swap(simplex[0], simplex[1]);
    mesh.simplices.push_back(std::move(simplex));
  }
  return mesh;
}

}  // namespace cuskimage::transform
