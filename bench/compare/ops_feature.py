"""feature ops for compare.py.

# peak_local_max
peak_local_max on the distance transform of binary blobs (the test texture above its middle grey,
as bench/feature/bench_peak.cpp makes them), min_distance 7, with and without the blobs' labels.
Our benchmarks: bench/feature/bench_peak.cpp.

# blobs/texture
blob_log / blob_dog on the float32 test texture (max_sigma 10; blob_log 5 scales),
multiscale_basic_features on the uint8 texture (default sigmas), local_binary_pattern P=8 R=1 and
graycomatrix (distance 1, four angles, 256 levels) on the uint8 texture. cuCIM has blob_log,
blob_dog and multiscale_basic_features; LBP and the GLCM are scikit-image only.
Our benchmarks: bench/feature/bench_blob.cpp, bench/feature/bench_texture.cpp.
# corners/canny
structure_tensor (sigma 1), corner_harris, corner_shi_tomasi, canny (sigma 2), corner_fast,
corner_moravec and hessian_matrix_det (sigma 3) on the float32 test texture. Our benchmarks:
bench/feature/bench_corner.cpp.
# hog/daisy/haar/template
match_template on the float32 texture with a 64x64 template cut from it (plain and pad_input);
hog (defaults) on the float32 texture; haar_like_feature of every feature of a 24x24 window of the
integral image of a 256^2 texture; daisy (defaults) on the float32 texture.
Our benchmarks: bench/feature/bench_hog.cpp.
# keypoints
ORB (500 keypoints) and SIFT detect_and_extract, CENSURE detect (DoB), BRIEF of 500 keypoints and
match_descriptors of two 500 x 256 bit sets, on the uint8 test texture; scikit-image only (cuCIM
has none of them). Our benchmarks: bench/feature/bench_keypoints.cpp.
# learned features
Cascade.detect_multi_scale with scikit-image's LBP frontal-face cascade on the uint8 test texture,
scale_factor 1.2, step_ratio 1, windows 24 to 200 (cuCIM has no Cascade).
Our benchmarks: bench/feature/bench_learned.cpp (device sweep; BM_Cpu_* the host sweep).
"""
import math
from compare import Op, test_image


def _edt(xp, shape, dtype):
    import numpy as np
    import scipy.ndimage as ndi
    m = test_image(np, shape, "uint8") > 127
    d = ndi.distance_transform_edt(m)
    return xp.asarray(d) if xp is not np else d


def _edt_labels(xp, shape, dtype):
    import numpy as np
    import scipy.ndimage as ndi
    from skimage.measure import label
    m = test_image(np, shape, "uint8") > 127
    d = ndi.distance_transform_edt(m)
    lab = label(m).astype(np.int32)
    return (xp.asarray(d), xp.asarray(lab)) if xp is not np else (d, lab)


_SHAPES = ((1024, 1024), (4096, 4096))

