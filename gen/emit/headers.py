"""generated/aclnnop/aclnn_<op>.h: the C prototypes of the pages, where the examples include them;
and generated/include/aclnn_sim/declared_apis.h, which includes them all and names the APIs they declare.

CANN groups APIs into headers by op, not by API (aclnnAdds lives in aclnnop/aclnn_add.h), so a
header declares every API whose page's example includes it.
"""

from __future__ import annotations

import re

from gen.cache import digest
from gen.emit.env import render
from gen.emit.files import FileManager
from gen.model import Model


def include_guard(header: str) -> str:
    return re.sub(r"[^A-Za-z0-9]", "_", header).upper() + "_"


# The simulator's index of the headers, for the checks of its aclop bridge (runtime/sim/src/op_compiler).
DECLARED_APIS = ("include/aclnn_sim/declared_apis.h", "include/aclnn_sim/declared_apis.h.j2")


def emit(model: Model, files: FileManager) -> None:
    headers = model.headers()
    for header, bound in headers.items():
        files.write_derived(header, digest(header, *(b.fingerprint for b in bound)), lambda: render(
            "aclnnop/header.h.j2", guard=include_guard(header), sources=sorted({b.page.source for b in bound}),
            apis=[b.api for b in bound]))
    declared = [(header, [b.name for b in bound]) for header, bound in headers.items()]
    files.write_derived(DECLARED_APIS[0], digest(*(f"{header}:{','.join(apis)}" for header, apis in declared)),
                        lambda: render(DECLARED_APIS[1], headers=declared))
