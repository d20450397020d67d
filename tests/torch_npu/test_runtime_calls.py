"""torch_npu's user APIs that reach the runtime calls the simulator models beyond streams and memory
(issue 21): device utilisation, core limits, host memory registration, batched copies between host and
device, external events (device words written and waited for) and prefetches (cache maintenance)."""


def test_utilization_follows_the_work_the_device_does(run_npu):
    # torch.npu.utilization() is aclrtGetDeviceUtilizationRate's: the share of the time since the previous
    # query in which the device's streams ran work.
    run_npu("""
        import time
        x = torch.randn(512, 512, device="npu")
        torch.npu.synchronize()  # nothing left to run in the idle interval
        torch.npu.utilization()
        time.sleep(0.2)
        idle = torch.npu.utilization()
        assert 0 <= idle <= 5, idle
        start = time.monotonic()
        while time.monotonic() - start < 0.5:
            for _ in range(8):
                x = (x @ x).clamp_(-1, 1)
            torch.npu.synchronize()
        busy = torch.npu.utilization()
        assert 30 <= busy <= 100, busy
    """)


def test_device_and_stream_core_limits(run_npu):
    # Kept, read back and checked against the chip's core counts; they change no result.
    run_npu("""
        from torch_npu.npu import npu_config
        torch.ones(1, device="npu")  # torch_npu reads limits of an initialised device only
        cubes = torch.npu.get_device_properties(0).cube_core_num
        vectors = torch.npu.get_device_properties(0).vector_core_num
        assert npu_config.get_device_limit(0) == {"cube_core_num": cubes, "vector_core_num": vectors}
        npu_config.set_device_limit(0, cube_num=cubes // 2, vector_num=vectors // 2)
        assert npu_config.get_device_limit(0) == {"cube_core_num": cubes // 2, "vector_core_num": vectors // 2}
        stream = torch.npu.Stream()
        assert npu_config.get_stream_limit(stream) == {"cube_core_num": cubes // 2, "vector_core_num": vectors // 2}
        npu_config.set_stream_limit(stream, cube_num=1, vector_num=2)
        assert npu_config.get_stream_limit(stream) == {"cube_core_num": 1, "vector_core_num": 2}
        try:
            npu_config.set_stream_limit(stream, cube_num=cubes)  # above the device's limit
        except RuntimeError as error:
            assert "device's limit" in str(error) or "107" in str(error) or "100000" in str(error), error
        else:
            raise AssertionError("a stream limit above the device's was accepted")
        a = torch.randn(64, 64)
        with torch.npu.stream(stream):
            y = a.npu() @ a.npu()
        torch.npu.synchronize()
        assert torch.allclose(y.cpu(), a @ a, rtol=1e-4, atol=1e-4)
        npu_config.reset_stream_limit(stream)
        assert npu_config.get_stream_limit(stream) == {"cube_core_num": cubes // 2, "vector_core_num": vectors // 2}
    """, fresh=True)  # set_device_limit acts once per process, and its limits last as long


def test_registered_host_memory_is_the_device_s(run_npu):
    # torch.npu.npurt().npuHostRegister: host memory mapped for the device, at its host address.
    run_npu("""
        rt = torch.npu.npurt()
        host = torch.arange(16, dtype=torch.float32)
        assert rt.npuHostRegister(host.data_ptr(), host.numel() * 4, 0x2) == 0  # ACL_HOST_REG_MAPPED
        assert rt.npuHostRegister(host.data_ptr() + 8, 16, 0x2) == 507910  # ACL_ERROR_HOST_MEMORY_ALREADY_REGISTERED
        assert rt.npuHostUnregister(host.data_ptr()) == 0
        assert rt.npuHostUnregister(host.data_ptr()) == 507911  # ACL_ERROR_HOST_MEMORY_NOT_REGISTERED
        assert rt.npuHostRegister(host.data_ptr(), host.numel() * 4, 0x1) != 0  # an unknown flag
    """)