OPS = [
    # peak_local_max
    Op("peak_local_max EDT, min_distance 7", "float64", r"PeakLocalMaxEdt/",
       cucim=lambda L, x: L.cucim.feature.peak_local_max(x, min_distance=7),
       skimage=lambda L, x: L.skimage.feature.peak_local_max(x, min_distance=7),
       shapes=_SHAPES, make_input=_edt),
    Op("peak_local_max EDT, min_distance 7, labels", "float64", r"PeakLocalMaxEdtLabels/",
       cucim=lambda L, x: L.cucim.feature.peak_local_max(x[0], min_distance=7, labels=x[1]),
       skimage=lambda L, x: L.skimage.feature.peak_local_max(x[0], min_distance=7, labels=x[1]),
       shapes=_SHAPES, make_input=_edt_labels),
    # --- blobs/texture ---
    Op("blob_log max_sigma 10, 5 scales", "float32", r"BlobLog/",
       cucim=lambda L, x: L.cucim.feature.blob_log(x, max_sigma=10, num_sigma=5),
       skimage=lambda L, x: L.skimage.feature.blob_log(x, max_sigma=10, num_sigma=5),
       shapes=((1024, 1024), (2048, 2048))),
    Op("blob_dog max_sigma 10", "float32", r"BlobDog/",
       cucim=lambda L, x: L.cucim.feature.blob_dog(x, max_sigma=10),
       skimage=lambda L, x: L.skimage.feature.blob_dog(x, max_sigma=10),
       shapes=((1024, 1024),)),
    Op("blob_doh (max_sigma 30, 10 scales)", "float32", r"BlobDoh/",
       cucim=lambda L, x: L.cucim.feature.blob_doh(x),
       skimage=lambda L, x: L.skimage.feature.blob_doh(x),
       shapes=((1024, 1024),)),
    Op("multiscale_basic_features", "uint8", r"MultiscaleBasicFeatures/",
       cucim=lambda L, x: L.cucim.feature.multiscale_basic_features(x),
       skimage=lambda L, x: L.skimage.feature.multiscale_basic_features(x),
       shapes=((1024, 1024), (2048, 2048))),
    Op("local_binary_pattern P=8 R=1", "uint8", r"LocalBinaryPattern/",
       skimage=lambda L, x: L.skimage.feature.local_binary_pattern(x, 8, 1),
       shapes=((2048, 2048), (4096, 4096))),
    Op("graycomatrix distance 1, 4 angles", "uint8", r"Graycomatrix/",
       skimage=lambda L, x: L.skimage.feature.graycomatrix(x, [1], [0, math.pi / 4, math.pi / 2, 3 * math.pi / 4]),
       shapes=((2048, 2048), (4096, 4096))),
    # --- corners/canny ---
    Op("structure_tensor sigma 1", "float32", r"StructureTensor_f32/",
       cucim=lambda L, x: L.cucim.feature.structure_tensor(x, sigma=1),
       skimage=lambda L, x: L.skimage.feature.structure_tensor(x, sigma=1),
       shapes=((2048, 2048), (8192, 8192))),
    Op("corner_harris", "float32", r"CornerHarris_f32/",
       cucim=lambda L, x: L.cucim.feature.corner_harris(x),
       skimage=lambda L, x: L.skimage.feature.corner_harris(x),
       shapes=((1024, 1024), (4096, 4096))),
    Op("corner_shi_tomasi", "float32", r"CornerShiTomasi_f32/",
       cucim=lambda L, x: L.cucim.feature.corner_shi_tomasi(x),
       skimage=lambda L, x: L.skimage.feature.corner_shi_tomasi(x),
       shapes=((4096, 4096),)),
    Op("canny sigma 2", "float32", r"Canny_f32/",
       cucim=lambda L, x: L.cucim.feature.canny(x, sigma=2),
       skimage=lambda L, x: L.skimage.feature.canny(x, sigma=2),
       shapes=((2048, 2048), (8192, 8192))),
    Op("corner_fast n 9", "float32", r"CornerFast_f32/",
       cucim=None,  # not in cuCIM
       skimage=lambda L, x: L.skimage.feature.corner_fast(x, n=9),
       shapes=((2048, 2048),)),
    Op("corner_moravec", "float32", r"CornerMoravec_f32/",
       cucim=None,  # not in cuCIM
       skimage=lambda L, x: L.skimage.feature.corner_moravec(x),
       shapes=((2048, 2048),)),
    Op("hessian_matrix_det sigma 3", "float32", r"HessianMatrixDet_f32/",
       cucim=lambda L, x: L.cucim.feature.hessian_matrix_det(x, sigma=3),
       skimage=lambda L, x: L.skimage.feature.hessian_matrix_det(x, sigma=3),
       shapes=((2048, 2048),)),
]

# --- hog/daisy/haar/template ---


