"""torch_npu's rotated-box operators, non-maximum suppressions and anchor sampling on the simulator's
aclop bridge (runtime/sim/src/op_compiler/rotated.cpp, SubSample in vision.cpp): the examples of
torch_npu's own docstrings, which pin what the operators read (corners and an angle in degrees
encoded by its tangent), and the refusals of what the documentation leaves open. The CPU references
of every operator against random boxes are in custom_ops_sweep.py (their group in
test_custom_ops.py)."""

from pathlib import Path

SWEEP = str(Path(__file__).parent)


def test_rotated_box_encode_and_decode_give_their_docstring_examples(run_npu):
    # torch_npu's docstrings run these in float16 on a device; the values are its outputs
    run_npu("""
        half = dict(dtype=torch.float16)
        ones = torch.ones(5, **half).npu()
        anchors = torch.tensor([[[30.69], [32.6], [45.94], [59.88], [-44.53]]], **half).npu()
        truths = torch.tensor([[[30.44], [18.72], [33.22], [45.56], [8.5]]], **half).npu()
        got = torch_npu.npu_rotated_box_encode(anchors, truths, ones).cpu().flatten()
        want = torch.tensor([-0.4253, -0.5166, -1.7021, -0.0162, 1.1328], **half)
        assert torch.allclose(got.float(), want.float(), rtol=1e-3, atol=1e-3), got
        anchors = torch.tensor([[[4.137], [33.72], [29.4], [54.06], [41.28]]], **half).npu()
        deltas = torch.tensor([[[0.0244], [-1.992], [0.2109], [0.315], [-37.25]]], **half).npu()
        got = torch_npu.npu_rotated_box_decode(anchors, deltas, ones).cpu().flatten()
        want = torch.tensor([1.7861, -10.5781, 33.0, 17.2969, -88.4375], **half)
        assert torch.allclose(got.float(), want.float(), rtol=1e-3, atol=4e-3), got
    """)


def test_rotated_iou_of_a_box_with_itself_is_one_and_its_overlap_its_area(run_npu):
    # coincident edges and corners (a box twice, the same rectangle turned by 90 degrees with its sides
    # swapped) are where an intersection by edge crossings is fragile: the overlap is exact here
    run_npu("""
        box = torch.tensor([[3.0, 4.0, 6.0, 2.0, 30.0]])
        turned = torch.tensor([[3.0, 4.0, 2.0, 6.0, 120.0]])
        boxes = torch.cat((box, turned))[None].npu()
        iou = torch_npu.npu_rotated_iou(boxes, boxes).cpu()
        assert torch.allclose(iou, torch.ones(1, 2, 2), atol=1e-6), iou
        overlaps = torch_npu.npu_rotated_overlaps(boxes, boxes).cpu()
        assert torch.allclose(overlaps, torch.full((1, 2, 2), 12.0), rtol=1e-6), overlaps
    """)


def test_rotated_iou_turns_boxes_the_way_mmcv_does(run_npu):
    # a 4 x 2 box at the origin turned by +45 degrees lies along y = x (R = [[cos, -sin], [sin, cos]]):
    # it covers a unit box centred at (1, 1) more than the box turned by -45 degrees does
    run_npu("""
        boxes = torch.tensor([[[0.0, 0.0, 4.0, 0.5, 45.0], [0.0, 0.0, 4.0, 0.5, -45.0]]]).npu()
        query = torch.tensor([[[1.0, 1.0, 1.0, 1.0, 0.0]]]).npu()
        overlaps = torch_npu.npu_rotated_overlaps(boxes, query).cpu().flatten()
        assert overlaps[0] > 0.5 and overlaps[1] == 0, overlaps
    """)


def test_what_the_rotated_operators_leave_undocumented_is_refused_by_name(run_npu):
    output = run_npu(f"""
        boxes = torch.rand(1, 3, 5).npu()
        for call in (lambda: torch_npu.npu_rotated_iou(boxes, boxes, is_cross=False),
                     lambda: torch_npu.npu_rotated_box_encode(torch.rand(1, 5, 2).npu(), torch.rand(1, 5, 2).npu(),
                                                              torch.tensor([1.0, 1.0, 2.0, 2.0, 1.0]).npu())):
            try:
                call()
                torch.npu.synchronize()
                print("computed")
            except RuntimeError as error:
                print("refused:", str(error).split("the call:")[0])
    """, env={"ASCEND_LAUNCH_BLOCKING": "1"})
    assert "computed" not in output, output
    assert "(RotatedIou): the output of shape [1,3,3] (expected 3 values for is_cross false" in output, output
    assert "(RotatedBoxEncode): attribute weight = [1.000000,1.000000,2.000000,2.000000,1.000000] is not modelled" in output, output


