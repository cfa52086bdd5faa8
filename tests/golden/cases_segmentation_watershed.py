"""Golden outputs of skimage.segmentation.watershed for tests/segmentation/test_watershed.cpp
(loaded as "segmentation_watershed/<name>.npy").

Inputs in_<key>.npy (image), mk_<key>.npy (markers), mask_<key>.npy (bool mask):
  blobs  −EDT of binary blobs, 64x64 float64; markers: peak_local_max within the blobs; mask = blobs
  int    uint8 values 0..3 (plateau-heavy), 48x48; 12 random int32 markers (one negative label)
  bool   bool image 40x40; uint16 markers
  v3     int16 values 0..4, 12x13x14; 6 int64 markers
  smooth float32 smoothed noise 40x50 (for markers=None and markers=count)
Outputs out_<key>_<variant>.npy, variants: c1/c2 (connectivity), wl (watershed_line), cp<k>
(compactness), m (mask), fp5 (5x5 disk footprint), fpo (3x3 ones footprint at offset (2, 2): up-left neighbours only),
none (markers=None), n<k> (markers=k).
"""
import numpy as np
from scipy import ndimage as ndi
from skimage import data, feature
from skimage.segmentation import watershed


def generate(g):
    rng = g.rng(2121)
    blobs = data.binary_blobs(64, blob_size_fraction=0.15, volume_fraction=0.4, rng=7)
    dist = ndi.distance_transform_edt(blobs)
    peaks = feature.peak_local_max(dist, min_distance=3, labels=ndi.label(blobs)[0])
    pk = np.zeros(blobs.shape, bool)
    pk[tuple(peaks.T)] = True
    mk = ndi.label(pk)[0].astype(np.int32)
    img = -dist
    g.save("in_blobs", img)
    g.save("mk_blobs", mk)
    g.save("mask_blobs", blobs)
    g.save("out_blobs_m", watershed(img, mk, mask=blobs))
    g.save("out_blobs_m_c2", watershed(img, mk, mask=blobs, connectivity=2))
    g.save("out_blobs_m_wl", watershed(img, mk, mask=blobs, watershed_line=True))
    g.save("out_blobs_m_cp1", watershed(img, mk, mask=blobs, compactness=0.5))
    g.save("out_blobs_c1", watershed(img, mk))

    ii = rng.integers(0, 4, (48, 48)).astype(np.uint8)
    mi = np.zeros(ii.shape, np.int32)
    pos = rng.choice(ii.size, 12, replace=False)
    mi.flat[pos] = np.arange(1, 13)
    mi.flat[pos[0]] = -5
    maski = rng.random(ii.shape) > 0.15
    g.save("in_int", ii)
    g.save("mk_int", mi)
    g.save("mask_int", maski)
    g.save("out_int_c1", watershed(ii, mi))
    g.save("out_int_c2", watershed(ii, mi, connectivity=2))
    g.save("out_int_wl", watershed(ii, mi, watershed_line=True))
    g.save("out_int_c2_wl", watershed(ii, mi, connectivity=2, watershed_line=True))
    g.save("out_int_cp1", watershed(ii, mi, compactness=0.1))
    g.save("out_int_cp2", watershed(ii, mi, compactness=3.0, connectivity=2))
    g.save("out_int_m", watershed(ii, mi, mask=maski))
    g.save("out_int_m_wl_cp", watershed(ii, mi, mask=maski, watershed_line=True, compactness=0.2))
    disk5 = np.array([[0, 0, 1, 0, 0], [0, 1, 1, 1, 0], [1, 1, 1, 1, 1], [0, 1, 1, 1, 0], [0, 0, 1, 0, 0]], bool)
    g.save("fp5", disk5)
    g.save("out_int_fp5", watershed(ii, mi, connectivity=disk5))
    ones3 = np.ones((3, 3), bool)
    g.save("out_int_fpo", watershed(ii, mi, connectivity=ones3, offset=(2, 2)))

    ib = rng.random((40, 40)) > 0.5
    mb = np.zeros(ib.shape, np.uint16)
    mb[5, 5], mb[30, 8], mb[20, 33], mb[36, 36] = 1, 2, 3, 700
    g.save("in_bool", ib)
    g.save("mk_bool", mb)
    g.save("out_bool_c1", watershed(ib, mb))
    g.save("out_bool_wl", watershed(ib, mb, watershed_line=True))

    v = rng.integers(0, 5, (12, 13, 14)).astype(np.int16)
    mv = np.zeros(v.shape, np.int64)
    mv.flat[rng.choice(v.size, 6, replace=False)] = np.arange(1, 7)
    g.save("in_v3", v)
    g.save("mk_v3", mv)
    g.save("out_v3_c1", watershed(v, mv))
    g.save("out_v3_c3", watershed(v, mv, connectivity=3))
    g.save("out_v3_wl", watershed(v, mv, watershed_line=True))
    g.save("out_v3_cp1", watershed(v, mv, compactness=0.3, connectivity=2))

    sm = ndi.gaussian_filter(rng.random((40, 50)), 2.5).astype(np.float32)
    masks = rng.random(sm.shape) > 0.3
    g.save("in_smooth", sm)
    g.save("mask_smooth", masks)
    g.save("out_smooth_none", watershed(sm))
    g.save("out_smooth_none_c2", watershed(sm, connectivity=2))
    g.save("out_smooth_n9", watershed(sm, 9))
    g.save("out_smooth_n9_m", watershed(sm, 9, mask=masks))
