"""generated/tests/: a pytest suite per bound API, derived from its page and semantics file.

`tests/test_<op>.py` checks that the active backend (the simulator here, CANN on an NPU) does what
the page promises:

- valid calls against the golden reference (the semantics file's PyTorch expression), within
  CANN's tolerances: every documented dtype (of every product: each file carries the per-SoC
  lists and the support module checks, at run time, that a dtype the active chip's list lacks
  is rejected instead), dtype promotion, out= dtypes and layouts, ranks at the bounds and
  between, non-contiguous and device-resident inputs, empty tensors, broadcasting, each
  documented scalar dtype and each value of a bool attribute — where the page allows them;
- one test per row of the page's error table: the row's category becomes calls that must fail
  with the row's status; a row that cannot be provoked from Python is a skipped test whose
  reason quotes it.

Every decision is taken here, at generation time, into plain data (`Case`s); the templates
(templates/tests/) hold the shape of the tests, and `_aclnn_testing.py` (runtime/python/tests/,
copied as is) turns a Case into a call and checks it.

The package, by what each module plans:
  cases        Case and CaseGroup, and the shapes, layouts and host values every planner shares
  base_call    the base call every case varies, and the facts about the API the planners read
  elementwise  the valid calls of an API whose shapes vary freely (promotion, ranks, broadcasting, ...)
  family       the valid calls of an API a kernel family computes, as the family's rule allows
  errors       one test per row of the page's error table
  rules        one test per rule the page states across parameters
  suite        one API's Suite, rendered by templates/tests/; the emitter (`emit`)
"""

from gen.emit.tests.cases import AUTO, CASE_FIELDS, UNDOCUMENTED, Case, broadcast_shape, exactly
from gen.emit.tests.suite import DIRECTORY, SUPPORT_FILES, Suite, emit, suite, suite_text

__all__ = ["AUTO", "CASE_FIELDS", "DIRECTORY", "SUPPORT_FILES", "UNDOCUMENTED", "Case", "Suite", "broadcast_shape",
           "emit", "exactly", "suite", "suite_text"]
