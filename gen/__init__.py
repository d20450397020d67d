"""aclnn-bindgen: from CANN aclnn documentation pages to Python bindings, headers, stubs and tests.

Stages (data flows one way, `gen.pipeline` runs them): `gen.parse` reads a page into the IR of
`gen.ir`; `gen.model` selects what to bind; `gen.api` decides the Python API; `gen.emit` turns
it into files through the templates in `templates/`. `gen.cli` and `gen.corpus` drive them.
"""
