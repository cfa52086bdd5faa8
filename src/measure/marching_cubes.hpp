// Private interface of measure.marching_cubes: the per-cube rules both backends run (so the CPU and
// CUDA meshes are bit-identical) and the CUDA entry.
//
// Conventions follow scikit-image's port of Lewiner's code. Inside the marcher x is the volume's
// last axis and z its first; corners are numbered as Lewiner numbers them,
//   v0 (0,0,0) v1 (1,0,0) v2 (1,1,0) v3 (0,1,0) v4 (0,0,1) v5 (1,0,1) v6 (1,1,1) v7 (0,1,1)  (x,y,z),
// edge e runs from corner kEdgeA[e] to kEdgeB[e] (0-3 bottom ring, 4-7 top ring, 8-11 vertical),
// local vertex 12 is the cube's centre. A cube's bit i is set when v_i > level.
//
// No lookup table is copied. Each cube's triangles are built from its edge polygons:
//  1. every cube face contributes one segment per sign change pair; on an ambiguous face (signs
//     + - + -) the pairing is the face decision (Lorensen: the positive corners are always cut off,
//     which is what the classic table does; Lewiner: the asymptotic decider of Lewiner et al.);
//  2. the segments, oriented with the positive corners on their left seen from outside, chain into
//     closed loops (one loop per surface sheet crossing the cube);
//  3. a loop of n vertices becomes a fan of n - 2 triangles, or, for Lewiner, a fan of n triangles
//     around the centre vertex when n >= 8 (subcases 7.3, 10.2, 12.2, 13.3, 13.4);
//  4. Lewiner's interior test (cases 4, 6, 7, 10, 12, 13) may join two loops by a tube of n1 + n2
//     triangles (4.1.2, 6.1.2, 7.4.2, 10.1.2, 12.1.2, 13.5.2); 6.1.2 also passes through the centre.
// The decisions (which tests, their signs, the interior test's reference edge) reproduce
// scikit-image's, so the subcase, the triangle count and the vertex set of every cube are
// scikit-image's; only the choice of diagonals inside a polygon (and of the tube's rungs) differs
// from its tables.
#pragma once

#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>

#include "cuskimage/array.hpp"
#include "src/core/hd.hpp"
#include "src/core/rn.hpp"