def _with_template(xp, shape, dtype):
    img = test_image(xp, shape, "float32")
    n = shape[0]
    return img, img[n // 3:n // 3 + 64, n // 2:n // 2 + 64].copy()


def _integral(xp, shape, dtype):
    import numpy as np
    from skimage.transform import integral_image
    ii = integral_image(test_image(np, (256, 256), "float32"))
    return xp.asarray(ii) if xp is not np else ii


OPS += [
    Op("match_template 64x64 template", "float32", r"BM_MatchTemplate/",
       cucim=lambda L, x: L.cucim.feature.match_template(x[0], x[1]),
       skimage=lambda L, x: L.skimage.feature.match_template(x[0], x[1]),
       shapes=((1024, 1024), (4096, 4096)), make_input=_with_template),
    Op("match_template 64x64 template, pad_input", "float32", r"BM_MatchTemplatePadded/",
       cucim=lambda L, x: L.cucim.feature.match_template(x[0], x[1], pad_input=True),
       skimage=lambda L, x: L.skimage.feature.match_template(x[0], x[1], pad_input=True),
       shapes=((4096, 4096),), make_input=_with_template),
    Op("hog (8x8 cells, 3x3 blocks, 9 bins)", "float32", r"BM_Hog/",
       skimage=lambda L, x: L.skimage.feature.hog(x),
       shapes=((512, 512), (2048, 2048))),
    Op("haar_like_feature 24x24 window, all types", "float64", r"BM_HaarLikeFeature/",
       skimage=lambda L, x: L.skimage.feature.haar_like_feature(x, 10, 20, 24, 24),
       shapes=((24, 24),), make_input=_integral),
    Op("daisy (defaults)", "float32", r"BM_Daisy/",
       cucim=lambda L, x: L.cucim.feature.daisy(x),
       skimage=lambda L, x: L.skimage.feature.daisy(x),
       shapes=((1024, 1024),)),
    # learned features
    Op("Cascade.detect_multi_scale, face cascade", "uint8", r"^BM_CascadeDetect/",
       skimage=lambda L, x: L.skimage.feature.Cascade(L.skimage.data.lbp_frontal_face_cascade_filename())
       .detect_multi_scale(x, scale_factor=1.2, step_ratio=1, min_size=(24, 24), max_size=(200, 200)),
       shapes=((512, 512), (2048, 2048))),
]

# --- keypoints ---


def _orb(L, x):
    o = L.skimage.feature.ORB(n_keypoints=500)
    o.detect_and_extract(x)
    return o.descriptors


def _sift(L, x):
    o = L.skimage.feature.SIFT()
    o.detect_and_extract(x)
    return o.descriptors


def _censure(L, x):
    o = L.skimage.feature.CENSURE()
    o.detect(x)
    return o.keypoints


def _keypoints(n, k, seed=12345):
    """The benchmark's keypoints: a 64-bit LCG's top bits modulo n (bench_keypoints.cpp)."""
    v, x = [], seed
    for _ in range(2 * k):
        x = (x * 6364136223846793005 + 1442695040888963407) % (1 << 64)
        v.append(float((x >> 33) % n))
    import numpy as np
    return np.array(v).reshape(k, 2)


def _at_least_256(xp, shape, dtype):
    """The texture, at least 256 on a side (a small test shape has no ORB or SIFT features)."""
    return test_image(xp, tuple(max(n, 256) for n in shape), dtype)


def _brief(L, x):
    b = L.skimage.feature.BRIEF()
    b.extract(x, _keypoints(x.shape[0], 500))
    return b.descriptors


def _match_input(xp, shape, dtype):
    import numpy as np
    from skimage.feature import BRIEF
    img = test_image(np, (1024, 1024), "uint8")
    d = []
    for n in (1024, 1000):
        b = BRIEF()
        b.extract(img, _keypoints(n, 500))
        d.append(b.descriptors)
    return tuple(d)


OPS += [
    Op("ORB detect_and_extract, 500 keypoints", "uint8", r"BM_Orb/",
       skimage=_orb, shapes=((1024, 1024),), make_input=_at_least_256),
    Op("SIFT detect_and_extract", "uint8", r"BM_Sift/", skimage=_sift, shapes=((512, 512),),
       make_input=_at_least_256),
    Op("CENSURE detect (DoB)", "uint8", r"BM_Censure/", skimage=_censure, shapes=((1024, 1024),)),
    Op("BRIEF extract, 500 keypoints", "uint8", r"BM_Brief/", skimage=_brief, shapes=((1024, 1024),)),
    Op("match_descriptors 500 x 500, 256 bits, max_ratio 0.8", "bool", r"BM_MatchDescriptors/",
       skimage=lambda L, x: L.skimage.feature.match_descriptors(x[0], x[1], max_ratio=0.8),
       shapes=((500, 500),), make_input=_match_input),
]