def test_what_the_suppressions_leave_undocumented_is_refused_by_name(run_npu):
    # RotatedNMS's prototype has iou_threshold alone: a score_threshold or max_output_size that would
    # change the boxes kept is refused, one that does not is computed; equal scores (which box goes
    # first) and NMSWithMask's open questions (whether it sorts, whether areas count a +1 pixel) too
    output = run_npu(f"""
        import sys
        sys.path.insert(0, {SWEEP!r})
        from custom_ops_sweep import makers
        (boxes, scores, _), _, (kept, count) = makers()["npu_nms_rotated"]()
        boxes, scores = boxes.npu(), scores.npu()
        got = torch_npu.npu_nms_rotated(boxes, scores, 0.3, 0.0, len(kept))[0].cpu()
        assert torch.equal(got, kept), (got, kept)
        calls = {{"limit": lambda: torch_npu.npu_nms_rotated(boxes, scores, 0.3, 0.0, len(kept) - 1),
                  "threshold": lambda: torch_npu.npu_nms_rotated(boxes, scores, 0.3, float(scores.cpu().max()) - 1e-3),
                  "ties": lambda: torch_npu.npu_nms_rotated(boxes, torch.ones(len(scores)).npu(), 0.3),
                  "unsorted": lambda: torch_npu.npu_nms_with_mask(torch.tensor([[0, 0, 10, 10, 0.5], [1, 1, 11, 11, 0.8]]).npu(), 0.5),
                  # IoU 0.49 without a pixel's offset, 0.54 with it
                  "offset": lambda: torch_npu.npu_nms_with_mask(torch.tensor([[0, 0, 10, 10, 0.9], [0, 0, 10, 4.9, 0.8]]).npu(), 0.5)}}
        for name, call in calls.items():
            try:
                call()
                torch.npu.synchronize()
                print(name, "computed")
            except RuntimeError as error:
                print(name, "refused:", " ".join(str(error).split()))
    """, env={"ASCEND_LAUNCH_BLOCKING": "1"})
    assert "computed" not in output, output
    for name, words in (("limit", "change which boxes it keeps, and whether its kernel applies them"),
                        ("threshold", "change which boxes it keeps"),
                        ("ties", "have the same score, and which of them it visits first is not documented"),
                        ("unsorted", "whether it orders the boxes by score is not documented"),
                        ("offset", "whether its areas count a +1 pixel")):
        line = next(line for line in output.splitlines() if line.startswith(name + " "))
        assert words in line, line


def test_sub_sample_keeps_torchvisions_balanced_counts_and_refuses_other_labels(run_npu):
    # npu_sub_sample (SubSample): min(#1, int(size * fraction)) positives, min(#0, size - that)
    # negatives, drawn at random (the simulator's draws), -1 elsewhere; two calls draw differently
    output = run_npu("""
        torch.manual_seed(0)
        labels = torch.randint(-1, 2, (200,), dtype=torch.int32)
        draws = []
        for size, fraction in ((64, 0.25), (16, 0.5), (500, 0.5), (0, 0.5)):
            y = torch_npu.npu_sub_sample(labels.npu(), size, fraction).cpu()
            positives = min(int((labels == 1).sum()), int(size * fraction))
            negatives = min(int((labels == 0).sum()), size - positives)
            assert (y == 1).sum() == positives and (y == 0).sum() == negatives, (size, fraction, y)
            kept = y != -1
            assert torch.equal(y[kept], labels[kept])
            draws.append(y)
        again = torch_npu.npu_sub_sample(labels.npu(), 64, 0.25).cpu()
        assert not torch.equal(again, draws[0])
        try:
            torch_npu.npu_sub_sample(torch.tensor([1, 2, 0], dtype=torch.int32).npu(), 2, 0.5)
            torch.npu.synchronize()
            print("computed")
        except RuntimeError as error:
            print("refused:", " ".join(str(error).split()))
    """, env={"ASCEND_LAUNCH_BLOCKING": "1"})
    assert "label 2 at 1 is not -1, 0 or 1 (what y holds for it is not documented)" in output, output
