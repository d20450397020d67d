"""The aclop bridge's rotated-box operators called as MMCV's NPU adapter calls them (mmcv 2.2.0,
ops/csrc/pytorch/npu/box_iou_rotated_npu.cpp and nms_rotated_npu.cpp), through the C ABI: RotatedIou
one box to one ([N] output), RotatedNMS with iou_threshold alone through aclopCompileAndExecuteV2,
which writes the kept extents into the outputs' descriptions."""

from __future__ import annotations

import ctypes
import sys
from pathlib import Path

import numpy as np

from tests.sim.sim_lib import P
from tests.sim.test_sim_cann_surface import FORMATS, SUCCESS, acl, compiler, sim  # noqa: F401 (fixtures)

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "torch_npu"))
from custom_ops_sweep import rotated_iou  # noqa: E402  (plain Python: no torch needed)

DTYPES = {np.dtype(np.float32): 0, np.dtype(np.int32): 3}


def run_aclop(sim, acl, compiler, op_type, inputs, outputs, attrs, api="aclopCompileAndExecute"):
    """`api`(op_type) on device copies of `inputs` (arrays) into fresh outputs of (shape, dtype),
    attributes (setter, name, value): (status, the outputs' arrays as their descriptions then give
    their shapes)."""
    acl.aclCreateTensorDesc.restype = acl.aclCreateDataBuffer.restype = acl.aclopCreateAttr.restype = P
    arrays = list(inputs) + [np.zeros(shape, dtype) for shape, dtype in outputs]
    memory = [sim.malloc(max(a.nbytes, 1)) for a in arrays]
    descs, buffers = [], []
    for array, address in zip(arrays, memory):
        sim.to_device(address, array)
        dims = (ctypes.c_int64 * array.ndim)(*array.shape)
        descs.append(acl.aclCreateTensorDesc(DTYPES[array.dtype], array.ndim, dims, FORMATS["ACL_FORMAT_ND"]))
        buffers.append(acl.aclCreateDataBuffer(ctypes.c_void_p(address), ctypes.c_size_t(array.nbytes)))
    attr = acl.aclopCreateAttr()
    for setter, name, value in attrs:
        assert getattr(acl, setter)(P(attr), name, value) == SUCCESS
    n, m = len(inputs), len(outputs)
    status = getattr(compiler, api)(op_type, n, (P * n)(*descs[:n]), (P * n)(*buffers[:n]), m, (P * m)(*descs[n:]),
                                    (P * m)(*buffers[n:]), P(attr), 0, 0, None, None)
    results = []
    if status == SUCCESS:
        assert acl.aclrtSynchronizeDevice() == SUCCESS
        acl.aclGetTensorDescNumDims.restype = ctypes.c_size_t
        for desc, address, (_, dtype) in zip(descs[n:], memory[n:], outputs):
            dims = []
            for i in range(acl.aclGetTensorDescNumDims(P(desc))):
                size = ctypes.c_int64()
                assert acl.aclGetTensorDescDimV2(P(desc), ctypes.c_size_t(i), ctypes.byref(size)) == SUCCESS
                dims.append(size.value)
            count = int(np.prod(dims))
            results.append(np.frombuffer(sim.from_device(address, count * np.dtype(dtype).itemsize), dtype).reshape(dims))
    acl.aclopDestroyAttr(P(attr))
    for desc in descs:
        acl.aclDestroyTensorDesc(P(desc))
    for buffer in buffers:
        acl.aclDestroyDataBuffer(P(buffer))
    for address in memory:
        sim.free(address)
    return status, results


def boxes(n, seed):
    """n rotated boxes (centre x, centre y, width, height, angle in degrees) [n, 5], crowded."""
    rng = np.random.default_rng(seed)
    return np.concatenate((rng.uniform(0, 6, (n, 2)), rng.uniform(1, 5, (n, 2)), rng.uniform(-90, 90, (n, 1))), 1).astype(np.float32)


def test_rotated_iou_one_to_one_as_mmcv_calls_it(sim, acl, compiler):
    # box_iou_rotated(aligned=True): boxes [1, 5, N] (transposed and unsqueezed), an output of N values
    a, b = boxes(7, 1), boxes(7, 2)
    b[0] = a[0]  # a box with itself: 1
    attrs = (("aclopSetAttrBool", b"trans", ctypes.c_uint8(0)), ("aclopSetAttrString", b"mode", b"iou"),
             ("aclopSetAttrBool", b"is_cross", ctypes.c_uint8(0)), ("aclopSetAttrFloat", b"v_threshold", ctypes.c_float(0)),
             ("aclopSetAttrFloat", b"e_threshold", ctypes.c_float(0)))
    status, (iou,) = run_aclop(sim, acl, compiler, b"RotatedIou", [np.ascontiguousarray(t.T[None]) for t in (a, b)],
                               [((7,), np.float32)], attrs)
    assert status == SUCCESS, sim.error()
    want = [rotated_iou(p.astype(float).tolist(), q.astype(float).tolist()) for p, q in zip(a, b)]
    assert np.allclose(iou, want, atol=1e-5), (iou, want)
    assert abs(iou[0] - 1) < 1e-6


def test_rotated_nms_as_mmcv_calls_it_returns_the_kept_extents(sim, acl, compiler):
    # nms_rotated on an NPU: dets [N, 5], scores [N], empty labels, iou_threshold alone (no score
    # threshold: negative scores are candidates too), outputs of N rows cut to the kept ones by V2
    dets = boxes(10, 3)
    scores = np.random.default_rng(4).uniform(-1, 1, 10).astype(np.float32)
    kept = []
    for i in np.argsort(-scores, kind="stable"):
        if all(rotated_iou(dets[k].astype(float).tolist(), dets[i].astype(float).tolist()) <= 0.2 for k in kept):
            kept.append(int(i))
    inputs = [dets, scores, np.zeros(0, np.int32)]
    outputs = [((10, 5), np.float32), ((10,), np.int32)]
    attrs = (("aclopSetAttrFloat", b"iou_threshold", ctypes.c_float(0.2)),)
    status, (selected, indices) = run_aclop(sim, acl, compiler, b"RotatedNMS", inputs, outputs, attrs,
                                            api="aclopCompileAndExecuteV2")
    assert status == SUCCESS, sim.error()
    assert 0 < len(kept) < 10 and indices.tolist() == kept, (indices, kept)
    assert np.array_equal(selected, dets[kept])
    # aclopCompileAndExecute cannot return the extents: outputs of other extents are refused
    status, _ = run_aclop(sim, acl, compiler, b"RotatedNMS", inputs, outputs, attrs)
    assert status != SUCCESS and "only aclopCompileAndExecuteV2 could return" in sim.error(), sim.error()
