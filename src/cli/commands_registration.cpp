// skimage.registration on the command line.
//   cuskimage registration.phase_cross_correlation ref.png moving.png --upsample_factor 10
//   cuskimage registration.phase_cross_correlation ref.png moving.png --reference_mask mask.png
//   cuskimage registration.optical_flow_tvl1 frame0.png frame1.png flow.npy --num_warp 10
//   cuskimage registration.optical_flow_ilk frame0.png frame1.png flow.npy --radius 5 --gaussian true
// phase_cross_correlation prints {"shift": [...], "error": e, "phasediff": p} (error and phasediff
// are null for the masked variant, NaN in the library); the flows write the (ndim, *shape) flow
// (an .npy keeps it whole).
#include "cuskimage/registration.hpp"
#include "src/cli/registry.hpp"

namespace cuskimage::cli {

CUSK_CLI_COMMANDS(registration) {
  reg.add(Command("registration.phase_cross_correlation",
                  "Translation registering the moving image with the reference (phase cross-correlation, "
                  "subpixel by an upsampled DFT; masked normalized cross-correlation with a mask).")
              .input("reference_image", "reference image (space fourier: its spectrum, trailing axis of 2)")
              .input("moving_image", "image to register (same shape unless masked)")
              .options<registration::PhaseCrossCorrelationOptions>()
              .returns_value("{shift: [...], error, phasediff}")
              .handler([](Invocation& inv) -> Result {
                const auto r = registration::phase_cross_correlation(
                    inv.input(0), inv.input(1), inv.options<registration::PhaseCrossCorrelationOptions>(),
                    inv.stream());
                return nlohmann::json{{"shift", r.shift}, {"error", r.error}, {"phasediff", r.phasediff}};
              }));
  reg.add(Command("registration.optical_flow_tvl1", "TV-L1 optical flow from the reference to the moving image.")
              .input("reference_image", "first frame (2-D or 3-D)")
              .input("moving_image", "second frame (same shape)")
              .options<registration::OpticalFlowTvl1Options>()
              .returns_image({"flow"})
              .handler([](Invocation& inv) -> Result {
                return registration::optical_flow_tvl1(inv.input(0), inv.input(1),
                                                       inv.options<registration::OpticalFlowTvl1Options>(), inv.stream());
              }));
  reg.add(Command("registration.optical_flow_ilk", "Iterative Lucas-Kanade optical flow from the reference to the moving image.")
              .input("reference_image", "first frame (2-D or 3-D)")
              .input("moving_image", "second frame (same shape)")
              .options<registration::OpticalFlowIlkOptions>()
              .returns_image({"flow"})
              .handler([](Invocation& inv) -> Result {
                return registration::optical_flow_ilk(inv.input(0), inv.input(1),
                                                      inv.options<registration::OpticalFlowIlkOptions>(), inv.stream());
              }));
}

}  // namespace cuskimage::cli
