"""Property test: any view NumPy can make (transposes, steps, offsets, negative steps, broadcast
dimensions) gives the same result through the bindings as NumPy computes."""

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st



@st.composite
def views(draw):
    rank = draw(st.integers(0, 4))
    shape = tuple(draw(st.lists(st.integers(1, 5), min_size=rank, max_size=rank)))
    doubled = tuple(s * 2 for s in shape) + (2,)
    base = np.arange(int(np.prod(doubled)), dtype=np.float32).reshape(doubled) - np.prod(doubled) / 2
    index = tuple(slice(draw(st.integers(0, 1)), None, draw(st.sampled_from([1, 2, -1]))) for _ in shape) + (0,)
    view = base[index]
    if rank > 1 and draw(st.booleans()):
        view = view.transpose(draw(st.permutations(range(rank))))
    return view


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(grad=views())
def test_any_view_matches_numpy(aclnn, grad):
    x = np.flip(grad)  # a view of the same memory, with every stride negated
    expected = np.where(x > 0, grad, grad * np.float32(0.25))
    np.testing.assert_allclose(aclnn.leaky_relu_backward(grad, x, 0.25, False), expected)
    out = np.zeros(grad.shape[::-1], np.float32).T  # a transposed out=
    aclnn.leaky_relu_backward(grad, x, 0.25, False, out=out)
    np.testing.assert_allclose(out, expected)
