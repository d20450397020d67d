"""torch_npu's runtime on the simulator: streams, events, synchronisation, memory statistics, the
caching allocator's expandable segments (virtual memory), format casts, torch.distributed with
one rank (HCCL) and NPU graphs (capture and replay, aclmdlRI*)."""

import pytest


def test_streams_and_events(run_npu):
    run_npu("""
        a = torch.randn(64, 64)
        d = a.npu()
        side = torch.npu.Stream()
        assert side != torch.npu.current_stream()
        with torch.npu.stream(side):
            y = d @ d
        torch.npu.current_stream().wait_stream(side)
        assert torch.allclose((y + 1).cpu(), a @ a + 1, rtol=1e-4, atol=1e-4)
        start, end = torch.npu.Event(enable_timing=True), torch.npu.Event(enable_timing=True)
        start.record()
        for _ in range(10):
            d = d * 1.0001
        end.record()
        end.synchronize()
        assert end.query() and start.elapsed_time(end) >= 0
        torch.npu.synchronize()
        assert side.query()
        high = torch.npu.Stream(priority=-1)
        with torch.npu.stream(high):
            z = (d * 2).cpu()
        assert torch.allclose(z, (d * 2).cpu())
    """)


def test_npu_graphs_capture_and_replay(run_npu):
    # torch.npu.graph captures a stream's work into a model (aclmdlRICaptureBegin..End) and replay()
    # runs it again (aclmdlRIExecuteAsync) on the inputs' current values. make_graphed_callables
    # captures the backward too, on the autograd engine's streams, which join the capture through
    # events. A synchronisation inside a capture is refused (and invalidates it), never run.
    run_npu("""
        a = torch.ones(4, device="npu")
        graph = torch.npu.NPUGraph()
        with torch.npu.graph(graph):
            b = a * 2
            c = b + a
        a.fill_(3.0)
        graph.replay()
        assert c.cpu().tolist() == [9.0] * 4 and b.cpu().tolist() == [6.0] * 4
        a.fill_(5.0)
        graph.replay()
        graph.replay()
        assert c.cpu().tolist() == [15.0] * 4

        model = torch.nn.Sequential(torch.nn.Linear(8, 8), torch.nn.ReLU()).npu()
        x = torch.randn(2, 8, device="npu", requires_grad=True)
        graphed = torch.npu.make_graphed_callables(model, (x,))
        for _ in range(2):
            x2 = torch.randn(2, 8, device="npu", requires_grad=True)
            y = graphed(x2)
            y.sum().backward()
            expected_input = x2.detach().clone().requires_grad_(True)
            model(expected_input).sum().backward()
            assert torch.allclose(y.cpu(), model(x2).cpu(), atol=1e-6)
            assert torch.allclose(x2.grad.cpu(), expected_input.grad.cpu(), atol=1e-6)

        broken = torch.npu.NPUGraph()
        try:
            with torch.npu.graph(broken):
                (a * 2).sum().item()
        except RuntimeError as error:
            assert "107027" in str(error) or "107025" in str(error), error
        else:
            raise AssertionError("a synchronisation inside a capture ran")

        # A task group (graph_task_group_begin/end) re-recorded on another stream with new arguments
        # (graph_task_update_begin/end, torch_npu's graph parameter updates) runs with them at the next
        # replay; the update itself computes nothing.
        x1, x2 = torch.full((4,), 2.0, device="npu"), torch.full((4,), 7.0, device="npu")
        out = torch.zeros(4, device="npu")
        grouped = torch.npu.NPUGraph()
        with torch.npu.graph(grouped):
            capturing = torch.npu.current_stream()
            torch.npu.graph_task_group_begin(capturing)
            torch.mul(x1, 3, out=out)
            handle = torch.npu.graph_task_group_end(capturing)
        grouped.replay()
        assert out.cpu().tolist() == [6.0] * 4
        updater = torch.npu.Stream()
        with torch.npu.stream(updater):
            torch.npu.graph_task_update_begin(updater, handle)
            torch.mul(x2, 3, out=out)
            torch.npu.graph_task_update_end(updater)
        updater.synchronize()
        assert out.cpu().tolist() == [6.0] * 4
        grouped.replay()
        assert out.cpu().tolist() == [21.0] * 4
    """)


def test_sleep_holds_the_stream(run_npu):
    # torch.npu._sleep (aclnnSleep, whose page supports Ascend 950 alone) keeps the current stream busy
    # for cycles at 1.65 GHz: the call returns at once, an event recorded after it completes later, and
    # work queued behind it waits, as frameworks' stream tests rely on.
    run_npu("""
        import time
        x = torch.ones(4).npu()
        torch.npu.synchronize()
        start = time.monotonic()
        torch.npu._sleep(int(1.65e9 * 0.3))
        y = x + 1
        done = torch.npu.Event()
        done.record()
        # Asked before the sleep can have ended, the event is pending (a loaded machine may ask late).
        asked = time.monotonic()
        assert not done.query() or asked - start >= 0.29
        done.synchronize()
        assert time.monotonic() - start >= 0.29 and torch.equal(y.cpu(), torch.full((4,), 2.0))
    """, env={"ACLNN_SIM_SOC": "Ascend950"})


