// The CANN libraries that torch_npu links or opens for what the simulator keeps in libascendcl or does
// not do: libruntime.so (the Ascend runtime's rt* calls, which CANN's libascendcl pulls in: here
// libascendcl defines them), libge_runner.so and libgraph.so (the graph engine, for graph mode) and
// libacl_tdt_channel.so (host-device data queues). torch_npu 2.13 imports no symbol of its own from
// them (tests/torch_npu/test_surface.py checks it), so each is built from this file and defines
// nothing; each depends on libascendcl.so, so a name looked up in one of them finds the runtime's.
// libhcomm.so, where torch_npu looks up HCCL's group calls and communication memory, depends on
// libhccl.so, which defines them, in the same way.
