"""An API's calling example: the page's code block that calls it, the operator header it includes,
and the call traced in it (gen.parse.extractors.example_call)."""

from __future__ import annotations

import dataclasses
from typing import Sequence

from gen.ir import API, Diagnostic, Level
from gen.names import header_file
from gen.parse.extractors.prototypes import find_call
from gen.parse.patterns import lazy_pattern
from gen.parse.readers.document import Section
from gen.parse.sections import EXAMPLE_SECTION, first_section


_INCLUDE = lazy_pattern(r"#\s*include\s*[<\"]([^\">]+)[\">]")


def example_block(sections: Sequence[Section], workspace_fn: str, api: str) -> tuple[str, int]:
    example = first_section(sections, EXAMPLE_SECTION)
    if example is None:
        return "", 0
    code = [b for b in example.code()]
    if not code:
        return "", 0
    for block in code:
        if find_call(block.text, workspace_fn) >= 0:
            return block.text, block.line + 1
    for block in code:
        if "main(" in block.text or "#include" in block.text:
            return block.text, block.line + 1
    return code[0].text, code[0].line + 1


def example_header(example: str, api: str) -> str:
    """The example's operator header: the one named after the API where it includes several
    (aclnnWeightQuantBatchMatmulV2's example includes aclnn_cast.h first), else the first aclnnop/ one."""
    own = header_file(api)
    # Its own header by file name, whatever the directory: the mc2 pages' examples include it from the
    # source tree ("../op_host/op_api/aclnn_quant_matmul_all_reduce.h") after another operator's
    # aclnnop/ header (aclnn_trans_matmul_weight.h), which is not the API's.
    own_file = own.rsplit("/", 1)[-1]
    included = [m.group(1) for m in _INCLUDE.finditer(example)]
    operator_headers = [i for i in included if i.startswith("aclnnop/")]
    named = [i for i in operator_headers if i.rsplit("/", 1)[-1] == own_file]  # aclnnGemm's aclnnop/level2/aclnn_gemm.h
    if named:
        return named[0]
    if any(i.rsplit("/", 1)[-1] == own_file for i in included):
        return own
    return operator_headers[0] if operator_headers else ""


def with_example_call(api: API, diags: list[Diagnostic]) -> API:
    from gen.parse.extractors.example_call import extract_example_call

    try:
        call = extract_example_call(api.example, api, api.example_line)
    except Exception as exc:  # noqa: BLE001 - the example is page content
        diags.append(Diagnostic(Level.WARNING, api.example_line, "example-call-unreadable",
                                f"{api.name}: the example's call could not be traced ({type(exc).__name__})"))
        return api
    return dataclasses.replace(api, example_call=call) if call is not None else api


def example_shapes(api: API) -> dict[str, tuple[int, ...]]:
    """The shapes the example's call gives `api`'s tensors; none where it cannot be traced."""
    from gen.parse.extractors.example_call import example_tensor_shapes

    try:
        return example_tensor_shapes(api.example, api)
    except Exception:  # noqa: BLE001 - the example is page content; with_example_call diagnoses it
        return {}