def test_profiling_annotations_are_accepted_and_super_kernels_refused_by_name(run_npu):
    # torch_npu.npu.mstx opens libmsprofiler.so by name: its marks and ranges are profiling calls, which
    # the simulator accepts as the no-ops of a tool that is not collecting (torch_npu hands out range
    # id 0 while no profiler runs). torch_npu's Python wrappers swallow and log a failure, so the
    # bindings under them are called directly. Graph-mode super kernels need libascendsk.so, which
    # the toolkit does not hold: the call raises naming it (tests/torch_npu/test_surface.py).
    run_npu("""
        mstx = torch_npu._C._mstx
        stream = torch.npu.current_stream()
        mstx._mark_on_host("mark", "default")
        mstx._mark("mark", stream.stream_id, stream.device_index, stream.device_type, "default")
        mstx._range_end(mstx._range_start_on_host("range", "default"), "default")
        mstx._range_end(mstx._range_start("range", stream.stream_id, stream.device_index, stream.device_type,
                                          "mine"), "mine")
        try:
            torch.ops.npu.super_kernel_scope_begin("scope")
        except RuntimeError as error:
            assert "libascendsk.so" in str(error), error
        else:
            raise AssertionError("super_kernel_scope_begin ran without libascendsk.so")
    """)


def test_a_declined_operator_fails_at_the_synchronisation_and_the_next_ones_compute(run_npu):
    # What the simulator does not compute (561003, npu_swiglu_quant's INT4 output) fails on the stream,
    # not in the execute call torch_npu runs on its task-queue thread: a failure there made the queue
    # drop every later operator without an error, their outputs zeros.
    run_npu("""
        x = torch.randn(4, 32).npu()
        try:
            torch_npu.npu_swiglu_quant(x, quant_mode=1, dst_type=torch.quint4x2)[0].cpu()
        except RuntimeError as error:
            # torch_npu's message carries the status; the simulator's (naming the API) is the recent error.
            assert "561003" in str(error), error
        else:
            raise AssertionError("the declined call returned")
        assert torch.abs(torch.tensor([-1.0, 2.0]).npu()).cpu().tolist() == [1.0, 2.0]
        assert (torch.tensor([-1.0, 2.0]).npu() + 1).cpu().tolist() == [0.0, 3.0]
    """, fresh=True)


@pytest.mark.parametrize("first_call", ["torch.npu.get_device_properties(0)", "torch.npu.mem_get_info()"])
def test_device_queries_before_any_device_is_set(run_npu, first_call):
    # torch_npu's lazy set_device mode sets no device at initialisation: it passes aclInit an acl.json
    # whose defaultDevice ({"default_device": "0"}) lets CANN serve a thread that set none, and its
    # device properties and memory queries run before any tensor exists (107002 without it).
    run_npu(f"""
        print(repr({first_call}))
        props = torch.npu.get_device_properties(0)
        free, total = torch.npu.mem_get_info()
        assert props.total_memory == total and 0 < free <= total, (props, free, total)
        assert torch.npu.current_device() == 0
        assert (torch.ones(3, device="npu") + 1).cpu().tolist() == [2.0] * 3
    """, fresh=True)


def test_memory_statistics(run_npu):
    run_npu("""
        before = torch.npu.memory_allocated()
        x = torch.empty(1 << 20, device="npu")          # 4 MiB
        assert torch.npu.memory_allocated() - before >= 4 << 20
        assert torch.npu.memory_reserved() >= torch.npu.memory_allocated()
        del x
        assert torch.npu.memory_allocated() == before
        torch.npu.empty_cache()
        free, total = torch.npu.mem_get_info()
        assert 0 < free <= total
        assert torch.npu.max_memory_allocated() >= 4 << 20
    """)


def test_expandable_segments_map_virtual_memory(run_npu):
    # PYTORCH_NPU_ALLOC_CONF=expandable_segments:True: the caching allocator reserves address space
    # and maps physical memory into it as it grows (aclrtReserveMemAddress, aclrtMallocPhysical,
    # aclrtMapMem); kernels and copies then work on the mapped memory.
    run_npu("""
        a = torch.randn(1 << 20)
        d = a.npu()
        e = d * 2 + 1
        assert torch.allclose(e.cpu(), a * 2 + 1)
        big = torch.ones(8 << 20, device="npu")
        assert big.sum().item() == 8 << 20
    """, env={"PYTORCH_NPU_ALLOC_CONF": "expandable_segments:True"})


