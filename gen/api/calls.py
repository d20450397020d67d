"""What a call of a bound API is built from where the page states no value: the dtypes its host
arrays can be made in and a shape of each rank. The generated suites (gen.emit.tests) and make
corpus's calls (gen.corpus.calls) build their arguments from these same ones."""

from __future__ import annotations

from gen.ir import DType

# What a test can pass to the bindings and compute a PyTorch golden for: the dtypes NumPy (with
# ml_dtypes) holds that PyTorch also promotes with the others (not UINT16..UINT64, not FLOAT8_*),
# and INT4, which promotes with none but whose values (-8..7) every golden reads as integers (the
# bindings pack ml_dtypes.int4 arrays as CANN lays INT4 out).
EXPRESSIBLE = tuple(d for d in DType if d.numpy and (d.promotes_with_others or d is DType.INT4))

# Shapes by rank: small (at most 48 elements), with extents of 1 among them (which broadcast
# and whose strides do not matter) and no two equal adjacent extents (so transposes show).
SHAPES = {0: (), 1: (5,), 2: (3, 4), 3: (2, 3, 4), 4: (2, 3, 1, 4), 5: (2, 1, 3, 2, 2), 6: (2, 1, 2, 3, 1, 2),
          7: (1, 2, 1, 3, 2, 1, 2), 8: (2, 1, 2, 1, 3, 1, 2, 2)}
