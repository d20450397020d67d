"""The short-time Fourier transform (runtime/sim/src/opapi/families/stft.cpp): aclStft, torch.stft."""

from gen.families.model import Family, Op

STFT = Family(
    "stft", "PlanStft",
    # out= has the golden's dtype: complex, or real when return_complex is false.
    ops=(Op("stft", result_dtype=True),),
    output_shape="given",
    roles=("self", "window", "out", "n_fft", "hop_length", "win_length", "normalized", "onesided", "return_complex"),
    required=("self", "out", "n_fft", "hop_length", "win_length", "normalized", "onesided", "return_complex"),
    doc="stft: each frame m of n_fft samples from m * hop_length, times the window of win_length values centred in "
        "n_fft points (absent: ones), transformed by a discrete Fourier transform (n_fft / 2 + 1 frequencies when "
        "onesided; scaled by 1 / sqrt(n_fft) when normalized); complex, or real with (real, imaginary) last, in "
        "double")
