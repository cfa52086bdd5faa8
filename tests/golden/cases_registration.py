"""Golden outputs of skimage.registration.phase_cross_correlation (scikit-image 0.26) for
tests/registration/test_phase_cross_correlation.cpp (loaded as "registration/<name>.npy").

Inputs ref_<key>.npy / mov_<key>.npy (2-D camera crops, smooth random 1-D and 3-D images, float64,
float32 and uint8); spectra (space='fourier') as real arrays with a trailing axis of 2; masks
rmask_<key>.npy / mmask_<key>.npy (uint8). Outputs pcc_<key>_<variant>.npy: float64
[shift..., error, phasediff] (error and phasediff NaN for the masked variant). Variants:
  u<f>_<norm>       upsample_factor f, normalization phase / none (space real)
  four_u<f>         space='fourier', upsample_factor f (2f, 3d)
  dis_u<f>          disambiguate=True
  masked            reference_mask (and moving_mask where the images differ in shape)
"""
import numpy as np
import skimage
import scipy.ndimage as ndi
from skimage.registration import phase_cross_correlation


def spectrum(a):
    f = np.fft.fftn(a)
    return np.stack([f.real, f.imag], axis=-1)


def save_result(g, name, res):
    shift, error, phasediff = res
    g.save(name, np.concatenate([np.asarray(shift, dtype=np.float64), [float(error), float(phasediff)]]))


def generate(g):
    generate_pcc(g)
    generate_flows(g)


def generate_pcc(g):
    rng = g.rng(2020)
    cam = skimage.data.camera().astype(np.float64)  # full resolution: only small crops are stored
    ref2 = cam[100:196, 200:296]
    # A subpixel shift (Fourier shift, periodic), an integer shift of a crop, and noise.
    mov2 = np.real(np.fft.ifftn(ndi.fourier_shift(np.fft.fftn(ref2), (-3.3, 5.7))))
    ins = {
        "2d": (ref2, mov2),
        "2f": (ref2.astype(np.float32), (mov2 + rng.normal(0, 2, mov2.shape)).astype(np.float32)),
        "2u": (cam[50:114, 60:124].astype(np.uint8), cam[57:121, 56:120].astype(np.uint8)),
        "1d": (ndi.gaussian_filter1d(rng.normal(size=80), 2), None),
        # odd extents: a half-pixel Fourier shift zeroes the Nyquist bins of an even axis, and phase
        # normalization of such bins would make the goldens rounding noise
        "3d": (ndi.gaussian_filter(rng.normal(size=(21, 19, 15)), 1.0), None),
        "2o": (cam[0:63, 0:45], cam[4:67, 2:47]),  # odd and even extents
    }
    ins["1d"] = (ins["1d"][0], np.roll(ins["1d"][0], 7))
    ins["3d"] = (ins["3d"][0], np.real(np.fft.ifftn(ndi.fourier_shift(np.fft.fftn(ins["3d"][0]), (1.4, -2.3, 3)))))  # no half pixel: no tied peaks
    for key, (ref, mov) in ins.items():
        g.save(f"ref_{key}", ref)
        g.save(f"mov_{key}", mov)
        for f in (1, 10, 4):
            if f == 4 and key not in ("2d", "3d"):
                continue
            for norm in ("phase", None):
                res = phase_cross_correlation(ref, mov, upsample_factor=f, normalization=norm)
                save_result(g, f"pcc_{key}_u{f}_{norm or 'none'}", res)
        if key in ("2f", "3d"):
            g.save(f"fref_{key}", spectrum(ref))
            g.save(f"fmov_{key}", spectrum(mov))
            for f in (1, 10):
                # The spectra as scikit-image receives them: complex of the float precision.
                cdt = np.complex64 if ref.dtype == np.float32 else np.complex128
                res = phase_cross_correlation(np.fft.fftn(ref).astype(cdt), np.fft.fftn(mov).astype(cdt),
                                              upsample_factor=f, space="fourier")
                save_result(g, f"pcc_{key}_four_u{f}", res)

    # disambiguate: a large shift of an image with little periodic structure.
    big = cam[200:264, 150:214]
    dmov = cam[238:302, 170:234]  # true shift (38, 20); without disambiguation (-26, 20)
    g.save("ref_dis", big)
    g.save("mov_dis", dmov)
    for f in (1, 10):
        save_result(g, f"pcc_dis_u{f}", phase_cross_correlation(big, dmov, upsample_factor=f, disambiguate=True))

    # masked: invalid pixels corrupted in both images; same shape, then different shapes.
    ref = cam[300:364, 300:364].copy()
    mov = cam[305:369, 296:360].copy()
    rmask = np.ones(ref.shape, dtype=bool)
    mmask = np.ones(mov.shape, dtype=bool)
    rmask[rng.uniform(size=ref.shape) < 0.2] = False
    mmask[rng.uniform(size=mov.shape) < 0.2] = False
    ref[~rmask] = 255
    mov[~mmask] = 0
    for key, (r, m, rm, mm) in {"m2d": (ref, mov, rmask, mmask),
                                "m2f": (ref.astype(np.float32), mov.astype(np.float32), rmask, mmask),
                                "m2s": (ref, mov[:50, 3:60], rmask, mmask[:50, 3:60])}.items():
        g.save(f"ref_{key}", r)
        g.save(f"mov_{key}", m)
        g.save(f"rmask_{key}", rm.astype(np.uint8))
        g.save(f"mmask_{key}", mm.astype(np.uint8))
        save_result(g, f"pcc_{key}_masked", phase_cross_correlation(r, m, reference_mask=rm, moving_mask=mm))
        if key == "m2d":
            save_result(g, f"pcc_{key}_masked_ov", phase_cross_correlation(r, m, reference_mask=rm, moving_mask=mm,
                                                                           overlap_ratio=0.6))
            save_result(g, f"pcc_{key}_masked_ref", phase_cross_correlation(r, m, reference_mask=rm))
    m3 = ndi.gaussian_filter(rng.normal(size=(14, 12, 10)), 1.0)
    mv3 = np.roll(m3, (2, -1, 3), axis=(0, 1, 2))
    mk3 = rng.uniform(size=m3.shape) > 0.1
    g.save("ref_m3d", m3)
    g.save("mov_m3d", mv3)
    g.save("rmask_m3d", mk3.astype(np.uint8))
    g.save("mmask_m3d", mk3.astype(np.uint8))
    save_result(g, "pcc_m3d_masked", phase_cross_correlation(m3, mv3, reference_mask=mk3, moving_mask=mk3))


