"""Golden outputs of skimage.measure.marching_cubes for tests/measure/test_marching_cubes.cpp
(loaded as "measure_mcubes/<name>.npy").

Each case writes <case>_in (the volume), <case>_mask (when it has one) and, from scikit-image,
<case>_verts, <case>_faces, <case>_normals, <case>_values and <case>_area (mesh_surface_area, a
one-element float64 array). The keyword arguments of every case are listed in CASES and mirrored by
the C++ test's case table.
"""
import numpy as np
import scipy.ndimage as ndi
from skimage import draw, measure


def sphere(n, r, center=None):
    c = (n - 1) / 2 if center is None else center
    z, y, x = np.mgrid[:n, :n, :n].astype(np.float64)
    return np.sqrt((z - c) ** 2 + (y - c) ** 2 + (x - c) ** 2) - r


def generate(g):
    rng = g.rng(6)
    smooth = ndi.gaussian_filter(rng.random((18, 20, 22)), 2.0)
    noisy = rng.random((11, 12, 13)).astype(np.float32)
    ints = rng.integers(0, 4, (9, 10, 11)).astype(np.uint8)
    ball = sphere(20, 6.3) < 0  # bool: +-0.5 corners, exact ties in the face tests
    mask = rng.random((18, 20, 22)) > 0.2
    volumes = {
        "sphere": -sphere(24, 7.4),
        "ellipsoid": draw.ellipsoid(6, 9, 12, spacing=(1.0, 1.0, 1.0), levelset=True).astype(np.float32),
        "smooth": smooth,
        "noisy": noisy,
        "ints": ints,
        "ball": ball,
    }
    # (name, volume, kwargs)
    cases = [
        ("sphere_lew", "sphere", dict(level=0.0)),
        ("sphere_lor", "sphere", dict(level=0.0, method="lorensen")),
        ("sphere_asc", "sphere", dict(level=0.0, gradient_direction="ascent")),
        ("sphere_step2", "sphere", dict(level=0.0, step_size=2)),
        ("sphere_step3_lor", "sphere", dict(level=0.0, step_size=3, method="lorensen")),
        ("ellipsoid_aniso", "ellipsoid", dict(level=0.0, spacing=(1.5, 0.5, 2.0))),
        ("smooth_lew", "smooth", dict()),
        ("smooth_lor", "smooth", dict(method="lorensen")),
        ("smooth_mask", "smooth", dict(mask=mask)),
        ("noisy_lew", "noisy", dict(level=0.5)),
        ("noisy_lor", "noisy", dict(level=0.5, method="lorensen")),
        ("noisy_asc_lor", "noisy", dict(level=0.4, method="lorensen", gradient_direction="ascent")),
        ("ints_lew", "ints", dict(level=1.5)),
        ("ints_lor", "ints", dict(level=1.5, method="lorensen")),
        ("ints_degenerate", "ints", dict(level=1.0, method="lorensen", allow_degenerate=False)),
        ("ball_lew", "ball", dict()),
        ("ball_lor", "ball", dict(method="lorensen")),
    ]
    for name, vol in volumes.items():
        g.save(f"{name}_in", vol)
    g.save("smooth_mask_mask", mask)
    for name, vol, kw in cases:
        verts, faces, normals, values = measure.marching_cubes(volumes[vol], **kw)
        g.save(f"{name}_verts", verts.astype(np.float32))
        g.save(f"{name}_faces", faces.astype(np.int64))
        g.save(f"{name}_normals", normals)
        g.save(f"{name}_values", values)
        g.save(f"{name}_area", np.array([measure.mesh_surface_area(verts, faces)], dtype=np.float64))
