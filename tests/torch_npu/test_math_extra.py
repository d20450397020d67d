"""Scalar-first sums, complex numbers from real parts, strided slices, reshaped permutations and
LoRA's gathered products through torch_npu's op-plugin: each reaches an aclnn API of the simulator (named in the comments,
from op-plugin's mapping) and equals PyTorch on the CPU; exponential draws follow the CPU's law."""

from tests.torch_npu.test_random import KS


def test_complex_from_real_parts(run_npu):
    run_npu("""
        x, y = torch.randn(4, 5), torch.rand(4, 5) * 3
        # aclnnComplex and aclnnPolar: FLOAT parts give COMPLEX64.
        got = torch.complex(x.npu(), y.npu()).cpu()
        assert got.dtype == torch.complex64 and torch.equal(got, torch.complex(x, y))
        got = torch.polar(y.npu(), x.npu()).cpu()
        assert got.dtype == torch.complex64 and torch.allclose(got, torch.polar(y, x), atol=1e-5)
        # Operands that broadcast: op-plugin shapes the output as their broadcast (semantics/math_extra.toml).
        for magnitude, angle in ((y, x[0]), (y[:, :1], x), (y[0], x[:, :1])):
            got = torch.polar(magnitude.npu(), angle.npu()).cpu()
            assert torch.allclose(got, torch.polar(magnitude, angle), atol=1e-5), (magnitude.shape, angle.shape)
    """)


def test_scalar_first_add_indexing_and_confusion_transpose_on_ascend_950(run_npu):
    # op-plugin reaches aclnnStridedSlice (npu_indexing) and aclnnConfusionTranspose only on Ascend 950;
    # aclnnAddV3's page supports Ascend 950 only.
    run_npu("""
        x = torch.randn(4, 5, 6)
        # aclnnAddV3: op-plugin sends a CPU 0-d self with an NPU other as a scalar.
        for self, alpha in ((torch.tensor(2.5), 3), (torch.tensor(4), -0.5)):
            got = torch.add(self, x.npu(), alpha=alpha).cpu()
            assert torch.allclose(got, torch.add(self, x, alpha=alpha), atol=1e-6), (self, alpha)
        got = torch_npu.npu_indexing(x.npu(), [1, 0], [4, 5], [2, 2]).cpu()
        assert torch.equal(got, x[1:4:2, 0:5:2])
        for first, perm, shape in ((False, [0, 2, 1, 3], [4, 5, 2, 3]), (True, [1, 0, 2], [5, 24])):
            got = torch_npu.npu_confusion_transpose(x.npu(), perm, shape, first).cpu()
            want = x.permute(perm).reshape(shape) if first else x.reshape(shape).permute(perm)
            assert torch.equal(got, want), (first, perm, shape)
    """, env={"ACLNN_SIM_SOC": "Ascend950"})


def test_sim_exponential_repeats_after_seeding_and_follows_the_cpu_law(run_npu):
    # aclnnSimThreadExponential (torch_npu.npu_sim_exponential_): the random family's exponential.
    run_npu(KS + """
        def draw():
            return torch_npu.npu_sim_exponential_(torch.empty(20000, device="npu"), 2.0).cpu()

        torch.manual_seed(77)
        first, following = draw(), draw()
        torch.manual_seed(77)
        assert torch.equal(first, draw()) and not torch.equal(first, following)
        assert bool((first >= 0).all())
        distance, critical = ks_distance(first, torch.empty(20000).exponential_(2.0))
        assert distance < critical, (distance, critical)
    """)


def test_batch_gather_matmul_in_place_adds_each_rows_lora_product_to_ys_slice(run_npu):
    # torch_npu.npu_batch_gather_matmul_ -> aclnnAddLora with out being y itself.
    run_npu("""
        y, x = torch.randn(3, 48).half(), torch.randn(3, 16).half()
        a, b = torch.randn(2, 3, 16, 16).half() / 4, torch.randn(2, 3, 16, 16).half() / 4
        idx = torch.tensor([1, 0, 1], dtype=torch.int32)
        z = torch.einsum("bk,brk->br", x.float(), a[idx.long(), 2].float())
        want = y.float()
        want[:, 16:32] += torch.einsum("br,bhr->bh", z, b[idx.long(), 2].float()) * 0.5
        yn = y.npu()
        torch_npu.npu_batch_gather_matmul_(yn, x.npu(), b.npu(), idx.npu(), a.npu(), 2, 0.5, 16, 16)
        assert torch.allclose(yn.cpu().float(), want, rtol=1e-2, atol=1e-2)
    """)


def test_stft_equals_the_cpu(run_npu):
    """torch.stft reaches aclStft (op_docs/derived/aclStft.md; test_resample.py shows it by a fault):
    real and complex signals, one and two sided, a window shorter than n_fft (centred), none, normalized,
    and the real (real, imaginary) form."""
    output = run_npu("""
torch.manual_seed(0)
cases = (
    (torch.float32, dict(n_fft=64, hop_length=16, window=torch.hann_window(64), return_complex=True)),
    (torch.float32, dict(n_fft=64, hop_length=20, win_length=48, window=torch.hann_window(48), normalized=True, return_complex=True)),
    (torch.float32, dict(n_fft=32, hop_length=8, onesided=False, center=False, return_complex=True)),
    (torch.float64, dict(n_fft=64, hop_length=16, window=torch.hann_window(64, dtype=torch.float64), return_complex=True)),
    (torch.complex64, dict(n_fft=32, hop_length=8, center=False, return_complex=True)),  # centring pads by ReflectionPad1d, not simulated for complex
    (torch.float64, dict(n_fft=32, hop_length=8, return_complex=False)),
)
for dtype, kw in cases:
    x = torch.randn(3, 300, dtype=dtype)
    want = torch.stft(x, **kw)
    got = torch.stft(x.npu(), **{k: v.to(dtype).npu() if isinstance(v, torch.Tensor) else v for k, v in kw.items()}).cpu()
    assert got.dtype == want.dtype and got.shape == want.shape, (dtype, kw, got.dtype, got.shape, want.shape)
    assert torch.allclose(got, want, rtol=1e-4, atol=1e-4), (dtype, kw, (got - want).abs().max())
    print("ok", dtype)
""")
    assert output.count("ok ") == 6, output
