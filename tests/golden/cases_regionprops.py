"""Golden outputs of skimage.measure.regionprops_table and the moments functions for
tests/measure/test_regionprops.cpp (loaded as "regionprops/<name>.npy").

Each table case <c> saves <c>_labels, <c>_intensity (when used), <c>_table (float64, one row per
region, one column per table column) and <c>_names (the column names as UTF-8 bytes, one per line).
"""
import numpy as np
import scipy.ndimage as ndi
from skimage import measure, morphology

PROPS_2D = [
    "label", "area", "area_bbox", "area_convex", "area_filled", "axis_major_length", "axis_minor_length", "bbox",
    "centroid", "centroid_local", "eccentricity", "equivalent_diameter_area", "euler_number", "extent",
    "feret_diameter_max", "inertia_tensor", "inertia_tensor_eigvals", "moments", "moments_central", "moments_hu",
    "moments_normalized", "num_pixels", "orientation", "perimeter", "perimeter_crofton", "solidity",
]
PROPS_INT = [
    "centroid_weighted", "centroid_weighted_local", "intensity_max", "intensity_mean", "intensity_median",
    "intensity_min", "intensity_std", "moments_weighted", "moments_weighted_central", "moments_weighted_normalized",
]
ONLY_2D = {"eccentricity", "moments_hu", "orientation", "perimeter", "perimeter_crofton", "moments_weighted_hu"}
ISOTROPIC = {"perimeter", "perimeter_crofton"}
UNIT = {"moments_hu", "moments_weighted_hu"}


def blobs(rng, shape, frac=0.35, sigma=1.5):
    noise = ndi.gaussian_filter(rng.random(shape), sigma)
    return noise > np.quantile(noise, 1 - frac)


def props_for(ndim, intensity, spacing):
    props = list(PROPS_2D) + (PROPS_INT + ["moments_weighted_hu"] if intensity else [])
    if ndim == 3:
        props = [p for p in props if p not in ONLY_2D]
    if spacing is not None and len(set(spacing)) > 1:
        props = [p for p in props if p not in ISOTROPIC]
    if spacing is not None and any(s != 1 for s in spacing):
        props = [p for p in props if p not in UNIT]
    return props


def save_table(g, case, labels, intensity=None, spacing=None):
    props = props_for(labels.ndim, intensity is not None, spacing)
    t = measure.regionprops_table(labels, intensity, properties=props, spacing=spacing)
    names = list(t.keys())
    table = np.stack([np.asarray(t[k], dtype=np.float64) for k in names], axis=1)
    g.save(f"{case}_labels", labels)
    if intensity is not None:
        g.save(f"{case}_intensity", intensity)
    g.save(f"{case}_table", table)
    g.save(f"{case}_names", np.frombuffer(("\n".join(names) + "\n").encode(), dtype=np.uint8))


