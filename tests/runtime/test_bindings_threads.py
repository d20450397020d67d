"""aclnn from several Python threads at once: correct results, and the GIL released meanwhile."""

import threading

import numpy as np

from tests.runtime.concurrency import run_in_threads


def test_eight_threads_get_their_own_results(aclnn):
    failures, barrier = [], threading.Barrier(8)

    def work(seed):
        rng = np.random.default_rng(seed)
        barrier.wait()
        for _ in range(40):
            g = rng.standard_normal((16, 33)).astype(np.float32)
            x = rng.standard_normal((16, 33)).astype(np.float32)
            slope = float(seed) / 10
            expected = np.where(x > 0, g, g * np.float32(slope))
            use_device = rng.random() < 0.5
            result = aclnn.leaky_relu_backward(aclnn.to_device(g) if use_device else g, x if not use_device
                                               else aclnn.to_device(x), slope, False)
            result = result.numpy() if use_device else result
            if not np.allclose(result, expected, rtol=1e-6):
                failures.append(seed)

    run_in_threads(work, 8)
    assert failures == []
    assert aclnn._C._stats()["live_objects"] == 0
