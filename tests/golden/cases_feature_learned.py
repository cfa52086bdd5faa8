"""Golden outputs of skimage.feature.fisher_vector, learn_gmm and Cascade.detect_multi_scale for
tests/feature/test_fisher_vector.cpp and test_cascade.cpp (loaded as "feature_learned/<name>.npy").

Fisher vectors: GMMs fitted by scikit-learn (gmm<g>_means/_covariances/_weights), descriptors
fv_x<c>.npy and outputs fv_<c>_<variant>.npy (variant 0: plain, 1: improved alpha 0.5, 2: improved
alpha 0.3) for scikit-image's fisher_vector given exactly those parameters.
learn_gmm: well-separated clusters lg_x.npy and scikit-learn's fit (lg_means/_covariances/_weights,
modes sorted by their first mean coordinate), at the default tol and at tol 1e-10 (suffix _tight).
Cascade: a crop of astronaut (casc_img.npy, RGB uint8; casc_gray.npy, its uint8 gray) and, per
parameter set p, casc_p<p>.npy (scale_factor, step_ratio, min rows, min cols, max rows, max cols,
min_neighbor_number, intersection_score_threshold) and casc_out<p>_<rgb|gray>.npy ((n, 4) int64
r, c, width, height in scikit-image's order). The scikit-image wheel's _cascade is built without
OpenMP, so its scale loop and hence the grouping order are sequential.

scikit-image computes its float32 scale factors with np.power(..., dtype=float32), whose SIMD
implementation on AVX-512 CPUs is not correctly rounded (about a fifth of the results are one ulp
off): 1.2 ** log_1.2(60 / 24) comes out 2.4999998 there and 2.5 elsewhere, which changes the
window size 59 / 60 of the first scale of the face example. The goldens use the same method with
the power taken in float64 (math.pow) and rounded to float32, as the C++ does, so they do not
depend on the CPU that made them; casc_simd_out0_rgb.npy records scikit-image's own output on an
AVX-512 CPU for parameter set 0, for the record.
"""
import math
import numpy as np
from sklearn.mixture import GaussianMixture
from skimage import data
from skimage.feature import Cascade, fisher_vector, learn_gmm


def save_gmm(g, name, gmm):
    g.save(f"{name}_means", gmm.means_)
    g.save(f"{name}_covariances", gmm.covariances_)
    g.save(f"{name}_weights", gmm.weights_)


def fisher_cases(g, rng):
    train0 = rng.normal(size=(400, 6)) + np.repeat(rng.normal(scale=3, size=(4, 6)), 100, axis=0)
    gmm0 = GaussianMixture(n_components=4, covariance_type="diag", random_state=0).fit(train0)
    train1 = rng.uniform(size=(300, 16))
    gmm1 = GaussianMixture(n_components=8, covariance_type="diag", random_state=1).fit(train1)
    save_gmm(g, "gmm0", gmm0)
    save_gmm(g, "gmm1", gmm1)
    xs = [(0, train0[::7] + rng.normal(scale=0.3, size=train0[::7].shape)),
          (0, rng.normal(scale=6, size=(5, 6))),   # far from every mode: posteriors underflow
          (1, rng.uniform(size=(40, 16))),
          (1, rng.uniform(size=(1, 16)))]
    gmms = [gmm0, gmm1]
    for c, (gi, x) in enumerate(xs):
        g.save(f"fv_x{c}", x)
        g.save(f"fv_g{c}", np.array([gi], np.int64))
        g.save(f"fv_{c}_0", fisher_vector(x, gmms[gi]))
        g.save(f"fv_{c}_1", fisher_vector(x, gmms[gi], improved=True))
        g.save(f"fv_{c}_2", fisher_vector(x, gmms[gi], improved=True, alpha=0.3))
    g.save("fv_ncases", np.array([len(xs)], np.int64))


# scikit-image 0.26 reads gm_args["covariance_type"] unconditionally (KeyError without it): pass it.
def sorted_gmm(gmm):
    order = np.argsort(gmm.means_[:, 0])
    return gmm.means_[order], gmm.covariances_[order], gmm.weights_[order]


