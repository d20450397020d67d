import os

# torch is the CPU reference here; with torch_npu installed, `import torch` would load it, which needs
# a CANN toolkit (bench.torch_npu starts its own process with the simulator's toolkit environment).
os.environ.setdefault("TORCH_DEVICE_BACKEND_AUTOLOAD", "0")

from bench.run import main  # noqa: E402

raise SystemExit(main())