def test_distributed_with_one_rank(run_npu):
    run_npu("""
        import os, socket
        import torch.distributed as dist
        with socket.socket() as probe:            # a free port of this machine: runs may overlap
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port))
        dist.init_process_group("hccl", rank=0, world_size=1)
        t = torch.arange(6, dtype=torch.float32).npu()
        dist.all_reduce(t)
        assert torch.equal(t.cpu(), torch.arange(6, dtype=torch.float32))
        gathered = [torch.zeros(6).npu()]
        dist.all_gather(gathered, t)
        assert torch.equal(gathered[0].cpu(), torch.arange(6, dtype=torch.float32))
        # A memory pool registered as a symmetric window (ProcessGroupHCCL.register_mem_pool(pool, symm=True):
        # HCCLComm::registerSegment -> HcclCommSymWinRegister, the lookup torch_npu 2.13 makes by name) is
        # refused by name with HCCL_E_NOT_SUPPORT (5); torch_npu refuses symm=False itself, and never reaches
        # HcclCommSymWinDeregister for a pool whose registration failed ("is not registered").
        hccl = dist.group.WORLD._get_backend(torch.device("npu"))
        pool = torch.npu.MemPool()
        with torch.npu.use_mem_pool(pool):
            held = torch.ones(1024, device="npu")
        try:
            hccl.register_mem_pool(pool, True)
        except RuntimeError as error:
            assert "hcclCommSymWinRegister, error code is 5" in str(error), error
            assert "HcclCommSymWinRegister: the simulator's HCCL does not model symmetric memory windows" in str(error), error
        else:
            raise AssertionError("a symmetric window was registered by an HCCL that does not model them")
        dist.destroy_process_group()
    """)


def test_batch_isend_irecv_with_one_rank(run_npu):
    # torch_npu groups the batch (HcclGroupStart/End, looked up in libhcomm.so) around one HcclSend or
    # HcclRecv per operation: on one rank the group's end pairs each send to this rank with a receive.
    run_npu("""
        import os, socket
        import torch.distributed as dist
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port))
        dist.init_process_group("hccl", rank=0, world_size=1)
        a, b = torch.arange(6, dtype=torch.float32).npu(), torch.tensor([5, -3], dtype=torch.int32).npu()
        got_a, got_b = torch.zeros(6).npu(), torch.zeros(2, dtype=torch.int32).npu()
        ops = [dist.P2POp(dist.isend, a, 0), dist.P2POp(dist.irecv, got_a, 0),
               dist.P2POp(dist.isend, b, 0), dist.P2POp(dist.irecv, got_b, 0)]
        for request in dist.batch_isend_irecv(ops):
            request.wait()
        assert torch.equal(got_a.cpu(), a.cpu()) and torch.equal(got_b.cpu(), b.cpu())
        try:  # a send nothing receives: refused at the group's end, never a silent success
            for request in dist.batch_isend_irecv([dist.P2POp(dist.isend, a, 0)]):
                request.wait()
            torch.npu.synchronize()
        except RuntimeError as error:
            assert "HcclGroupEnd" in str(error) and "1 HcclSend to this rank but 0 HcclRecv" in str(error), error
        else:
            raise AssertionError("an unpaired send succeeded")
    """)


def test_cann_version_and_deterministic_mode(run_npu):
    # torch_npu chooses op-plugin's routes and its test suites' skips (SkipIfNotGteCANNVersion) by
    # the CANN version: the simulator answers the release its pages document. Deterministic
    # algorithms make torch_npu set the context's deterministic and strong-consistency options
    # before each operator.
    output = run_npu("""
        from torch_npu.npu.utils import get_cann_version, _is_gte_cann_version
        print("versions", get_cann_version("CANN"), get_cann_version("RUNTIME"), repr(get_cann_version("DRIVER")))
        print("gte", _is_gte_cann_version("8.3.RC1"), _is_gte_cann_version("9.0.0"), _is_gte_cann_version("9.1.0"))
        torch.use_deterministic_algorithms(True)
        x = torch.randn(8, 5)
        assert torch.allclose((x.npu() * 2 + 1).sum(0).cpu(), (x * 2 + 1).sum(0), rtol=1e-5, atol=1e-5)
        print("deterministic ok")
    """)
    assert "versions 9.0.0 9.0.0 ''" in output, output
    assert "gte True True False" in output, output
    assert "deterministic ok" in output, output
    older = run_npu("""
        from torch_npu.npu.utils import get_cann_version
        print("version", get_cann_version("CANN"))
    """, env={"ACLNN_SIM_CANN_VERSION": "8.3.RC1"})
    assert "version 8.3.RC1" in older, older
