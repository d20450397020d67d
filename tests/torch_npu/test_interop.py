"""The README's interop example, in one process: aclnn-bindgen's generated calls on torch_npu's
memory and streams (Tensor.from_pointer, Stream.from_handle), with torch_npu's caching allocator and
aclnn's both live, across streams, and a device fault reported to the side that made the call."""


def test_generated_calls_on_torch_npu_memory_and_streams(run_npu):
    run_npu("""
        import aclnn
        x = torch.randn(1024).npu()
        out = torch.empty_like(x)
        ax = aclnn.Tensor.from_pointer(x.data_ptr(), tuple(x.shape), x.dtype, x.stride(), owner=x)
        aout = aclnn.Tensor.from_pointer(out.data_ptr(), tuple(out.shape), out.dtype, out.stride(), owner=out)
        torch_stream = aclnn.Stream.from_handle(torch.npu.current_stream().npu_stream)
        with aclnn.stream(torch_stream):
            aclnn.leaky_relu_backward(ax, ax, 0.1, False, out=aout)   # queued on torch's stream
        want = torch.where(x.cpu() > 0, x.cpu(), x.cpu() * 0.1)
        assert torch.allclose(out.cpu(), want), (out.cpu() - want).abs().max()

        # Another torch stream, ordered by torch's own event; aclnn's allocator used alongside.
        side = torch.npu.Stream()
        side.wait_stream(torch.npu.current_stream())
        y = aclnn.to_device(x.cpu().numpy())
        with torch.npu.stream(side), aclnn.stream(aclnn.Stream.from_handle(side.npu_stream)):
            aclnn.leaky_relu_backward(ax, y, 0.5, False, out=aout)
        torch.npu.current_stream().wait_stream(side)
        xs = x.cpu()
        assert torch.allclose((out * 1).cpu(), torch.where(xs > 0, xs, xs * 0.5))
    """)


def test_a_device_fault_of_a_generated_call_is_reported_to_the_caller(run_npu):
    output = run_npu("""
        import aclnn
        x = torch.randn(256).npu()
        out = torch.empty_like(x)
        ax = aclnn.Tensor.from_pointer(x.data_ptr(), tuple(x.shape), x.dtype, x.stride(), owner=x)
        aout = aclnn.Tensor.from_pointer(out.data_ptr(), tuple(out.shape), out.dtype, out.stride(), owner=out)
        with aclnn.stream(aclnn.Stream.from_handle(torch.npu.current_stream().npu_stream)):
            aclnn.leaky_relu_backward(ax, ax, 0.1, False, out=aout)
        try:
            aclnn.synchronize()
        except aclnn.AclnnRuntimeError as error:
            print("reported:", error.api)
        else:
            raise AssertionError("the injected fault was not reported")
    """, env={"ACLNN_SIM_FAULT": "aclnnLeakyReluBackward:1"})
    assert "reported: aclnnLeakyReluBackward" in output, output