def gmm_cases(g, rng):
    centres = np.array([[0.0, 0.0, 0.0], [8.0, 1.0, -3.0], [-6.0, 7.0, 4.0]])
    scales = np.array([[1.0, 0.5, 2.0], [0.7, 1.5, 1.0], [1.2, 1.0, 0.4]])
    sizes = [250, 150, 200]
    x = np.vstack([c + s * rng.normal(size=(n, 3)) for c, s, n in zip(centres, scales, sizes)])
    x = x[rng.permutation(len(x))]
    g.save("lg_x", x)
    for suffix, args in [("", None), ("_tight", {"tol": 1e-10, "max_iter": 1000})]:
        gmm = learn_gmm(x, n_modes=3, gm_args=dict(covariance_type="diag", random_state=0, **(args or {})))
        m, cv, w = sorted_gmm(gmm)
        g.save(f"lg_means{suffix}", m)
        g.save(f"lg_covariances{suffix}", cv)
        g.save(f"lg_weights{suffix}", w)


CASCADE_PARAMS = [
    (1.2, 1.0, 60, 60, 123, 123, 4, 0.5),
    (1.1, 1.5, 24, 24, 160, 160, 1, 0.3),
    (1.25, 1.0, 24, 30, 150, 140, 0, 0.7),
    (1.05, 2.0, 30, 30, 100, 100, 2, 0.5),
    (1.1, 1.0, 24, 24, 160, 160, 0, 2.0),  # no grouping: every raw window in scan order
]


class RoundedCascade(Cascade):
    """scikit-image's Cascade with correctly rounded float32 scale factors (see the module doc)."""

    def _get_valid_scale_factors(self, min_size, max_size, scale_step):
        simd = super()._get_valid_scale_factors(min_size, max_size, scale_step)
        current = np.array((self.window_height, self.window_width))
        mn_size = np.array(min_size, dtype=np.float32)
        mx_size = np.array(max_size, dtype=np.float32)
        mn = max(math.log(mn_size[0] / current[0], scale_step), math.log(mn_size[1] / current[1], scale_step), 0)
        mx = min(math.log(mx_size[0] / current[0], scale_step), math.log(mx_size[1] / current[1], scale_step))
        powers = np.arange(mn, mx).astype(np.float32)
        base = float(np.float32(scale_step))
        out = np.array([math.pow(base, float(p)) for p in powers], np.float64).astype(np.float32)
        assert out.shape == simd.shape and np.all(np.abs(out - simd) <= 2 * np.spacing(out))
        return out


def cascade_cases(g):
    g.save("casc_simd_out0_rgb", np.array([[d["r"], d["c"], d["width"], d["height"]] for d in Cascade(
        data.lbp_frontal_face_cascade_filename()).detect_multi_scale(
        img=data.astronaut()[30:190, 140:300], scale_factor=1.2, step_ratio=1, min_size=(60, 60),
        max_size=(123, 123))], np.int64).reshape(-1, 4))
    casc = RoundedCascade(data.lbp_frontal_face_cascade_filename())
    rgb = data.astronaut()[30:190, 140:300]
    gray = (rgb.astype(np.float64) @ [0.2125, 0.7154, 0.0721]).astype(np.uint8)
    g.save("casc_img", rgb)
    g.save("casc_gray", gray)
    for p, (sf, sr, mnr, mnc, mxr, mxc, nb, thr) in enumerate(CASCADE_PARAMS):
        g.save(f"casc_p{p}", np.array([sf, sr, mnr, mnc, mxr, mxc, nb, thr], np.float64))
        for name, img in [("rgb", rgb), ("gray", gray)]:
            dets = casc.detect_multi_scale(img=img, scale_factor=sf, step_ratio=sr, min_size=(mnr, mnc),
                                           max_size=(mxr, mxc), min_neighbor_number=nb,
                                           intersection_score_threshold=thr)
            out = np.array([[d["r"], d["c"], d["width"], d["height"]] for d in dets], np.int64).reshape(-1, 4)
            g.save(f"casc_out{p}_{name}", out)
    g.save("casc_nparams", np.array([len(CASCADE_PARAMS)], np.int64))


def generate(g):
    rng = g.rng(2205)
    fisher_cases(g, rng)
    gmm_cases(g, rng)
    cascade_cases(g)
