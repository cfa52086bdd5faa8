// skimage.util.apply_parallel without dask: the array is cut into chunks (scikit-image's default
// split or the given chunk shape), each chunk gets a halo of `depth` filled from its neighbours or,
// at the array's edges, by `mode` (dask's boundary rules), `function` runs on it, and the central
// part of each result is written to the output. CPU arrays run chunks on worker threads; GPU arrays
// run them in order on the stream.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <exception>
#include <mutex>
#include <thread>

#include "cuskimage/util.hpp"
#include "src/util/common.hpp"
#include "src/util/cpu_loops.hpp"

namespace cuskimage::util {
namespace detail {

void cpu_halo_gather(const Array& src, Array& out, const HaloParams& p) {
  dispatch<cuskimage::detail::AllTypes>(src.dtype(), "util.apply_parallel", [&]<class T>() {
    const auto f = make_halo_gather_fn<T>(src, out, p);
    cpu_generate<T>(out, f);
  });
}

}  // namespace detail

namespace {

constexpr std::string_view kFn = "util.apply_parallel";

/// scikit-image's _get_chunks: about `ncpu` chunks, the remainder added to the last chunk of an axis.
std::vector<std::vector<std::int64_t>> default_chunks(const Shape& shape, int ncpu) {
  std::vector<std::vector<std::int64_t>> chunks;
  const auto per_dim = static_cast<std::int64_t>(std::ceil(std::pow(double(ncpu), 1.0 / double(shape.size()))));
  std::int64_t used = 1;
  for (std::int64_t n : shape) {
    std::vector<std::int64_t> lens;
    if (used < ncpu) {
      const std::int64_t regular = n / per_dim, last = regular + n % per_dim;
      if (regular == 0) {
        lens = {last};
      } else {
        lens.assign(static_cast<std::size_t>(per_dim - 1), regular);
        lens.push_back(last);
      }
    } else {
      lens = {n};
    }
    chunks.push_back(std::move(lens));
    used *= per_dim;
  }
  return chunks;
}

detail::HaloMode parse_mode(const std::string& mode, bool& none) {
  none = false;
  if (mode == "reflect" || mode == "symmetric") return detail::HaloMode::reflect;
  if (mode == "periodic" || mode == "wrap") return detail::HaloMode::periodic;
  if (mode == "nearest" || mode == "edge") return detail::HaloMode::nearest;
  if (mode == "constant") return detail::HaloMode::constant;
  if (mode == "none") {
    none = true;
    return detail::HaloMode::constant;
  }
  detail::fail(kFn, "argument 'mode' must be one of 'reflect', 'symmetric', 'periodic', 'wrap', 'nearest', 'edge', ",
               "'constant', 'none', got '", mode, "'");
}

}  // namespace

Array apply_parallel(const std::function<Array(const Array& chunk, const Stream& stream)>& function,
                     const Array& array, const ApplyParallelOptions& opts, const Stream& stream) {
  detail::expect_valid(array, kFn, "array");
  detail::expect(static_cast<bool>(function), kFn, "function", "must be callable");
  const int nd = array.ndim();
  detail::expect(nd >= 1 && nd <= cuskimage::detail::kMaxDims, kFn, "array", "must have 1 to ",
                 cuskimage::detail::kMaxDims, " axes, got ", nd);
  std::optional<int> ca;
  if (opts.channel_axis) ca = detail::normalize_axis(*opts.channel_axis, nd, kFn, "channel_axis");
  bool none = false;
  const detail::HaloMode mode = parse_mode(opts.mode, none);

  // depth per axis (channel axis: 0).
  std::vector<std::int64_t> depth;
  const auto nd_spatial = static_cast<std::size_t>(ca ? nd - 1 : nd);
  if (opts.depth.size() == 1) {
    depth.assign(nd, opts.depth[0]);
    if (ca) depth[*ca] = 0;
  } else if (ca && opts.depth.size() == nd_spatial) {
    depth = opts.depth;
    depth.insert(depth.begin() + *ca, 0);
  } else {
    detail::expect(static_cast<int>(opts.depth.size()) == nd, kFn, "depth", "must have one value, ", nd_spatial,
                   " or ", nd, ", got ", opts.depth.size());
    depth = opts.depth;
  }
  for (auto d : depth) detail::expect(d >= 0, kFn, "depth", "must be non-negative, got ", d);

  // Chunk lengths per axis.
  std::vector<std::vector<std::int64_t>> lens;
  const int workers = opts.num_workers > 0 ? opts.num_workers
                                           : std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  if (opts.chunks.empty()) {
    Shape spatial;
    for (int d = 0; d < nd; ++d)
      if (!ca || d != *ca) spatial.push_back(array.shape()[d]);
    lens = spatial.empty() ? std::vector<std::vector<std::int64_t>>{} : default_chunks(spatial, workers);
    if (ca) lens.insert(lens.begin() + *ca, std::vector<std::int64_t>{array.shape()[*ca]});
  } else {
    Shape c = opts.chunks;
    if (c.size() == 1) c.assign(nd, c[0]);
    if (ca && c.size() == nd_spatial) c.insert(c.begin() + *ca, array.shape()[*ca]);
    detail::expect(static_cast<int>(c.size()) == nd, kFn, "chunks", "must have one value or one per axis (", nd,
                   "), got ", opts.chunks.size());
    for (int d = 0; d < nd; ++d) {
      detail::expect(c[d] > 0, kFn, "chunks", "must be positive, got ", shape_str(opts.chunks));
      std::vector<std::int64_t> l;
      for (std::int64_t s = 0; s < array.shape()[d]; s += c[d]) l.push_back(std::min(c[d], array.shape()[d] - s));
      if (l.empty()) l.push_back(0);
      lens.push_back(std::move(l));
    }
  }

  // Enumerate chunks (C order over the chunk grid).
  struct Chunk {
    std::vector<std::int64_t> start, stop;
  };
  std::vector<Chunk> chunks(1);
  for (int d = 0; d < nd; ++d) {
    std::vector<Chunk> next;
    for (const Chunk& c : chunks) {
      std::int64_t s = 0;
      for (std::int64_t l : lens[d]) {
        Chunk n = c;
        n.start.push_back(s);
        n.stop.push_back(s + l);
        next.push_back(std::move(n));
        s += l;
      }
    }
    chunks = std::move(next);
  }

  std::mutex out_mutex;
  Array out;
  if (opts.dtype) out = Array::empty(array.shape(), *opts.dtype, array.device(), stream);

  auto run_chunk = [&](const Chunk& c) {
    std::vector<std::int64_t> origin(nd), ext(nd), inner(nd);
    for (int d = 0; d < nd; ++d) {
      const std::int64_t n = array.shape()[d];
      std::int64_t lo = c.start[d] - depth[d], hi = c.stop[d] + depth[d];
      if (none) lo = std::max<std::int64_t>(lo, 0), hi = std::min(hi, n);
      origin[d] = lo;
      ext[d] = hi - lo;
      inner[d] = c.start[d] - lo;
    }
    Array block;
    if (none) {
      std::vector<Slice> sl(nd);
      for (int d = 0; d < nd; ++d) sl[d] = Slice{origin[d], origin[d] + ext[d], 1};
      block = array.slice(std::span<const Slice>(sl.data(), sl.size())).copy(stream);
    } else {
      block = Array::empty(Shape(ext.begin(), ext.end()), array.dtype(), array.device(), stream);
      detail::HaloParams hp{origin, mode, opts.cval};
      if (block.size() > 0)
        detail::on_backend(
            array, stream, [&] { detail::cpu_halo_gather(array, block, hp); },
            [&](const Stream& s) { detail::cuda_halo_gather(array, block, hp, s); });
    }
    Array result = function(block, stream);
    detail::expect(result.valid() && result.shape() == block.shape(), kFn, "function",
                   "must return an array of its chunk's shape ", shape_str(block.shape()), ", got ",
                   result.valid() ? shape_str(result.shape()) : std::string("an empty handle"));
    std::vector<Slice> center(nd), dest(nd);
    for (int d = 0; d < nd; ++d) {
      center[d] = Slice{inner[d], inner[d] + (c.stop[d] - c.start[d]), 1};
      dest[d] = Slice{c.start[d], c.stop[d], 1};
    }
    {
      std::lock_guard<std::mutex> lock(out_mutex);
      if (!out.valid()) out = Array::empty(array.shape(), result.dtype(), array.device(), stream);
    }
    Array dst = out.slice(std::span<const Slice>(dest.data(), dest.size()));
    dst.copy_from(result.slice(std::span<const Slice>(center.data(), center.size())), stream);
  };

  if (chunks.empty() || array.size() == 0)
    return Array::empty(array.shape(), opts.dtype.value_or(array.dtype()), array.device(), stream);
  run_chunk(chunks[0]);  // fixes the output dtype
  if (array.device().is_cuda() || workers == 1 || chunks.size() == 1) {
    for (std::size_t i = 1; i < chunks.size(); ++i) run_chunk(chunks[i]);
    return out;
  }
  std::atomic<std::size_t> next{1};
  std::exception_ptr error;
  std::mutex error_mutex;
  std::vector<std::thread> pool;
  const int nthreads = static_cast<int>(std::min<std::size_t>(static_cast<std::size_t>(workers), chunks.size() - 1));
  for (int t = 0; t < nthreads; ++t) {
    pool.emplace_back([&] {
      for (std::size_t i = next++; i < chunks.size(); i = next++) {
        try {
          run_chunk(chunks[i]);
        } catch (...) {
          std::lock_guard<std::mutex> lock(error_mutex);
          if (!error) error = std::current_exception();
        }
      }
    });
  }
  for (auto& th : pool) th.join();
  if (error) std::rethrow_exception(error);
  return out;
}

}  // namespace cuskimage::util