def generate(g):
    rng = g.rng(2026)
    # 2-D blobs, float64 intensity
    lab2 = measure.label(blobs(rng, (48, 56)), connectivity=2)
    save_table(g, "blobs2", lab2.astype(np.int32), rng.random((48, 56)))
    # holes and a ring (area_filled, euler_number), uint8 intensity, isotropic spacing
    ring = np.zeros((40, 44), np.int64)
    ring[5:25, 5:30] = 3
    ring[10:15, 10:20] = 0
    ring[12, 14] = 3
    ring[28:38, 2:12] = 7
    ring[30:36, 30:41] = 9
    ring[33, 33:38] = 0
    save_table(g, "ring2", ring, rng.integers(0, 256, ring.shape).astype(np.uint8), spacing=(0.5, 0.5))
    # sparse labels (huge, negative ignored), anisotropic spacing, uint16 intensity
    sp = lab2.astype(np.int64) * 1003
    sp[lab2 == 1] = -5
    sp[lab2 == 2] = 3_000_000
    save_table(g, "sparse2", sp, rng.integers(0, 60000, sp.shape).astype(np.uint16), spacing=(2.0, 0.5))
    # 3 channels (uint8)
    save_table(g, "multich2", lab2.astype(np.int32), rng.integers(0, 256, (48, 56, 3)).astype(np.uint8))
    # 3-D blobs (regions of >= 8 voxels so every 3-D hull is solid), float32 intensity
    b3 = morphology.remove_small_objects(blobs(rng, (14, 15, 16), sigma=1.2), max_size=7)
    lab3 = measure.label(b3, connectivity=3)
    save_table(g, "blobs3", lab3.astype(np.int32), rng.random((14, 15, 16)).astype(np.float32))
    save_table(g, "spacing3", lab3.astype(np.int64), rng.random((14, 15, 16)), spacing=(1.0, 2.0, 0.5))
    # no intensity image
    save_table(g, "plain2", lab2.astype(np.uint16))
    median_cases(g)

    # whole-image moments
    img2 = rng.random((13, 17))
    img3 = rng.random((6, 7, 8))
    g.save("img2", img2)
    g.save("img3", img3)
    g.save("img2_f32", img2.astype(np.float32))
    g.save("moments_img2_o3", measure.moments(img2))
    g.save("moments_img2_o2_sp", measure.moments(img2, order=2, spacing=(0.5, 2.0)))
    g.save("moments_img3_o3", measure.moments(img3))
    g.save("moments_img2_f32", measure.moments(img2.astype(np.float32)))
    g.save("central_img2_o3", measure.moments_central(img2))
    g.save("central_img2_center", measure.moments_central(img2, center=(4.0, 5.5), order=4))
    g.save("central_img3_sp", measure.moments_central(img3, spacing=(1.0, 0.5, 2.0)))
    mu = measure.moments_central(img2)
    g.save("normalized_img2", measure.moments_normalized(mu))
    g.save("normalized_img2_o2_sp", measure.moments_normalized(mu, order=2, spacing=(0.5, 2.0)))
    g.save("hu_img2", measure.moments_hu(measure.moments_normalized(mu)))
    g.save("centroid_img2", measure.centroid(img2))
    g.save("centroid_img3_sp", measure.centroid(img3, spacing=(1.0, 0.5, 2.0)))
    g.save("inertia_img2", measure.inertia_tensor(img2))
    g.save("inertia_img3", measure.inertia_tensor(img3))
    g.save("eigvals_img2", np.asarray(measure.inertia_tensor_eigvals(img2)))
    g.save("eigvals_img3", np.asarray(measure.inertia_tensor_eigvals(img3)))
    coords = rng.uniform(-3, 9, (25, 3))
    g.save("coords", coords)
    g.save("moments_coords", measure.moments_coords(coords))
    g.save("moments_coords_central", measure.moments_coords_central(coords, order=2))
    g.save("moments_coords_central_c", measure.moments_coords_central(coords, center=(1.0, 2.0, 3.0), order=3))


def median_cases(g):
    """intensity_median is numpy.median: for an even pixel count the mean of the two middle values
    computed in the intensity's dtype (float32: the float32 sum halved), else the middle value.
    Scattered 3-D labels with even and odd counts (1 to ~50 voxels), label 9 on two voxels holding
    1 and the next float32 (their float32 mean rounds to 1, the exact mean does not)."""
    rng = g.rng(77)
    lab = rng.integers(0, 9, (6, 7, 9)).astype(np.int32)
    lab[lab == 8] = 0
    lab[3, 2, 5] = 8  # one voxel
    lab[0, 0, 0], lab[5, 6, 8] = 9, 9
    f32 = rng.random(lab.shape).astype(np.float32)
    f32[0, 0, 0], f32[5, 6, 8] = np.float32(1), np.nextafter(np.float32(1), np.float32(2))
    two = rng.random(lab.shape + (2,)).astype(np.float32)
    u8 = rng.integers(0, 256, lab.shape).astype(np.uint8)
    g.save("median3_labels", lab)
    for name, inten in (("f32", f32), ("f64", f32.astype(np.float64)), ("u8", u8), ("f32x2", two)):
        t = measure.regionprops_table(lab, inten, properties=["label", "area", "intensity_median"])
        g.save(f"median3_{name}_intensity", inten)
        g.save(f"median3_{name}_median", np.stack([np.asarray(t[k], np.float64) for k in t if k.startswith("intensity_median")], axis=1))