namespace cuskimage::measure::detail {

using cuskimage::detail::Rn;

/// np.spacing(1.0): Lewiner's FLT_EPSILON in scikit-image's port.
constexpr double kMcEps = 2.220446049250313e-16;

/// Nibble i of a packed table (device-friendly constant tables).
CUSK_HD int mc_nib(std::uint64_t packed, int i) { return static_cast<int>((packed >> (4 * i)) & 15u); }

// Edge e: corner A -> corner B (Lewiner numbering).
constexpr std::uint64_t kEdgeA = 0x321076543210ull;  // 0 1 2 3 4 5 6 7 0 1 2 3
constexpr std::uint64_t kEdgeB = 0x765447650321ull;  // 1 2 3 0 5 6 7 4 4 5 6 7
// Corner offsets.
constexpr std::uint64_t kCornerDx = 0x01100110ull;  // v1 v2 v5 v6
constexpr std::uint64_t kCornerDy = 0x11001100ull;  // v2 v3 v6 v7
// Lewiner corner -> bit index dz*4 + dy*2 + dx (the order of scikit-image's vv / vg arrays).
constexpr std::uint64_t kBitIndex = 0x67542310ull;  // 0 1 3 2 4 5 7 6
// Faces 0..5 are Lewiner's faces 1..6. Test order (A, B, C, D) as in Lewiner's test_face, and the
// same corners counter-clockwise seen from outside (for segment orientation).
// Packed 16 bits per face: face f is bits 16f..16f+15.
constexpr std::uint64_t kFaceTestLo = 0x0473376226511540ull, kFaceTestHi = 0x56741230ull;
constexpr std::uint64_t kFaceCcwLo = 0x7403673256214510ull, kFaceCcwHi = 0x76541230ull;
CUSK_HD std::uint64_t mc_face_test(int f) { return f < 4 ? (kFaceTestLo >> (16 * f)) & 0xffff : (kFaceTestHi >> (16 * (f - 4))) & 0xffff; }
CUSK_HD std::uint64_t mc_face_ccw(int f) { return f < 4 ? (kFaceCcwLo >> (16 * f)) & 0xffff : (kFaceCcwHi >> (16 * (f - 4))) & 0xffff; }

CUSK_HD int mc_edge_between(int a, int b) {
  for (int e = 0; e < 12; ++e) {
    const int p = mc_nib(kEdgeA, e), q = mc_nib(kEdgeB, e);
    if ((p == a && q == b) || (p == b && q == a)) return e;
  }
  return -1;
}

/// Bit f set when edge e lies on face f.
CUSK_HD int mc_edge_faces(int e) {
  const int a = mc_nib(kEdgeA, e), b = mc_nib(kEdgeB, e);
  int m = 0;
  for (int f = 0; f < 6; ++f) {
    int hits = 0;
    for (int i = 0; i < 4; ++i) {
      const int c = mc_nib(mc_face_ccw(f), i);
      hits += (c == a || c == b) ? 1 : 0;
    }
    if (hits == 2) m |= 1 << f;
  }
  return m;
}

CUSK_HD int mc_popcount8(int x) {
  int n = 0;
  for (int i = 0; i < 8; ++i) n += (x >> i) & 1;
  return n;
}

CUSK_HD bool mc_adjacent(int a, int b) { return mc_edge_between(a, b) >= 0; }

/// Lewiner's test_face for face f (0-based) with sign s (+1 / -1): true when the corners of the
/// sign s are joined across the face; an (almost) exact tie counts as joined.
CUSK_HD bool mc_test_face(const double v[8], int f, int s) {
  const std::uint64_t q = mc_face_test(f);
  const Rn A = v[mc_nib(q, 0)], B = v[mc_nib(q, 1)], C = v[mc_nib(q, 2)], D = v[mc_nib(q, 3)];
  const double ac_bd = (A * C - B * D).v;
  if (ac_bd > -kMcEps && ac_bd < kMcEps) return s >= 0;
  return ((Rn(static_cast<double>(s)) * A) * Rn(ac_bd)).v >= 0;
}

/// Lewiner's test_interior as scikit-image ports it (including its fall-through on the +-+- and
/// -+-+ sections, which answers false). `kase` is the MC33 case, `edge` the reference edge
/// (cases 6, 7, 12, 13), `s` the sign (+1 / -1).
CUSK_HD bool mc_test_interior(const double vv[8], int kase, int edge, int s) {
  const Rn v0 = vv[0], v1 = vv[1], v2 = vv[2], v3 = vv[3], v4 = vv[4], v5 = vv[5], v6 = vv[6], v7 = vv[7];
  const Rn eps = kMcEps;
  Rn t, At = 0.0, Bt = 0.0, Ct = 0.0, Dt = 0.0;
  if (kase == 4 || kase == 10) {
    const Rn a = (v4 - v0) * (v6 - v2) - (v7 - v3) * (v5 - v1);
    const Rn b = v2 * (v4 - v0) + v0 * (v6 - v2) - v1 * (v7 - v3) - v3 * (v5 - v1);
    t = -b / (Rn(2.0) * a + eps);
    if (t.v < 0 || t.v > 1) return s > 0;
    At = v0 + (v4 - v0) * t;
    Bt = v3 + (v7 - v3) * t;
    Ct = v2 + (v6 - v2) * t;
    Dt = v1 + (v5 - v1) * t;
  } else {
    // (a, b): the reference edge; B, C, D run along the three parallel edges at the same t.
    Rn a, b, p0, p1, q0, q1, r0, r1;
    switch (edge) {
      case 0: a = v0, b = v1, p0 = v3, p1 = v2, q0 = v7, q1 = v6, r0 = v4, r1 = v5; break;
      case 1: a = v1, b = v2, p0 = v0, p1 = v3, q0 = v4, q1 = v7, r0 = v5, r1 = v6; break;
      case 2: a = v2, b = v3, p0 = v1, p1 = v0, q0 = v5, q1 = v4, r0 = v6, r1 = v7; break;
      case 3: a = v3, b = v0, p0 = v2, p1 = v1, q0 = v6, q1 = v5, r0 = v7, r1 = v4; break;
      case 4: a = v4, b = v5, p0 = v7, p1 = v6, q0 = v3, q1 = v2, r0 = v0, r1 = v1; break;
      case 5: a = v5, b = v6, p0 = v4, p1 = v7, q0 = v0, q1 = v3, r0 = v1, r1 = v2; break;
      case 6: a = v6, b = v7, p0 = v5, p1 = v4, q0 = v1, q1 = v0, r0 = v2, r1 = v3; break;
      case 7: a = v7, b = v4, p0 = v6, p1 = v5, q0 = v2, q1 = v1, r0 = v3, r1 = v0; break;
      case 8: a = v0, b = v4, p0 = v3, p1 = v7, q0 = v2, q1 = v6, r0 = v1, r1 = v5; break;
      case 9: a = v1, b = v5, p0 = v0, p1 = v4, q0 = v3, q1 = v7, r0 = v2, r1 = v6; break;
      case 10: a = v2, b = v6, p0 = v1, p1 = v5, q0 = v0, q1 = v4, r0 = v3, r1 = v7; break;
      default: a = v3, b = v7, p0 = v2, p1 = v6, q0 = v1, q1 = v5, r0 = v0, r1 = v4; break;
    }
    t = a / (a - b + eps);
    At = 0.0;
    Bt = p0 + (p1 - p0) * t;
    Ct = q0 + (q1 - q0) * t;
    Dt = r0 + (r1 - r0) * t;
  }
  const int test = (At.v >= 0 ? 1 : 0) | (Bt.v >= 0 ? 2 : 0) | (Ct.v >= 0 ? 4 : 0) | (Dt.v >= 0 ? 8 : 0);
  switch (test) {
    case 5: return (At * Ct - Bt * Dt).v < kMcEps ? s > 0 : false;
    case 10: return (At * Ct - Bt * Dt).v >= kMcEps ? s > 0 : false;
    case 7: case 11: case 13: case 14: case 15: return s < 0;
    default: return s > 0;
  }
}

/// MC33 case of the ambiguous configurations (3, 4, 6, 7, 10, 12, 13), else 0. Classified by the
/// cube graph of the minority corners (the positive ones when there are four).
CUSK_HD int mc_ambiguous_case(int index) {
  const int np = mc_popcount8(index);
  const int set = np <= 4 ? index : (~index & 255);
  const int k = mc_popcount8(set);
  int c[4], n = 0;
  for (int i = 0; i < 8; ++i)
    if ((set >> i) & 1) c[n++] = i;
  int adj = 0, body = 0;  // pairs joined by a cube edge / by a body diagonal
  for (int i = 0; i < k; ++i)
    for (int j = i + 1; j < k; ++j) {
      const int d = (mc_nib(kCornerDx, c[i]) ^ mc_nib(kCornerDx, c[j])) + (mc_nib(kCornerDy, c[i]) ^ mc_nib(kCornerDy, c[j])) +
                    ((c[i] >> 2) ^ (c[j] >> 2));
      adj += d == 1;
      body += d == 3;
    }
  if (k == 2) return adj ? 0 : (body ? 4 : 3);
  if (k == 3) return adj == 1 ? 6 : (adj == 0 ? 7 : 0);
  if (k == 4) {
    if (adj == 0) return 13;
    if (adj == 2 && body == 2) return 10;
    if (adj == 2 && body == 1) return 12;
  }
  return 0;
}

/// The ambiguous faces of cube `index` (bit f: face f) and, with Lewiner's tests, the faces whose
/// positive corners are joined and those whose test came out true.
struct McFaces {
  int amb = 0, joined = 0, test_true = 0;
};

CUSK_HD McFaces mc_face_decisions(const double v[8], int index, bool lewiner, int s) {
  McFaces fd;
  for (int f = 0; f < 6; ++f) {
    const std::uint64_t q = mc_face_test(f);
    const int a = (index >> mc_nib(q, 0)) & 1, b = (index >> mc_nib(q, 1)) & 1;
    const int c = (index >> mc_nib(q, 2)) & 1, d = (index >> mc_nib(q, 3)) & 1;
    if (a == c && b == d && a != b) {
      fd.amb |= 1 << f;
      if (lewiner) {
        const bool r = mc_test_face(v, f, s);
        fd.test_true |= (r ? 1 : 0) << f;
        if (s > 0 ? r : !r) fd.joined |= 1 << f;
      }
    }
  }
  return fd;
}

/// The crossing loops of a cube: loop l is seq[start[l], start[l] + len[l]) (edge ids).
struct McLoops {
  int start[4], len[4], n = 0;
  unsigned char seq[12];
};

/// Segments, then loops: every crossed edge is the exit (positive -> negative, counter-clockwise)
/// of exactly one face; it continues to the next entry on that face (joined: the following
/// crossing, cut off around the negative corner; else the preceding one). Each loop starts from
/// its lowest edge.
CUSK_HD McLoops mc_loops(int index, const McFaces& fd) {
  int next[12];
  for (int e = 0; e < 12; ++e) next[e] = -1;
  for (int f = 0; f < 6; ++f) {
    const std::uint64_t q = mc_face_ccw(f);
    int ed[4], sg[4];
    for (int i = 0; i < 4; ++i) {
      const int ca = mc_nib(q, i), cb = mc_nib(q, (i + 1) & 3);
      ed[i] = mc_edge_between(ca, cb);
      sg[i] = (((index >> ca) & 1) ? 1 : 0) - (((index >> cb) & 1) ? 1 : 0);  // +1 exit, -1 entry
    }
    const bool j = (fd.joined >> f) & 1;
    for (int i = 0; i < 4; ++i) {
      if (sg[i] != 1) continue;
      int k = i;
      if ((fd.amb >> f) & 1) {
        k = j ? (i + 1) & 3 : (i + 3) & 3;
      } else {
        for (int step = 1; step < 4; ++step)
          if (sg[(i + step) & 3] == -1) k = (i + step) & 3;
      }
      next[ed[i]] = ed[k];
    }
  }
  McLoops lp;
  int used = 0, nseq = 0;
  for (int e = 0; e < 12; ++e) {
    if (next[e] < 0 || ((used >> e) & 1)) continue;
    lp.start[lp.n] = nseq;
    int x = e;
    do {
      used |= 1 << x;
      lp.seq[nseq++] = static_cast<unsigned char>(x);
      x = next[x];
    } while (x != e && nseq < 12);
    lp.len[lp.n] = nseq - lp.start[lp.n];
    ++lp.n;
  }
  return lp;
}

/// Lewiner's interior test: which two loops (if any) a tube joins (a = b = -1: none), and whether
/// it passes through the centre (6.1.2).
struct McTube {
  int a = -1, b = -1;
  bool centre = false;
};

CUSK_HD McTube mc_interior_tube(const double v[8], int index, int s, const McFaces& fd, const McLoops& lp) {
  const int amb = fd.amb, test_true = fd.test_true;
  McTube tb;
  const int kase = mc_ambiguous_case(index);
  const int minority = s > 0 ? 1 : 0;
  auto sign_of = [&](int c) { return (index >> c) & 1; };
  bool tube = false;
  if (kase == 4) {
    tube = !mc_test_interior(v, 4, -1, s);
  } else if (kase == 10 && !(test_true & amb)) {
    tube = !mc_test_interior(v, 10, -1, s);
  } else if (kase == 6 && !(test_true & amb)) {
    // reference edge: at the isolated minority corner, on the ambiguous face; the vertical one
    // when there is one, else the ring edge ending at that corner
    int iso = 0;
    for (int c = 0; c < 8; ++c) {
      if (sign_of(c) != minority) continue;
      bool alone = true;
      for (int d = 0; d < 8; ++d)
        if (d != c && sign_of(d) == minority && mc_adjacent(c, d)) alone = false;
      if (alone) iso = c;
    }
    int f = 0;
    while (!((amb >> f) & 1)) ++f;
    int edge = -1;
    for (int i = 0; i < 4; ++i) {
      const int d = mc_nib(mc_face_ccw(f), i);
      const int e = mc_edge_between(iso, d);
      if (e >= 8) edge = e;
    }
    if (edge < 0) edge = iso < 4 ? (iso + 3) % 4 : 4 + (iso + 3) % 4;
    tube = !mc_test_interior(v, 6, edge, s);
    tb.centre = tube;
  } else if (kase == 7 && (test_true & amb) == amb) {
    // reference edge: the ring edge leaving the majority corner next to all three minority ones
    int sp = 0;
    for (int c = 0; c < 8; ++c) {
      if (sign_of(c) == minority) continue;
      int n = 0;
      for (int d = 0; d < 8; ++d) n += (sign_of(d) == minority && mc_adjacent(c, d)) ? 1 : 0;
      if (n == 3) sp = c;
    }
    tube = mc_test_interior(v, 7, sp, s);
  } else if (kase == 12 && !(test_true & amb)) {
    // reference edge: the one the two ambiguous faces share
    int f0 = -1, f1 = -1;
    for (int f = 0; f < 6; ++f)
      if ((amb >> f) & 1) (f0 < 0 ? f0 : f1) = f;
    int edge = 0;
    for (int i = 0; i < 4; ++i)
      for (int j = 0; j < 4; ++j) {
        const int e0 = mc_edge_between(mc_nib(mc_face_ccw(f0), i), mc_nib(mc_face_ccw(f0), (i + 1) & 3));
        const int e1 = mc_edge_between(mc_nib(mc_face_ccw(f1), j), mc_nib(mc_face_ccw(f1), (j + 1) & 3));
        if (e0 == e1) edge = e0;
      }
    tube = !mc_test_interior(v, 12, edge, s);
  } else if (kase == 13 && mc_popcount8(test_true) == 3) {
    // 13.5: the three joined faces meet at a (negative) corner; the test runs from the opposite
    // corner o (top ring: the edge leaving o, bottom ring: the edge reaching o)
    int corner = -1;
    for (int c = 0; c < 8; ++c) {
      int n = 0;
      for (int f = 0; f < 6; ++f) {
        if (!((test_true >> f) & 1)) continue;
        for (int i = 0; i < 4; ++i) n += mc_nib(mc_face_ccw(f), i) == c ? 1 : 0;
      }
      if (n == 3 && !((index >> c) & 1)) corner = c;
    }
    if (corner >= 0) {
      const int o = corner ^ 6;  // the body-diagonal opposite in Lewiner's numbering
      const int edge = o >= 4 ? o : (o + 3) % 4;
      tube = !mc_test_interior(v, 13, edge, s);
      if (tube) {
        // the 6-loop and the 3-loop around o
        for (int l = 0; l < lp.n; ++l) {
          if (lp.len[l] == 6) tb.a = l;
          if (lp.len[l] == 3) {
            const int e = lp.seq[lp.start[l]];
            const int ca = mc_nib(kEdgeA, e), cb = mc_nib(kEdgeB, e);
            bool around_o = (ca == o || cb == o);
            for (int i = 1; i < 3 && around_o; ++i) {
              const int ei = lp.seq[lp.start[l] + i];
              around_o = mc_nib(kEdgeA, ei) == o || mc_nib(kEdgeB, ei) == o;
            }
            if (around_o) tb.b = l;
          }
        }
        if (tb.a < 0 || tb.b < 0) tb.a = tb.b = -1;
      }
      tube = false;  // handled above
    }
  }
  if (tube && lp.n == 2) tb.a = 0, tb.b = 1;
  return tb;
}

/// The triangles of the loops a tube does not take: a fan around the centre for Lewiner's long
/// loops, else a fan from the first apex whose triangles all leave the cube's faces (a triangle
/// lying in a face would be built by the neighbour cube too, as a double wall).
CUSK_HD int mc_loop_triangles(const McLoops& lp, const McTube& tb, bool lewiner, unsigned char* tri, int nt) {
  auto emit = [&](int a, int b, int c) {
    tri[3 * nt] = static_cast<unsigned char>(a);
    tri[3 * nt + 1] = static_cast<unsigned char>(b);
    tri[3 * nt + 2] = static_cast<unsigned char>(c);
    ++nt;
  };
  for (int l = 0; l < lp.n; ++l) {
    if (l == tb.a || l == tb.b) continue;
    const unsigned char* L = lp.seq + lp.start[l];
    const int n = lp.len[l];
    if (lewiner && n >= 8) {
      for (int i = 0; i < n; ++i) emit(12, L[i], L[(i + 1) % n]);
    } else {
      int apex = 0;
      for (int r = 0; r < n; ++r) {
        bool flat = false;
        for (int i = 1; i + 1 < n && !flat; ++i)
          flat = (mc_edge_faces(L[r]) & mc_edge_faces(L[(r + i) % n]) & mc_edge_faces(L[(r + i + 1) % n])) != 0;
        if (!flat) {
          apex = r;
          break;
        }
      }
      for (int i = 1; i + 1 < n; ++i) emit(L[apex], L[(apex + i) % n], L[(apex + i + 1) % n]);
    }
  }
  return nt;
}

/// A tube's band between loop a (forward) and loop b (backward), rungs interleaved evenly, starting
/// at b's vertex nearest to a's first one (edge midpoints).
CUSK_HD int mc_tube_triangles(const McLoops& lp, const McTube& tb, unsigned char* tri, int nt) {
  auto emit = [&](int a, int b, int c) {
    tri[3 * nt] = static_cast<unsigned char>(a);
    tri[3 * nt + 1] = static_cast<unsigned char>(b);
    tri[3 * nt + 2] = static_cast<unsigned char>(c);
    ++nt;
  };
  const unsigned char* A = lp.seq + lp.start[tb.a];
  const unsigned char* B = lp.seq + lp.start[tb.b];
  const int na = lp.len[tb.a], nb = lp.len[tb.b];
  auto mid = [](int e, int axis) {
    const int ca = mc_nib(kEdgeA, e), cb = mc_nib(kEdgeB, e);
    if (axis == 0) return mc_nib(kCornerDx, ca) + mc_nib(kCornerDx, cb);
    if (axis == 1) return mc_nib(kCornerDy, ca) + mc_nib(kCornerDy, cb);
    return (ca >> 2) + (cb >> 2);
  };
  int bs = 0, best = 1 << 30;
  for (int j = 0; j < nb; ++j) {
    int d = 0;
    for (int ax = 0; ax < 3; ++ax) {
      const int diff = mid(A[0], ax) - mid(B[j], ax);
      d += diff * diff;
    }
    if (d < best) best = d, bs = j;
  }
  const int first = nt;
  int i = 0, j = 0;
  while (i < na || j < nb) {
    bool adv_a = j >= nb || (i < na && (2 * i + 1) * nb <= (2 * j + 1) * na);
    const int ai = A[i % na], bj = B[((bs - j) % nb + nb) % nb];
    if (i < na && j < nb) {  // avoid a triangle lying in a cube face when the other step does not
      const int an = A[(i + 1) % na], bn = B[((bs - j - 1) % nb + nb) % nb];
      const bool flat_a = (mc_edge_faces(ai) & mc_edge_faces(an) & mc_edge_faces(bj)) != 0;
      const bool flat_b = (mc_edge_faces(bn) & mc_edge_faces(bj) & mc_edge_faces(ai)) != 0;
      if (adv_a && flat_a && !flat_b) adv_a = false;
      else if (!adv_a && flat_b && !flat_a) adv_a = true;
    }
    if (adv_a) {
      emit(ai, A[(i + 1) % na], bj);
      ++i;
    } else {
      emit(B[((bs - j - 1) % nb + nb) % nb], bj, ai);
      ++j;
    }
  }
  if (tb.centre) {
    // 6.1.2 runs through the centre: the band's first triangle becomes a fan around vertex 12
    const unsigned char a = tri[3 * first], b = tri[3 * first + 1], c = tri[3 * first + 2];
    tri[3 * first + 2] = 12;
    emit(b, c, 12);
    emit(c, a, 12);
  }
  return nt;
}

/// Triangles of one cube (Lewiner numbering of the corner values `v`, level subtracted) as local
/// vertex ids (edges 0-11, centre 12), three per triangle, oriented towards increasing values.
/// Returns the triangle count (at most 12).
CUSK_HD int mc_cube_triangles(const double v[8], int index, bool lewiner, unsigned char* tri) {
  if (index == 0 || index == 255) return 0;
  const int s = mc_popcount8(index) <= 4 ? 1 : -1;  // the sign of Lewiner's tests
  const McFaces fd = mc_face_decisions(v, index, lewiner, s);
  const McLoops lp = mc_loops(index, fd);
  const McTube tb = lewiner ? mc_interior_tube(v, index, s, fd, lp) : McTube{};
  int nt = mc_loop_triangles(lp, tb, lewiner, tri, 0);
  if (tb.a >= 0) nt = mc_tube_triangles(lp, tb, tri, nt);
  return nt;
}

// ---------------------------------------------------------------------------------------------
// The volume walk. Lattice points (i, j, k) sit at voxel (k*st, j*st, i*st) (z, y, x); a lattice
// point owns the vertices of its +x, +y, +z edges (slots 0, 1, 2) and the centre of the cube it
// is the low corner of (slot 3). A vertex's key is point * 4 + slot; both backends emit vertices
// in key order and faces in cube raster order, then triangle order within a cube.
// ---------------------------------------------------------------------------------------------

struct McGrid {
  const float* vol = nullptr;  // contiguous float32 (nz, ny, nx)
  const bool* mask = nullptr;  // contiguous, same shape, or null
  std::int64_t nx = 0, ny = 0, nz = 0;
  std::int64_t st = 1;
  std::int64_t cx = 0, cy = 0, cz = 0;  // cubes per axis
  std::int64_t px = 0, py = 0, pz = 0;  // lattice points per axis (c + 1)
  double level = 0.0;
  bool lewiner = true;
};

CUSK_HD double mc_at(const McGrid& g, std::int64_t i, std::int64_t j, std::int64_t k) {
  return static_cast<double>(g.vol[(k * g.st * g.ny + j * g.st) * g.nx + i * g.st]);
}

/// The cube with low corner (i, j, k) is marched: inside the grid and, with a mask, its far corner
/// is true (scikit-image tests mask[z + st, y + st, x + st]).
CUSK_HD bool mc_active(const McGrid& g, std::int64_t i, std::int64_t j, std::int64_t k) {
  if (i < 0 || j < 0 || k < 0 || i >= g.cx || j >= g.cy || k >= g.cz) return false;
  if (!g.mask) return true;
  return g.mask[((k + 1) * g.st * g.ny + (j + 1) * g.st) * g.nx + (i + 1) * g.st];
}

/// Corner values minus the level (Lewiner numbering) and the case index.
CUSK_HD int mc_load(const McGrid& g, std::int64_t i, std::int64_t j, std::int64_t k, double v[8]) {
  int index = 0;
  for (int c = 0; c < 8; ++c) {
    v[c] = (Rn(mc_at(g, i + mc_nib(kCornerDx, c), j + mc_nib(kCornerDy, c), k + (c >> 2))) - Rn(g.level)).v;
    if (v[c] > 0.0) index |= 1 << c;
  }
  return index;
}

/// Triangles of cube (i, j, k) (0 when it is not marched).
CUSK_HD int mc_cube(const McGrid& g, std::int64_t i, std::int64_t j, std::int64_t k, double v[8], unsigned char* tri) {
  if (!mc_active(g, i, j, k)) return 0;
  const int index = mc_load(g, i, j, k, v);
  return mc_cube_triangles(v, index, g.lewiner, tri);
}

/// Owner lattice point offset and slot of a cube's local vertex (edge 0-11, centre 12).
CUSK_HD void mc_local_owner(int e, int& di, int& dj, int& dk, int& slot) {
  if (e == 12) {
    di = dj = dk = 0, slot = 3;
    return;
  }
  const int a = mc_nib(kEdgeA, e), b = mc_nib(kEdgeB, e);
  di = mc_nib(kCornerDx, a) & mc_nib(kCornerDx, b);
  dj = mc_nib(kCornerDy, a) & mc_nib(kCornerDy, b);
  dk = (a >> 2) & (b >> 2);
  slot = e >= 8 ? 2 : (mc_nib(kCornerDx, a) != mc_nib(kCornerDx, b) ? 0 : 1);
}

CUSK_HD std::int64_t mc_key(const McGrid& g, std::int64_t i, std::int64_t j, std::int64_t k, int slot) {
  return ((k * g.py + j) * g.px + i) * 4 + slot;
}

/// Bits 0-3: which of the point's vertices exist (crossed edge of some marched cube; the centre of
/// its cube when the triangulation uses it). `ntri`: the triangles of the point's cube.
CUSK_HD int mc_point(const McGrid& g, std::int64_t i, std::int64_t j, std::int64_t k, int& ntri) {
  const bool here = mc_at(g, i, j, k) > g.level;
  int bits = 0;
  if (i + 1 < g.px && (mc_at(g, i + 1, j, k) > g.level) != here &&
      (mc_active(g, i, j - 1, k - 1) || mc_active(g, i, j, k - 1) || mc_active(g, i, j - 1, k) || mc_active(g, i, j, k)))
    bits |= 1;
  if (j + 1 < g.py && (mc_at(g, i, j + 1, k) > g.level) != here &&
      (mc_active(g, i - 1, j, k - 1) || mc_active(g, i, j, k - 1) || mc_active(g, i - 1, j, k) || mc_active(g, i, j, k)))
    bits |= 2;
  if (k + 1 < g.pz && (mc_at(g, i, j, k + 1) > g.level) != here &&
      (mc_active(g, i - 1, j - 1, k) || mc_active(g, i, j - 1, k) || mc_active(g, i - 1, j, k) || mc_active(g, i, j, k)))
    bits |= 4;
  double v[8];
  unsigned char tri[36];
  ntri = mc_cube(g, i, j, k, v, tri);
  for (int t = 0; t < 3 * ntri; ++t)
    if (tri[t] == 12) bits |= 8;
  return bits;
}

/// Lewiner's per-corner "gradients" (rows in Lewiner numbering, as scikit-image computes them).
CUSK_HD void mc_gradients(const double vv[8], double vg[24]) {
  const Rn v0 = vv[0], v1 = vv[1], v2 = vv[2], v3 = vv[3], v4 = vv[4], v5 = vv[5], v6 = vv[6], v7 = vv[7];
  const Rn g[24] = {v0 - v1, v0 - v3, v0 - v4, v0 - v1, v1 - v2, v1 - v5, v3 - v2, v1 - v2,
                    v2 - v6, v3 - v2, v0 - v3, v3 - v7, v4 - v5, v4 - v7, v0 - v4, v4 - v5,
                    v5 - v6, v1 - v5, v7 - v6, v5 - v6, v2 - v6, v7 - v6, v4 - v7, v3 - v7};
  for (int i = 0; i < 24; ++i) vg[i] = g[i].v;
}

/// max(0, corners) - min(0, corners): scikit-image's per-cube "value".
CUSK_HD double mc_cube_value(const double v[8]) {
  double lo = 0.0, hi = 0.0;
  for (int c = 0; c < 8; ++c) {
    if (v[c] > hi) hi = v[c];
    if (v[c] < lo) lo = v[c];
  }
  return (Rn(hi) - Rn(lo)).v;
}

/// x rounded to float32, as a double. GCC 12's SLP vectorizer (-O2 and up) drops a float round
/// trip between doubles, which changes results; the volatile store keeps it on the host.
CUSK_HD double mc_round_f32(double x) {
#if defined(__CUDA_ARCH__)
  return static_cast<double>(__double2float_rn(x));
#else
  volatile float f = static_cast<float>(x);
  return static_cast<double>(f);
#endif
}

CUSK_HD double mc_weight(double x) { return (Rn(1.0) / (Rn(kMcEps) + Rn(x < 0 ? -x : x))).v; }

struct McVertex {
  float pos[3];     // (z, y, x) times spacing
  float normal[3];  // (z, y, x), unit length (or 0)
  float value;
};

/// Position, normal and value of vertex `slot` of lattice point (i, j, k), accumulated over the
/// marched cubes that use it in raster order, exactly as scikit-image accumulates them (float32
/// normal sums, one gradient pair per referencing triangle; gradients as its port computes them).
CUSK_HD McVertex mc_vertex(const McGrid& g, std::int64_t i, std::int64_t j, std::int64_t k, int slot,
                           const double spacing[3]) {
  double px = 0, py = 0, pz = 0;  // x, y, z position in voxels
  float n[3] = {0.f, 0.f, 0.f};
  float value = 0.f;
  const double stp = static_cast<double>(g.st);
  // the (up to 4) cubes sharing the vertex, in raster order, with the vertex's local id in each
  std::int64_t ci[4], cj[4], ck[4];
  int le[4], nc = 0;
  auto add = [&](std::int64_t a, std::int64_t b, std::int64_t c, int e) { ci[nc] = a, cj[nc] = b, ck[nc] = c, le[nc] = e, ++nc; };
  if (slot == 0) add(i, j - 1, k - 1, 6), add(i, j, k - 1, 4), add(i, j - 1, k, 2), add(i, j, k, 0);
  else if (slot == 1) add(i - 1, j, k - 1, 5), add(i, j, k - 1, 7), add(i - 1, j, k, 1), add(i, j, k, 3);
  else if (slot == 2) add(i - 1, j - 1, k, 10), add(i, j - 1, k, 11), add(i - 1, j, k, 9), add(i, j, k, 8);
  else add(i, j, k, 12);
  bool placed = false;
  for (int q = 0; q < nc; ++q) {
    double v[8];
    unsigned char tri[36];
    const int nt = mc_cube(g, ci[q], cj[q], ck[q], v, tri);
    int refs = 0;
    for (int t = 0; t < 3 * nt; ++t) refs += tri[t] == le[q] ? 1 : 0;
    if (refs == 0) continue;
    const double cube_value = mc_cube_value(v);
    if (cube_value > static_cast<double>(value)) value = static_cast<float>(cube_value);
    double vg[24];
    mc_gradients(v, vg);
    const double x0 = static_cast<double>(ci[q] * g.st), y0 = static_cast<double>(cj[q] * g.st),
                 z0 = static_cast<double>(ck[q] * g.st);
    if (le[q] == 12) {
      double w[8];
      for (int c = 0; c < 8; ++c) w[c] = mc_weight(v[c]);
      const Rn fx = Rn(w[1]) + Rn(w[2]) + Rn(w[5]) + Rn(w[6]);
      const Rn fy = Rn(w[2]) + Rn(w[3]) + Rn(w[6]) + Rn(w[7]);
      const Rn fz = Rn(w[4]) + Rn(w[5]) + Rn(w[6]) + Rn(w[7]);
      Rn ff = w[0];
      for (int c = 1; c < 8; ++c) ff = ff + Rn(w[c]);
      px = (Rn(x0) + Rn(stp) * fx / ff).v;
      py = (Rn(y0) + Rn(stp) * fy / ff).v;
      pz = (Rn(z0) + Rn(stp) * fz / ff).v;
      placed = true;
      float gc[3];
      for (int ax = 0; ax < 3; ++ax) {
        Rn s = Rn(w[0]) * Rn(vg[ax]);
        for (int c = 1; c < 8; ++c) s = s + Rn(w[c]) * Rn(vg[3 * c + ax]);
        gc[ax] = static_cast<float>(s.v);
      }
      for (int r = 0; r < refs; ++r)
        for (int ax = 0; ax < 3; ++ax) n[ax] = cuskimage::detail::add_rn(n[ax], gc[ax]);
      continue;
    }
    const int ca = mc_nib(kEdgeA, le[q]), cb = mc_nib(kEdgeB, le[q]);
    const int ba = mc_nib(kBitIndex, ca), bb = mc_nib(kBitIndex, cb);
    const double t1 = mc_weight(v[ca]), t2 = mc_weight(v[cb]);
    if (!placed) {
      const Rn ff = Rn(t1) + Rn(t2);
      const Rn fx = Rn(mc_nib(kCornerDx, ca) ? t1 : 0.0) + Rn(mc_nib(kCornerDx, cb) ? t2 : 0.0);
      const Rn fy = Rn(mc_nib(kCornerDy, ca) ? t1 : 0.0) + Rn(mc_nib(kCornerDy, cb) ? t2 : 0.0);
      const Rn fz = Rn((ca >> 2) ? t1 : 0.0) + Rn((cb >> 2) ? t2 : 0.0);
      px = (Rn(x0) + Rn(stp) * fx / ff).v;
      py = (Rn(y0) + Rn(stp) * fy / ff).v;
      pz = (Rn(z0) + Rn(stp) * fz / ff).v;
      placed = true;
    }
    // scikit-image passes the weights as float and indexes its gradient rows by bit index
    const double s1 = mc_round_f32(t1), s2 = mc_round_f32(t2);
    float g1[3], g2[3];
    for (int ax = 0; ax < 3; ++ax) {
      g1[ax] = static_cast<float>((Rn(vg[3 * ba + ax]) * Rn(s1)).v);
      g2[ax] = static_cast<float>((Rn(vg[3 * bb + ax]) * Rn(s2)).v);
    }
    for (int r = 0; r < refs; ++r) {
      for (int ax = 0; ax < 3; ++ax) n[ax] = cuskimage::detail::add_rn(n[ax], g1[ax]);
      for (int ax = 0; ax < 3; ++ax) n[ax] = cuskimage::detail::add_rn(n[ax], g2[ax]);
    }
  }
  McVertex out{};
  // the marcher's float32 vertex, flipped to (z, y, x), then scaled in double and rounded
  out.pos[0] = static_cast<float>((Rn(mc_round_f32(pz)) * Rn(spacing[0])).v);
  out.pos[1] = static_cast<float>((Rn(mc_round_f32(py)) * Rn(spacing[1])).v);
  out.pos[2] = static_cast<float>((Rn(mc_round_f32(px)) * Rn(spacing[2])).v);
  Rn len = 0.0;
  for (int ax = 0; ax < 3; ++ax) len = len + Rn(static_cast<double>(n[ax])) * Rn(static_cast<double>(n[ax]));
  double inv = len.v;
  if (inv > 0.0) inv = (Rn(1.0) / Rn(cuskimage::detail::sqrt_rn(inv))).v;
  for (int ax = 0; ax < 3; ++ax) out.normal[2 - ax] = static_cast<float>((Rn(static_cast<double>(n[ax])) * Rn(inv)).v);
  out.value = value;
  return out;
}

/// Lattice geometry for a volume of shape (nz, ny, nx) and step `st`.
inline McGrid mc_grid(std::int64_t nz, std::int64_t ny, std::int64_t nx, std::int64_t st) {
  McGrid g;
  g.nx = nx, g.ny = ny, g.nz = nz, g.st = st;
  g.cx = (nx - 1) / st, g.cy = (ny - 1) / st, g.cz = (nz - 1) / st;
  g.px = g.cx + 1, g.py = g.cy + 1, g.pz = g.cz + 1;
  return g;
}

/// The mesh of the contiguous float32 device volume described by `g` (pointers on the device):
/// vertices in key order, faces in cube raster order. `descent` reverses every face. Arrays are
/// allocated on `device` with `stream` (the caller's Stream object, not a wrapped handle: the
/// outputs are freed on it later, so they must keep an owned stream alive); the call synchronises
/// to size them.
struct McArrays {
  Array verts, faces, normals, values;
};
McArrays cuda_marching_cubes(const McGrid& g, const double spacing[3], bool descent, Device device,
                             const Stream& stream);
/// allow_degenerate=False on the device: the rule of the CPU's remove_degenerate (marching_cubes.cpp)
/// with a lock-free union-find (roots are set minima, so the result does not depend on the order).
McArrays cuda_remove_degenerate(const McArrays& mesh, Device device, const Stream& stream);

}  // namespace cuskimage::measure::detail
