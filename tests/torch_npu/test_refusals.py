"""What the simulator does not model reaches torch_npu as an exception naming the call, not as the
warning its NPU_CHECK_ERROR prints for CANN's ACL_ERROR_RT_FEATURE_NOT_SUPPORT before going on as if
the call had succeeded (runtime/sim/src/ascendcl/not_modelled.cpp); the one query torch_npu answers
with its own default on that status still gets it, and its default."""

from gen.ir import Soc

# torch_npu's warning for 207000: printed once per call site, after which the caller uses whatever
# the skipped call left in its outputs.
SWALLOWED = "Feature is not supported"


def test_a_refused_query_raises_naming_the_call_and_the_device_goes_on(run_npu):
    # Core limits and utilisation are queries whose answers torch_npu hands back: skipped, they were
    # uninitialised memory (get_device_limit gave {'cube_core_num': 32724, ...}) and 0. Modelled (a
    # later simulator), they must answer the simulated chip's figures instead.
    cores = {"cube_core_num": Soc.ASCEND910B.ai_cores, "vector_core_num": Soc.ASCEND910B.vector_cores}
    run_npu(f"""
        torch.ones(1, device="npu")  # torch_npu asks limits of an initialised device only
        def refused_or(call, name, check):
            try:
                value = call()
            except RuntimeError as error:
                text = str(error)
                assert name in text and "not modelled" in text and "200006" in text, text
            else:
                assert check(value), (name, value)
        refused_or(lambda: torch.npu.get_device_limit(0), "aclrtGetDeviceResLimit", lambda v: v == {cores!r})
        refused_or(lambda: torch.npu.get_stream_limit(torch.npu.current_stream()), "aclrtGetStreamResLimit",
                   lambda v: v == {cores!r})
        refused_or(lambda: torch.npu.utilization(0), "aclrtGetDeviceUtilizationRate", lambda v: 0 <= v <= 100)
        assert (torch.ones(3, device="npu") + 1).cpu().tolist() == [2.0] * 3
    """, env={"ACLNN_SIM_SOC": "Ascend910B"}, fresh=True)


def test_refused_work_raises_naming_the_call(run_npu):
    # Setting a core limit is work torch_npu relies on later (its kernels would run on the cores it
    # set); skipped, set_device_limit returned None and nothing was limited.
    output = run_npu("""
        torch.ones(1, device="npu")
        for call, name in ((lambda: torch.npu.set_device_limit(0, 1, 1), "aclrtSetDeviceResLimit"),
                           (lambda: torch.npu.set_stream_limit(torch.npu.current_stream(), 1, 1),
                            "aclrtSetStreamResLimit")):
            try:
                call()
            except RuntimeError as error:
                assert name in str(error) and "not modelled" in str(error), error
            else:
                # Modelled: the limit set is the limit read back.
                read = (torch.npu.get_device_limit(0) if "Device" in name
                        else torch.npu.get_stream_limit(torch.npu.current_stream()))
                assert read == {"cube_core_num": 1, "vector_core_num": 1}, read
    """, fresh=True)
    assert SWALLOWED not in output, output


def test_the_uuid_query_keeps_torch_npus_default_and_no_warning(run_npu):
    # aclrtDeviceGetUuid answers a uuid now (rt21); were a case of it refused, torch_npu compares its
    # status with 207000 and leaves the uuid unset (not_modelled.cpp keeps 207000 for it), so the
    # properties query works either way, with no warning.
    output = run_npu("""
        props = torch.npu.get_device_properties(0)
        assert props.total_memory > 0 and props.name, props
        print("uuid", props.uuid)
    """, fresh=True)
    assert SWALLOWED not in output, output


def test_a_refused_event_record_in_a_capture_raises_naming_the_call(run_npu):
    # A record of an interprocess event inside an NPU graph capture is not modelled. Swallowed, the
    # capture ended without the record and the graph replayed without it, with no error (a consumer
    # waiting for the event would not wait). Blocking mode: the record is checked where it is made.
    output = run_npu("""
        x = torch.ones(4, device="npu")
        event = torch.npu.Event(interprocess=True)
        graph = torch.npu.NPUGraph()
        try:
            with torch.npu.graph(graph):
                y = x + 1
                event.record()
        except RuntimeError as error:
            assert "aclrtRecordEvent" in str(error) and "ACL_EVENT_IPC" in str(error), error
            assert "200006" in str(error), error
        else:
            raise AssertionError("the capture ended without the refused record")
        assert (x * 2).cpu().tolist() == [2.0] * 4
    """, env={"ASCEND_LAUNCH_BLOCKING": "1"})
    assert SWALLOWED not in output, output