def generate_flows(g):
    """optical_flow_tvl1 / optical_flow_ilk: fl_<key>_ref/mov inputs (uint8 2-D 64x64: two pyramid
    levels; float64 2-D 40x36: one level; float64 3-D 12x14x10) and flow_<key>_<variant>.npy."""
    from skimage.registration import optical_flow_ilk, optical_flow_tvl1
    rng = g.rng(77)
    cam = skimage.data.camera()
    smooth = ndi.gaussian_filter(rng.normal(size=(12, 14, 10)), 1.5)
    ins = {
        "u8": (cam[300:364, 250:314], cam[302:366, 249:313]),
        "f64": (cam[100:140, 100:136] / 255.0, ndi.shift(cam[100:140, 100:136] / 255.0, (0.7, -1.2), mode="nearest")),
        "3d": (smooth, ndi.shift(smooth, (0.5, -0.4, 0.8), mode="nearest")),
    }
    for key, (ref, mov) in ins.items():
        g.save(f"fl_{key}_ref", ref)
        g.save(f"fl_{key}_mov", mov)
        g.save(f"flow_{key}_tvl1", optical_flow_tvl1(ref, mov))
        g.save(f"flow_{key}_tvl1_f64", optical_flow_tvl1(ref, mov, dtype=np.float64))
        g.save(f"flow_{key}_ilk", optical_flow_ilk(ref, mov))
        g.save(f"flow_{key}_ilk_f64", optical_flow_ilk(ref, mov, dtype=np.float64))
        if key == "u8":
            g.save(f"flow_{key}_tvl1_pre", optical_flow_tvl1(ref, mov, prefilter=True, dtype=np.float64))
            g.save(f"flow_{key}_tvl1_params", optical_flow_tvl1(ref, mov, attachment=5, tightness=0.5, num_warp=3,
                                                                 num_iter=20, tol=1e-6, dtype=np.float64))
            g.save(f"flow_{key}_ilk_gauss", optical_flow_ilk(ref, mov, gaussian=True, radius=4, dtype=np.float64))
            g.save(f"flow_{key}_ilk_pre", optical_flow_ilk(ref, mov, prefilter=True, num_warp=4, dtype=np.float64))