def test_foreach_copy_between_host_and_device_is_a_batch(run_npu):
    # torch._foreach_copy_ from host tensors to npu ones (and back) is aclrtMemcpyBatch(Async) on Atlas A2.
    # The blocking path synchronises the ACL stream but not torch_npu's task queue (op-plugin's memcpyBatch:
    # stream(false), then aclrtSynchronizeStreamWithTimeout): with TASK_QUEUE_ENABLE=1, kernels still in the
    # queue (the destinations' zeroing) run after the copy, on a device as here. Synchronising first is the
    # caller's part.
    run_npu("""
        sources = [torch.arange(n, dtype=torch.float32) * (i + 1) for i, n in enumerate((4, 7, 33))]
        devices = [torch.zeros(s.shape, device="npu") for s in sources]
        torch.npu.synchronize()
        torch._foreach_copy_(devices, sources)
        assert all(torch.equal(d.cpu(), s) for d, s in zip(devices, sources))
        back = [torch.zeros(s.shape) for s in sources]
        doubled = [d * 2 for d in devices]
        torch.npu.synchronize()
        torch._foreach_copy_(back, doubled)
        assert all(torch.equal(b, s * 2) for b, s in zip(back, sources))
        tripled = [(s * 3).pin_memory() for s in sources]  # page-locked: queued on the stream
        torch._foreach_copy_(devices, tripled, non_blocking=True)
        torch.npu.synchronize()
        assert all(torch.equal(d.cpu(), s * 3) for d, s in zip(devices, sources))
    """)


def test_an_external_event_is_waited_for_before_it_is_recorded(run_npu):
    # ExternalEvent.wait queues a wait on a device word (aclrtValueWait), record writes it (aclrtValueWrite).
    run_npu("""
        event = torch.npu.ExternalEvent()
        producer, consumer = torch.npu.Stream(), torch.npu.Stream()
        a = torch.randn(256, 256, device="npu")
        out = torch.zeros(256, 256, device="npu")
        event.wait(consumer)
        with torch.npu.stream(producer):
            b = a @ a
        with torch.npu.stream(consumer):
            out.copy_(b)
        assert not consumer.query()
        event.record(producer)
        torch.npu.synchronize()
        assert torch.allclose(out.cpu(), a.cpu() @ a.cpu(), rtol=1e-4, atol=1e-4)
        # Reset (torch_npu's graph capture reuses one per captured operator), it holds a stream again
        # until its next record: the second round reads the second product, not the first.
        event.reset(producer)
        torch.npu.synchronize()  # the reset has run before the next wait (streams.py: the caller's part)
        event.wait(consumer)
        with torch.npu.stream(producer):
            c = b @ a + 1
        with torch.npu.stream(consumer):
            out.copy_(c)
        assert not consumer.query()
        event.record(producer)
        torch.npu.synchronize()
        expected = (a.cpu() @ a.cpu()) @ a.cpu() + 1
        assert torch.allclose(out.cpu(), expected, rtol=1e-3, atol=1e-2)
    """)


def test_a_wait_for_an_external_event_never_recorded_fails_its_synchronisation_and_the_exit_ends(run_npu):
    # The wait can never end (no thread records the event): the synchronisation says so instead of waiting
    # for ever, and so does torch_npu's exit handler, which synchronises the device and resets it.
    out = run_npu("""
        event, stream = torch.npu.ExternalEvent(), torch.npu.Stream()
        x = torch.ones(4, device="npu")
        event.wait(stream)
        with torch.npu.stream(stream):
            y = x + 1
        try:
            stream.synchronize()
        except RuntimeError as error:
            assert "cannot finish" in str(error) and "(aclrtValueWait), its next, waits for a write" in str(error), error
            print("refused")
        else:
            raise AssertionError("the synchronisation returned, its stream's work waiting for a record never made")
    """, fresh=True, timeout=60)
    assert "refused" in out, out


def test_prefetch_keeps_the_values(run_npu):
    # torch_npu.npu_prefetch is aclrtCmoAsync's prefetch: the simulator's memory is coherent.
    run_npu("""
        x = torch.arange(1024, dtype=torch.float32, device="npu")
        torch_npu.npu_prefetch(x, None, 4096)
        torch_npu.npu_prefetch(x, None, 1 << 20, 64)
        torch.npu.synchronize()
        assert torch.equal(x.cpu(), torch.arange(1024, dtype=torch.float32))
    """)
