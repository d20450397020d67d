"""torch_npu.npu_scatter_list and npu_scatter_list_ (op-plugin's aclnnScatterList: the scatter_list family) on
device="npu" against aclnnScatterList's page written here: member b of the list takes updates[b] from indice[b] on
along dimension axis - 1 of the member (axis over updates' rank), unless maskOptional[b] is 0; the out-of-place
operator leaves the list it is given unchanged. What the page leaves open or forbids is refused by name: a
two-column indice (what its columns hold), a window past the member's dimension, a reduction other than update."""

from tests.torch_npu.npu_scripts import REFUSED_BY_NAME


def test_scatter_list_equals_the_page(run_npu):
    run_npu(REFUSED_BY_NAME + """
    def reference(var, indice, updates, mask, axis):
        dim = (axis + updates.dim() if axis < 0 else axis) - 1
        out = [t.clone() for t in var]
        for b, t in enumerate(out):
            if mask is None or int(mask[b]) != 0:
                start = int(indice[b])
                t.narrow(dim, start, updates.shape[dim + 1]).copy_(updates[b])
        return out

    for dtype in (torch.float32, torch.float16, torch.bfloat16, torch.int32, torch.int8):
        for axis, member, window in ((-2, (2, 7, 3), 3), (1, (5, 4), 2), (-1, (3, 2, 9), 4), (3, (2, 3, 8, 2), 1)):
            var = [(torch.randn(member) * 50).to(dtype) for _ in range(3)]
            shape = list(member)
            dim = (axis + len(member) + 1 if axis < 0 else axis) - 1
            shape[dim] = window
            updates = (torch.randn(3, *shape) * 50).to(dtype)
            indice = torch.randint(0, member[dim] - window + 1, (3,), dtype=torch.int32)
            for mask in (None, torch.tensor([1, 0, 1], dtype=torch.uint8)):
                want = reference(var, indice, updates, mask, axis)
                npu = [t.npu() for t in var]
                got = torch_npu.npu_scatter_list(npu, indice.npu(), updates.npu(),
                                                 None if mask is None else mask.npu(), axis=axis)
                for b in range(3):
                    assert torch.equal(got[b].cpu(), want[b]), (dtype, axis, b)
                    assert torch.equal(npu[b].cpu(), var[b]), "npu_scatter_list changed its input"
                torch_npu.npu_scatter_list_(npu, indice.long().npu(), updates.npu(),
                                            None if mask is None else mask.npu(), axis=axis)
                for b in range(3):
                    assert torch.equal(npu[b].cpu(), want[b]), (dtype, axis, b, "in place")

    var = [torch.zeros(2, 6, 3).npu() for _ in range(2)]
    updates = torch.ones(2, 2, 2, 3).npu()
    refused_by_name([
        (lambda: torch_npu.npu_scatter_list(var, torch.tensor([[0, 2], [1, 2]]).npu(), updates, None), "two-column"),
        (lambda: torch_npu.npu_scatter_list(var, torch.tensor([0, 5]).npu(), updates, None), "out of range"),
        (lambda: torch_npu.npu_scatter_list(var, torch.tensor([0, 1]).npu(), updates, None, reduce="add"),
         "reduceOptional"),
        (lambda: torch_npu.npu_scatter_list(var, torch.tensor([0, 1]).npu(), updates, None, axis=0), "axis"),
    ])
    """)
