"""Golden outputs of skimage.transform._geometric for tests/transform/test_geometric*.cpp (loaded as
"transform_geometric/<name>.npy").

Point sets: src2/dst2 (30 2-D points, dst a noisy projective image of src), src3/dst3 (20 3-D
points), w (weights). Outputs, params as float64:
  <cls>_<key>.npy        from_estimate(src, dst).params   (cls: proj, aff, eucl, sim; key 2 or 3)
  <cls>_2w.npy           the same with weights w (proj, aff)
  <cls>_<key>_map.npy    tf(src) ; <cls>_<key>_res.npy tf.residuals(src, dst)
  poly<o>.npy            PolynomialTransform.from_estimate(src2, dst2, order=o).params, o = 1..3;
  poly2w.npy, poly2_map.npy
  fund.npy, ess.npy      Fundamental / Essential params (up to sign), fund_res.npy residuals
  tps_map.npy            ThinPlateSplineTransform on src2[:10] -> dst2[:10], applied to q
  pw_simplices.npy       Delaunay(src2).simplices; pw_find.npy its find_simplex(pw_find_q); pw_map.npy PiecewiseAffine(src2, dst2)(q)
  grid_simplices.npy     Delaunay of a 5x4 regular grid (co-circular points); grid_map.npy the
                         PiecewiseAffineTransform of that grid (x10) onto grid_dst, applied to grid_q
  aff_params.npy         AffineTransform(scale=(1.5, 0.7), rotation=0.4, shear=(0.3, -0.2),
                         translation=(3, -4)).params; aff_props.npy scale, rotation, shear
  sim3_params.npy        SimilarityTransform(scale=1.7, rotation=(0.3, -0.5, 1.1), translation=(1,2,3))
  eucl3_params.npy       EuclideanTransform(rotation=(0.3, -0.5, 1.1), translation=(1, 2, 3))
  q.npy                  query points inside and outside the convex hull of src2
"""
import warnings

import numpy as np
from scipy import spatial
from skimage import transform as T


def generate(g):
    warnings.simplefilter("ignore")
    rng = g.rng(2020)
    src2 = rng.uniform(0, 100, (30, 2))
    H = np.array([[1.1, 0.2, 5.0], [-0.1, 0.9, -3.0], [1e-3, -5e-4, 1.0]])
    dst2 = T.ProjectiveTransform(H)(src2) + rng.normal(0, 0.5, src2.shape)
    src3 = rng.uniform(-10, 10, (20, 3))
    A3 = np.eye(4)
    A3[:3, :3] = rng.uniform(-1, 1, (3, 3)) + 2 * np.eye(3)
    A3[:3, 3] = (1, -2, 3)
    dst3 = T.AffineTransform(A3)(src3) + rng.normal(0, 0.05, src3.shape)
    w = rng.uniform(0.1, 2.0, 30)
    q = np.vstack([rng.uniform(-10, 110, (40, 2)), src2[:5]])
    for name, a in [("src2", src2), ("dst2", dst2), ("src3", src3), ("dst3", dst3), ("w", w), ("q", q)]:
        g.save(name, a)
    classes = {"proj": T.ProjectiveTransform, "aff": T.AffineTransform, "eucl": T.EuclideanTransform,
               "sim": T.SimilarityTransform}
    for cname, cls in classes.items():
        for key, (s, d) in {"2": (src2, dst2), "3": (src3, dst3)}.items():
            tf = cls.from_estimate(s, d)
            g.save(f"{cname}_{key}", tf.params)
            g.save(f"{cname}_{key}_map", tf(s))
            g.save(f"{cname}_{key}_res", tf.residuals(s, d))
        if cname in ("proj", "aff"):
            g.save(f"{cname}_2w", cls.from_estimate(src2, dst2, weights=w).params)
    for o in (1, 2, 3):
        g.save(f"poly{o}", T.PolynomialTransform.from_estimate(src2, dst2, order=o).params)
    p2 = T.PolynomialTransform.from_estimate(src2, dst2, order=2, weights=w)
    g.save("poly2w", p2.params)
    g.save("poly2_map", T.PolynomialTransform.from_estimate(src2, dst2, order=2)(q))
    f = T.FundamentalMatrixTransform.from_estimate(src2, dst2)
    g.save("fund", f.params)
    g.save("fund_res", f.residuals(src2, dst2))
    g.save("ess", T.EssentialMatrixTransform.from_estimate(src2 / 100, dst2 / 100).params)
    tps = T.ThinPlateSplineTransform.from_estimate(src2[:10], dst2[:10])
    g.save("tps_map", tps(q))
    g.save("pw_simplices", spatial.Delaunay(src2).simplices.astype(np.int64))
    qf = rng.uniform(-5, 105, (2000, 2))
    g.save("pw_find_q", qf)
    g.save("pw_find", spatial.Delaunay(src2).find_simplex(qf).astype(np.int64))
    g.save("pw_inv_simplices", spatial.Delaunay(dst2).simplices.astype(np.int64))
    pw = T.PiecewiseAffineTransform.from_estimate(src2, dst2)
    g.save("pw_map", pw(q))
    g.save("pw_inv_map", pw.inverse(dst2[:5]))
    grid = np.stack(np.meshgrid(np.arange(5.0), np.arange(4.0)), -1).reshape(-1, 2)
    g.save("grid_simplices", spatial.Delaunay(grid).simplices.astype(np.int64))
    # A piecewise-affine warp of the grid (scaled by 10), queried on its vertices, edge midpoints,
    # cell centres (on the diagonals Qhull cut) and outside.
    gs = grid * 10
    gd = gs + np.c_[3 * np.sin(gs[:, 1] / 7), 2 * np.cos(gs[:, 0] / 9)]
    gq = np.vstack([gs, gs[:-1] + [5, 0], gs[:-1] + [0, 5], gs[:-1] + [5, 5], [[-1, 0], [41, 30], [20, -0.5]]])
    g.save("grid_dst", gd)
    g.save("grid_q", gq)
    g.save("grid_map", T.PiecewiseAffineTransform.from_estimate(gs, gd)(gq))
    a = T.AffineTransform(scale=(1.5, 0.7), rotation=0.4, shear=(0.3, -0.2), translation=(3, -4))
    g.save("aff_params", a.params)
    g.save("aff_props", np.array([*a.scale, a.rotation, a.shear]))
    g.save("sim3_params", T.SimilarityTransform(scale=1.7, rotation=(0.3, -0.5, 1.1), translation=(1, 2, 3)).params)
    g.save("eucl3_params", T.EuclideanTransform(rotation=(0.3, -0.5, 1.1), translation=(1, 2, 3)).params)
    g.save("sim2_params", T.SimilarityTransform(scale=0.8, rotation=-0.7, translation=(2, 5)).params)
