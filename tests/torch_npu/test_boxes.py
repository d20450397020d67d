"""The overlaps of boxes, RoIAlign and sparse coalescing through torch_npu's op-plugin on the simulator's
aclnn APIs (derived pages: op_docs/derived/), against references written here in PyTorch on the CPU:
npu_iou and npu_ciou on Ascend950, where op-plugin calls aclnnIou and aclnnCIoU (below it the aclop Iou and
CIoU, the same formulas: runtime/sim/src/common/boxes.h); npu_roi_align and npu_roi_alignbk, which op-plugin
sends to aclnnROIAlign and aclnnROIAlignBackward wherever libopapi exports them (the aclop path shares
common/roi_align.h); Tensor.coalesce() of a sparse COO tensor (aclnnCoalesceSparse). What no source
defines is refused by name: CIoU's mode iof, roiEndMode 1 and 2."""

from tests.torch_npu.npu_scripts import REFUSED_BY_NAME

# The references: every pair's IoU/IoF with the pixel offset eps (the aclnnIou page), Complete IoU of
# coordinate rows (Zheng et al., 2020; the aclnnCIoU page), RoIAlign as torchvision computes it, written
# with explicit loops over bins and samples (the aclnnROIAlign page), differentiable in x.
BOXES_REFERENCE = """
    import math

    def iou_reference(a, b, eps, iof):
        # a [N, 4], b [M, 4] corners -> [N, M]
        out = torch.zeros(len(a), len(b))
        for i, p in enumerate(a.float().tolist()):
            for j, q in enumerate(b.float().tolist()):
                w = max(min(p[2], q[2]) - max(p[0], q[0]) + eps, 0.0)
                h = max(min(p[3], q[3]) - max(p[1], q[1]) + eps, 0.0)
                area_p = (p[2] - p[0] + eps) * (p[3] - p[1] + eps)
                area_q = (q[2] - q[0] + eps) * (q[3] - q[1] + eps)
                out[i, j] = w * h / (area_q if iof else area_p + area_q - w * h)
        return out

    def ciou_reference(a, b, trans, cross):
        # a [4, N], b [4, M] coordinate rows -> [M, N] (cross) or [1, N]
        def corners(t):
            t = t.float()
            return torch.stack((t[0] - t[2] / 2, t[1] - t[3] / 2, t[0] + t[2] / 2, t[1] + t[3] / 2)) if trans else t
        a, b = corners(a).t().tolist(), corners(b).t().tolist()
        rows = len(b) if cross else 1
        out = torch.zeros(rows, len(a))
        for j in range(rows):
            for i, p in enumerate(a):
                q = b[j if cross else i]
                inter = max(min(p[2], q[2]) - max(p[0], q[0]), 0) * max(min(p[3], q[3]) - max(p[1], q[1]), 0)
                union = (p[2] - p[0]) * (p[3] - p[1]) + (q[2] - q[0]) * (q[3] - q[1]) - inter
                iou = inter / union
                centre = ((p[0] + p[2] - q[0] - q[2]) / 2) ** 2 + ((p[1] + p[3] - q[1] - q[3]) / 2) ** 2
                diagonal = (max(p[2], q[2]) - min(p[0], q[0])) ** 2 + (max(p[3], q[3]) - min(p[1], q[1])) ** 2
                v = 4 / math.pi ** 2 * (math.atan((q[2] - q[0]) / (q[3] - q[1])) - math.atan((p[2] - p[0]) / (p[3] - p[1]))) ** 2
                out[j, i] = iou - centre / diagonal - v * v / (1 - iou + v)
        return out

    def bilinear(plane, y, x):
        h, w = plane.shape
        if y < -1 or y > h or x < -1 or x > w:
            return plane.new_zeros(())
        y, x = max(y, 0.0), max(x, 0.0)
        y0, x0 = int(y), int(x)
        y1, x1 = y0 + 1, x0 + 1
        if y0 >= h - 1:
            y0 = y1 = h - 1
            y = float(y0)
        if x0 >= w - 1:
            x0 = x1 = w - 1
            x = float(x0)
        ly, lx = y - y0, x - x0
        return ((1 - ly) * (1 - lx) * plane[y0, x0] + (1 - ly) * lx * plane[y0, x1] + ly * (1 - lx) * plane[y1, x0]
                + ly * lx * plane[y1, x1])

    def roi_align_reference(x, rois, scale, ph, pw, samples, aligned):
        out = []
        for r in rois.float().tolist():
            offset = 0.5 if aligned else 0.0
            x1, y1, x2, y2 = (v * scale - offset for v in r[1:])
            w, h = x2 - x1, y2 - y1
            if not aligned:
                w, h = max(w, 1.0), max(h, 1.0)
            gh, gw = samples or math.ceil(h / ph), samples or math.ceil(w / pw)
            image = x[int(r[0])].float()
            bins = torch.stack([torch.stack([sum(bilinear(image[c], y1 + i * h / ph + (a + 0.5) * h / ph / gh,
                                                          x1 + j * w / pw + (b + 0.5) * w / pw / gw)
                                                 for a in range(gh) for b in range(gw)) / (gh * gw)
                                             for i in range(ph) for j in range(pw)]).reshape(ph, pw)
                                for c in range(x.shape[1])])
            out.append(bins)
        return torch.stack(out)
"""


