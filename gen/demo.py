"""`make demo`: call every generated function with its page's own example inputs, print the result.

The inputs are those the page's 调用示例 C++ creates (`API.example_call`, recovered by the
parser), so what this prints is what the example program would print, run through `import
aclnn` on the active backend (the simulator here, CANN on an NPU). Uses only the installed
package: `aclnn.apis()` carries the IR.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any, Optional, Sequence

import ml_dtypes
import numpy as np

from gen import names
from gen.ir import DType


def example_value(param: dict[str, Any], arg: dict[str, Any]) -> Any:
    """The Python value of one example argument: an array for a tensor, a typed NumPy scalar for
    an aclScalar (the example's dtype), a plain value for an attribute, a list for an array."""
    from aclnn._dtypes import NUMPY_DTYPES  # the package's table: the demo runs on the built package

    # The page's dtype name (aclDataType without ACL_); float32 where NumPy cannot hold it.
    dtype = NUMPY_DTYPES.get(arg.get("dtype") or "", np.float32)
    values = arg["values"]
    kind = param["kind"]
    if arg.get("members"):  # a tensor list's arrays, a scalar list's scalars
        return [example_value({"kind": "tensor" if member.get("shape") is not None else "scalar"}, member)
                for member in arg["members"]]
    if arg.get("shape") is not None:
        return np.array(values, dtype=np.float64).astype(dtype).reshape(arg["shape"])
    if kind == "string":
        return arg["text"]
    if kind == "dtype":
        return arg["dtype"]  # the page's name (FLOAT, DOUBLE), as the bindings take it
    if kind == "scalar":
        return dtype(values[0])
    if kind == "bool":
        return bool(values[0])
    if kind == "int":
        return int(values[0])
    if kind == "int_array":
        return [int(v) for v in values]
    if kind == "bool_array":
        return [bool(v) for v in values]
    if kind == "float_array":
        return list(values)
    return values[0]


def example_args(record: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The example call's arguments by parameter name ({} when the call could not be read)."""
    return {a["param"]: a for a in (record.get("example_call") or {"args": []})["args"]}


def example_kwargs(record: dict[str, Any]) -> tuple[Optional[dict[str, Any]], str]:
    """The keyword arguments of the API's example call, or None and why there are none."""
    if not record.get("example_call"):
        if "main(" not in (record.get("example") or ""):
            # The derived pages (op_docs/derived/: op-plugin's calls no page documents) have none.
            return None, NO_EXAMPLE
        return None, "the page's example call could not be read"
    given = example_args(record)
    nulls = set(record["example_call"].get("null_params", ()))
    kwargs: dict[str, Any] = {}
    for param in record["params"]:
        if param["direction"] == "out":
            continue
        arg = given.get(param["name"])
        if arg is None and param["name"] in nulls:
            # The example passes nullptr: None, as the bindings take an absent tensor (aclnnBatchNormElemt's
            # weight, which its table does not call optional, is admitted absent by its example).
            kwargs[keyword(param)] = None
            continue
        if arg is None:
            if param["optional"]:
                continue
            return None, f"the example gives no value for {param['name']}"
        for tensor in arg.get("members") or [arg]:
            if tensor.get("shape") is not None and not _numpy_holds(tensor.get("dtype")):
                # aclnnMxToBlockMxQuant's FLOAT4_E2M1 x: an array of another dtype is another call, which
                # phase 1 refuses for a dtype the example never passed.
                return None, (f"the example's {param['name']} is {tensor['dtype']}, which no NumPy dtype (and so no "
                              f"argument of the bindings) holds")
            if tensor.get("shape") is not None and len(tensor["values"]) != int(np.prod(tensor["shape"])):
                # aclnnHardtanh's: 4 values for [4, 2] (the program copies past its host vector).
                return None, (f"the example's {param['name']} holds {len(tensor['values'])} values for the shape "
                              f"{list(tensor['shape'])}")
        kwargs[keyword(param)] = example_value(param, arg)
    return kwargs, ""


def _numpy_holds(name: Optional[str]) -> bool:
    """Whether a NumPy array (and so the bindings' argument) holds the page's dtype `name` (None: the
    example gave none, FLOAT by default)."""
    return name is None or name not in DType.__members__ or DType[name].numpy is not None


def keyword(param: dict[str, Any]) -> str:
    return names.python_identifier(names.snake_case(param["name"]))


def example_outs(record: dict[str, Any]) -> Any:
    """out= as the example makes its outputs (of its shapes and dtypes: what the outputs held before
    the call is of no use), for the APIs whose output shapes follow from arguments by a rule the
    bindings do not apply (embedding, cat, permute); None when the example does not give every output."""
    from aclnn._dtypes import NUMPY_DTYPES

    given = example_args(record)
    outs = [given.get(p["name"], {}) for p in record["params"] if p["direction"] == "out"]

    def made(arg: dict[str, Any]) -> Any:
        if arg.get("members"):  # a list of tensors
            return [made(member) for member in arg["members"]]
        return None if arg.get("shape") is None else np.zeros(arg["shape"], NUMPY_DTYPES.get(arg.get("dtype") or "", np.float32))

    arrays = [made(arg) for arg in outs]
    if not arrays or any(a is None or (isinstance(a, list) and any(m is None for m in a)) for a in arrays):
        return None
    return arrays[0] if len(arrays) == 1 else tuple(arrays)


def show(value: Any) -> str:
    if isinstance(value, (list, tuple)) and value and all(isinstance(v, np.ndarray) for v in value):
        return "[" + "; ".join(show(v) for v in value) + "]"
    if isinstance(value, np.ndarray):
        # Flattened, on one line: the examples print their results that way (result[i] is: ...).
        flat = (value.astype(np.float32) if value.dtype == ml_dtypes.bfloat16 else value).ravel()
        body = np.array2string(flat, precision=6, separator=", ", threshold=16, max_line_width=10**6)
        return f"{value.dtype}{list(value.shape)} {body}"
    return repr(value)


NO_EXAMPLE = "the page has no example program"

# Why a call raised, in the words the summary groups them under: whose fault it is, for a user.
PAGE_RULES = "the page's example breaks the page's own rules (the library refuses it in its first phase)"
PAGE_DATA = "the page's example passes data the op cannot take (the device's kernel faults on them)"
NOT_SIMULATED = "the simulator does not model this call (it says so; on an NPU the library decides)"
NOT_PASSED = "the bindings refuse the example's arguments (the demo or the reader did not make the page's call)"


def cause(error: Exception) -> str:
    """The summary's group of an error a call raised."""
    import aclnn

    if isinstance(error, (aclnn.InvalidParamError, aclnn.ParamError, aclnn.NullptrError)):
        return PAGE_RULES
    if isinstance(error, aclnn.AclnnRuntimeError):
        return PAGE_DATA
    if isinstance(error, aclnn.AclnnError):
        return NOT_SIMULATED
    return NOT_PASSED


def supported_soc(record: dict[str, Any], soc: str) -> Optional[str]:
    """A chip the page supports when it marks `soc`'s unsupported (aclnnAddV3 is for Ascend950 only),
    None when `soc` is supported or the page names no chip that is."""
    from aclnn._socs import SOCS

    family = max((f for f in SOCS if soc.startswith(f)), key=len, default=None)
    marks = {p["soc"]: p["supported"] for p in record.get("products", ()) if p.get("soc")}
    if family is None or marks.get(family, True):
        return None
    return next((f for f in SOCS if marks.get(f)), None)


def call(record: dict[str, Any], kwargs: dict[str, Any]) -> Any:
    """The API called with the example's arguments, and out= as the example makes its outputs where
    the bindings cannot shape them."""
    import aclnn

    function = getattr(aclnn, record["python_name"])
    try:
        return function(**kwargs)
    except TypeError as error:
        outs = example_outs(record)
        if "pass out=" not in str(error) or outs is None:
            raise
    print("  out= as the example makes it (the bindings cannot shape this output)")
    return function(**kwargs, out=outs)


def run(selected: Sequence[str] = ()) -> int:
    import aclnn

    info = aclnn.backend()
    print(f"aclnn backend: {info} (soc {info.soc}; {info.reason})")
    succeeded = 0
    unreadable: list[str] = []
    without_example: list[str] = []
    raised: dict[str, list[str]] = {}
    for record in aclnn.apis():
        name = record["python_name"]
        if selected and name not in selected and record["name"] not in selected:
            continue
        print(f"\n{record['name']} -> aclnn.{name}   [{record['source']}]")
        kwargs, why = example_kwargs(record)
        if kwargs is None:
            (without_example if why == NO_EXAMPLE else unreadable).append(record["name"])
            print(f"  skipped: {why}")
            continue
        for key, value in kwargs.items():
            print(f"  {key:>16} = {show(value)}")
        # A page written for other chips runs on one of them: the simulator can be any.
        chip = supported_soc(record, info.soc) if info == "sim" and info.soc else None
        if chip is not None:
            print(f"  on {chip}: the page marks {info.soc}'s products unsupported")
            aclnn.sim_set_soc(chip)
        try:
            result = call(record, kwargs)
        except (TypeError, ValueError, aclnn.AclnnError) as error:
            # What the library or the bindings answer the page's example is the result to show (a
            # user's call would get the same), grouped by whose fault it is in the summary.
            raised.setdefault(cause(error), []).append(record["name"])
            status = f"status {error.status} {error.status_name}: " if isinstance(error, aclnn.AclnnError) else ""
            print(f"  raised {type(error).__name__}: {status}{error}")
            continue
        finally:
            if chip is not None and info.soc:
                aclnn.sim_set_soc(info.soc)
        succeeded += 1
        outputs = [p["name"] for p in record["params"] if p["direction"] != "in"]
        for output, value in zip(outputs, result if isinstance(result, tuple) else (result,)):
            print(f"  {'-> ' + names.snake_case(output):>16} = {show(value)}")
    print(f"\n{succeeded} calls returned results; {sum(map(len, raised.values()))} raised an error; "
          f"{len(unreadable)} without readable example inputs; {len(without_example)} without an example")
    for group in (PAGE_RULES, PAGE_DATA, NOT_SIMULATED, NOT_PASSED):
        if raised.get(group):
            print(f"  {len(raised[group])} raised because {group}: {', '.join(raised[group])}")
    if unreadable:
        print(f"  without readable inputs (the page's example builds them in a way gen/parse/extractors/"
              f"example_call.py does not follow): {', '.join(unreadable)}")
    if without_example:
        print(f"  without an example program on their page: {', '.join(without_example)}")
    return 0


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m gen.demo", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("apis", nargs="*", help="only these (Python or aclnn names)")
    return run(parser.parse_args(argv).apis)


if __name__ == "__main__":
    sys.exit(main())
