"""aclnn-bindgen: from CANN aclnn documentation pages to Python bindings, headers, stubs and tests.

Stages (data flows one way): `gen.parse` reads a page into the IR of `gen.ir`; `gen.emit` turns
the IR into files through the templates in `templates/`; `gen.cli` drives both.
"""