def test_iou_and_ciou_on_ascend950_equal_their_formulas(run_npu):
    run_npu(BOXES_REFERENCE + """
    torch.manual_seed(0)
    corners = lambda n: torch.cat((torch.rand(n, 2) * 8, torch.rand(n, 2) * 8 + 8), 1)
    a, b = corners(5), corners(3)
    for dtype, tol in ((torch.float32, 1e-5), (torch.float16, 3e-3), (torch.bfloat16, 2e-2)):
        for mode in (0, 1):  # iou, iof
            # op-plugin's npu_iou on Ascend950: aclnnIou's [N, M] returned transposed, [M, N]
            got = torch_npu.npu_iou(a.to(dtype).npu(), b.to(dtype).npu(), mode).cpu()
            want = iou_reference(a.to(dtype), b.to(dtype), 0.01, mode == 1).t()
            assert got.dtype == dtype and got.shape == (3, 5), (got.dtype, got.shape)
            assert torch.allclose(got.float(), want, rtol=tol, atol=tol), (dtype, mode, (got.float() - want).abs().max())
    # CIoU: boxes as coordinate rows [4, n]; FLOAT16 op-plugin casts to float and back
    xywh = lambda n: torch.cat((torch.rand(2, n) * 4, torch.rand(2, n) * 3 + 0.5))
    p, q = xywh(6), xywh(4)
    for dtype, tol in ((torch.float32, 1e-5), (torch.float16, 3e-3), (torch.bfloat16, 2e-2)):
        got = torch_npu.npu_ciou(p.to(dtype).npu(), q.to(dtype).npu(), trans=True, is_cross=True).cpu()
        want = ciou_reference(p.to(dtype), q.to(dtype), True, True)
        assert got.dtype == dtype and got.shape == (4, 6), (got.dtype, got.shape)
        assert torch.allclose(got.float(), want, rtol=tol, atol=tol), (dtype, (got.float() - want).abs().max())
    c = torch.cat((p[:2], p[:2] + p[2:]))  # corners, box i with gtbox i
    d = torch.cat((q[:2, :1].expand(2, 6) + 0.3, q[:2, :1].expand(2, 6) + 2.5))
    got = torch_npu.npu_ciou(c.npu(), d.npu(), trans=False, is_cross=False).cpu()
    assert got.shape == (1, 6) and torch.allclose(got, ciou_reference(c, d, False, False), rtol=1e-5, atol=1e-5), got
    """, env={"ACLNN_SIM_SOC": "Ascend950"})


