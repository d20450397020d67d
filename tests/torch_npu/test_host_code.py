"""The results torch_npu's own host code defines on the aclop path (tests/torch_npu/host_code.py, which
the sweeps' classifiers use to tell them from the simulator's wrong values), one call each on Ascend910:
each differs from PyTorch's and equals host_code.py's account of it. A test fails when torch_npu or the
simulator starts giving PyTorch's result (the entry is then stale and must go) or another one (the
account is wrong, or the simulator is)."""

from pathlib import Path

HERE = Path(__file__).resolve().parent

SCRIPT = f"""
    import sys
    sys.path.insert(0, {str(HERE)!r})
    import torch
    import torch.nn.functional as F
    from host_code import HOST_CODE
    from opinfo_compare import differs, to

    def grads(fn, args, kwargs, device):
        leaf = args[0].detach().to(device).requires_grad_(True)
        out = fn(leaf, *to(list(args[1:]), device), **kwargs)
        return [torch.autograd.grad(out.sum(), leaf)[0].cpu()]

    x = torch.randn(4, 5)
    nan_self = torch.randn(3, 4)
    nan_self[1, 2] = float("nan")
    CALLS = [  # (entry, aten op, args, kwargs, backward)
        ("index_fill", torch.index_fill, (x, -1, torch.tensor([2, 0]), -1.0), {{}}, False),
        ("index_fill", torch.index_fill, (x, -2, torch.tensor([1]), -1.0), {{}}, False),
        ("index_fill", torch.index_fill, (x, -1, torch.tensor([2, 0]), -1.0), {{}}, True),
        ("addbmm", torch.addbmm, (torch.randn(5, 10).half(), (4 * torch.randn(5, 5, 5)).half(),
                                  (4 * torch.randn(5, 5, 10)).half()), {{"beta": 0.5, "alpha": 2}}, False),
        ("addr", torch.addr, (nan_self, torch.randn(3), torch.randn(4)), {{"beta": 0, "alpha": 2}}, False),
        ("native_layer_norm", torch.native_layer_norm, (torch.randn(2, 3, 4), (4,), torch.randn(4), torch.randn(4), 1e-5),
         {{}}, False),
        ("nn.functional.adaptive_max_pool1d", F.adaptive_max_pool1d, (torch.randn(4, 8), 2, True), {{}}, False),
        ("nn.functional.interpolate.nearest", F.interpolate, (torch.randn(2, 3, 4),),
         {{"scale_factor": 1.7, "mode": "nearest"}}, False),
        ("nn.functional.upsample_nearest", F.upsample_nearest, (torch.randn(2, 3, 4),), {{"scale_factor": 1.7}}, True),
        ("nn.functional.avg_pool2d", F.avg_pool2d, (torch.randn(1, 3, 9, 9), 3, 1, 1, True, False, 2), {{}}, True),
    ]
    assert {{c[0] for c in CALLS}} == set(HOST_CODE), "every entry of host_code.py has its call here"
    for name, op, args, kwargs, backward in CALLS:
        if backward:
            want, got = (grads(op, args, kwargs, device) for device in ("cpu", "npu"))
            host = grads(HOST_CODE[name].model(op, got), args, kwargs, "cpu")
        else:
            want = op(*args, **kwargs)
            got = to(op(*to(list(args), "npu"), **kwargs), "cpu")
            host = HOST_CODE[name].model(op, got)(*args, **kwargs)
        assert differs(want, got, 1e-4), f"{{name}}: torch_npu now gives PyTorch's result: the entry is stale"
        assert not differs(host, got, 1e-4), f"{{name}}: not host_code.py's result: {{differs(host, got, 1e-4)}}"
        print("host code:", name)
"""


def test_torch_npu_host_code_results_on_ascend910(run_npu):
    output = run_npu(SCRIPT, env={"ACLNN_SIM_SOC": "Ascend910"})
    assert output.count("host code:") == 10, output
