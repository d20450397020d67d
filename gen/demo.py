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


def example_value(param: dict[str, Any], arg: dict[str, Any]) -> Any:
    """The Python value of one example argument: an array for a tensor, a typed NumPy scalar for
    an aclScalar (the example's dtype), a plain value for an attribute, a list for an array."""
    from aclnn._dtypes import NUMPY_DTYPES  # the package's table: the demo runs on the built package

    # The page's dtype name (aclDataType without ACL_); float32 where NumPy cannot hold it.
    dtype = NUMPY_DTYPES.get(arg.get("dtype") or "", np.float32)
    values = arg["values"]
    kind = param["kind"]
    if arg.get("shape") is not None:
        return np.array(values, dtype=np.float64).astype(dtype).reshape(arg["shape"])
    if kind == "scalar":
        return dtype(values[0])
    if kind == "bool":
        return bool(values[0])
    if kind == "int":
        return int(values[0])
    if kind in ("int_array", "bool_array"):
        return [int(v) for v in values]
    if kind == "float_array":
        return list(values)
    return values[0]


def example_args(record: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The example call's arguments by parameter name ({} when the call could not be read)."""
    return {a["param"]: a for a in (record.get("example_call") or {"args": []})["args"]}


def example_kwargs(record: dict[str, Any]) -> tuple[Optional[dict[str, Any]], str]:
    """The keyword arguments of the API's example call, or None and why there are none."""
    if not record.get("example_call"):
        return None, "the page's example call could not be read"
    given = example_args(record)
    kwargs: dict[str, Any] = {}
    for param in record["params"]:
        if param["direction"] == "out":
            continue
        arg = given.get(param["name"])
        if arg is None:
            if param["optional"]:
                continue
            return None, f"the example gives no value for {param['name']}"
        if arg.get("shape") is not None and len(arg["values"]) != int(np.prod(arg["shape"])):
            # aclnnHardtanh's: 4 values for [4, 2] (the program copies past its host vector).
            return None, (f"the example's {param['name']} holds {len(arg['values'])} values for the shape "
                          f"{list(arg['shape'])}")
        kwargs[names.python_identifier(names.snake_case(param["name"]))] = example_value(param, arg)
    return kwargs, ""


def example_outs(record: dict[str, Any]) -> Any:
    """out= as the example makes its outputs (its host vectors, of their shapes and dtypes), for
    the APIs whose output shapes follow from arguments by a rule the bindings do not apply
    (embedding, cat, permute); None when the example does not give every output."""
    given = example_args(record)
    outs = [p for p in record["params"] if p["direction"] == "out"]
    if not outs or any(given.get(p["name"], {}).get("shape") is None for p in outs):
        return None
    if any(len(given[p["name"]]["values"]) != int(np.prod(given[p["name"]]["shape"])) for p in outs):
        return None  # host vectors shorter than their shapes: not arrays to pass
    arrays = [example_value(p, given[p["name"]]) for p in outs]
    return arrays[0] if len(arrays) == 1 else tuple(arrays)


def show(value: Any) -> str:
    if isinstance(value, np.ndarray):
        # Flattened, on one line: the examples print their results that way (result[i] is: ...).
        flat = (value.astype(np.float32) if value.dtype == ml_dtypes.bfloat16 else value).ravel()
        body = np.array2string(flat, precision=6, separator=", ", threshold=16, max_line_width=10**6)
        return f"{value.dtype}{list(value.shape)} {body}"
    return repr(value)


def run(selected: Sequence[str] = ()) -> int:
    import aclnn

    info = aclnn.backend()
    print(f"aclnn backend: {info} (soc {info.soc}; {info.reason})")
    succeeded, raised, unreadable = 0, [], []
    for record in aclnn.apis():
        name = record["python_name"]
        if selected and name not in selected and record["name"] not in selected:
            continue
        print(f"\n{record['name']} -> aclnn.{name}   [{record['source']}]")
        kwargs, why = example_kwargs(record)
        if kwargs is None:
            unreadable.append(record["name"])
            print(f"  skipped: {why}")
            continue
        for key, value in kwargs.items():
            print(f"  {key:>16} = {show(value)}")
        try:
            try:
                result = getattr(aclnn, name)(**kwargs)
            except TypeError as error:
                outs = example_outs(record)
                if "pass out=" not in str(error) or outs is None:
                    raise
                print("  out= as the example makes it (the bindings cannot shape this output)")
                result = getattr(aclnn, name)(**kwargs, out=outs)
        except (TypeError, ValueError) as error:
            # An example argument the bindings refuse (as a user's would be): said, not a crash.
            raised.append(record["name"])
            print(f"  raised {type(error).__name__}: {error}")
            continue
        except aclnn.AclnnError as error:
            # A page's example may break its own parameter table (GeluBackward's passes an INT32
            # gradOutput): the library's answer is the result to show, not a failure of the demo.
            raised.append(record["name"])
            print(f"  raised {type(error).__name__}: status {error.status} {error.status_name}: {error}")
            continue
        succeeded += 1
        outputs = [p["name"] for p in record["params"] if p["direction"] != "in"]
        for output, value in zip(outputs, result if isinstance(result, tuple) else (result,)):
            print(f"  {'-> ' + names.snake_case(output):>16} = {show(value)}")
    print(f"\n{succeeded} calls returned results; {len(raised)} raised an error"
          f"{' (' + ', '.join(raised) + ')' if raised else ''}; {len(unreadable)} without readable example inputs"
          f"{' (' + ', '.join(unreadable) + ')' if unreadable else ''}")
    return 0


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m gen.demo", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("apis", nargs="*", help="only these (Python or aclnn names)")
    return run(parser.parse_args(argv).apis)


if __name__ == "__main__":
    sys.exit(main())