def test_roi_align_and_its_backward_equal_torchvision_s_formula(run_npu):
    run_npu(BOXES_REFERENCE + """
    torch.manual_seed(0)
    x = torch.randn(2, 3, 8, 7)
    # the last RoI crosses the map's edges; batch indices 0.9 and 1.5 read toward zero (0 and 1)
    rois = torch.tensor([[0, 1.0, 1.5, 6.0, 5.0], [1.5, -1.0, 2.0, 9.5, 7.0], [1, 3.0, 3.0, 3.5, 3.25],
                         [0.9, -6.0, -4.0, 4.0, 18.0]])
    for dtype, tol in ((torch.float32, 1e-5), (torch.float16, 2e-2)):
        for end_mode, samples in ((0, 2), (3, 0), (0, 0), (3, 3)):
            got = torch_npu.npu_roi_align(x.to(dtype).npu(), rois.to(dtype).npu(), 0.5, 2, 3, samples, end_mode).cpu()
            want = roi_align_reference(x.to(dtype), rois.to(dtype), 0.5, 2, 3, samples, end_mode == 3)
            assert got.dtype == dtype and got.shape == (4, 3, 2, 3), (got.dtype, got.shape)
            assert torch.allclose(got.float(), want, rtol=tol, atol=tol), (dtype, end_mode, samples,
                                                                          (got.float() - want).abs().max())
    # the torch_npu documentation's example
    image = torch.arange(1, 37, dtype=torch.float32).reshape(1, 1, 6, 6)
    got = torch_npu.npu_roi_align(image.npu(), torch.tensor([[0, -2.0, -2.0, 22.0, 22.0]]).npu(), 0.25, 3, 3, 2, 0).cpu()
    assert torch.equal(got, torch.tensor([[[[4.5, 6.5, 8.5], [16.5, 18.5, 20.5], [28.5, 30.5, 32.5]]]])), got
    # the backward: the reference's autograd; npu_roi_alignbk takes pooled_width before pooled_height
    for end_mode, samples in ((0, 2), (3, 0)):
        leaf = x.clone().requires_grad_()
        grad = torch.randn(4, 3, 2, 3)
        roi_align_reference(leaf, rois, 0.5, 2, 3, samples, end_mode == 3).backward(grad)
        got = torch_npu.npu_roi_alignbk(grad.npu(), rois.npu(), list(x.shape), 3, 2, 0.5, samples, end_mode).cpu()
        assert got.shape == x.shape and torch.allclose(got, leaf.grad, rtol=1e-5, atol=1e-5), (
            end_mode, (got - leaf.grad).abs().max())
    """)


def test_sparse_coalesce_sums_duplicates(run_npu):
    run_npu("""
        torch.manual_seed(0)
        indices = torch.tensor([[0, 2, 0, 1, 2, 0], [1, 3, 1, 0, 3, 2]])
        for dtype in (torch.float32, torch.float16, torch.bfloat16, torch.int32):
            values = (torch.randn(6, 2) * 4).to(dtype)
            sparse = torch.sparse_coo_tensor(indices, values, (3, 4, 2))
            got = sparse.npu().coalesce()
            want = sparse.coalesce()
            assert got.is_coalesced() and got._nnz() == 4, got
            assert torch.equal(got._indices().cpu(), want._indices()), (dtype, got._indices())
            tol = 0 if dtype in (torch.float32, torch.int32) else 1e-2
            assert torch.allclose(got._values().cpu().float(), want._values().float(), atol=tol), (dtype, got._values())
    """)


def test_what_no_source_defines_is_refused_by_name(run_npu):
    run_npu(REFUSED_BY_NAME + """
    x, rois = torch.randn(1, 2, 5, 5).npu(), torch.tensor([[0, 0.0, 0.0, 3.0, 3.0]]).npu()
    grad = torch.randn(1, 2, 2, 2).npu()
    calls = [(lambda mode=mode: torch_npu.npu_roi_align(x, rois, 1.0, 2, 2, 2, mode), ("aclnnROIAlign", "roiEndMode"))
             for mode in (1, 2)]
    # npu_roi_alignbk's roi_end_mode defaults to 1
    calls.append((lambda: torch_npu.npu_roi_alignbk(grad, rois, [1, 2, 5, 5], 2, 2, 1.0, 2), ("aclnnROIAlignBackward",
                                                                                                "roiEndMode")))
    # a RoI's batch index outside the map's images: the kernel's fault, named
    calls.append((lambda: torch_npu.npu_roi_align(x, torch.tensor([[1, 0.0, 0.0, 3.0, 3.0]]).npu(), 1.0, 2, 2, 2, 0),
                  "batch index"))
    refused_by_name(calls)
    """)
    run_npu(REFUSED_BY_NAME + """
    p = torch.rand(4, 3).npu() + 1
    refused_by_name([(lambda: torch_npu.npu_ciou(p, p, trans=True, is_cross=True, mode=1), ("aclnnCIoU", "iof"))])
    """, env={"ACLNN_SIM_SOC": "Ascend950"})
