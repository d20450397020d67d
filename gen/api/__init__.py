"""The Python API of the bound ops, decided once from the IR (torchgen's `api/`).

    kinds.py    one row per parameter kind: its C type, its conversion, its Python and stub
                types, its simulator spelling
    python.py   the Python signature of each API (one object the bindings, stubs, tests and
                docstrings read), out=, the dtype preference of scalars, the output plans
    docs.py     the docstring of each API, from its page and its signature
    calls.py    what a call's arguments are built from where the page states none (the generated
                suites' and make corpus's)
    exports.py  the package's public names besides its operators, by the module defining them

The emitters (gen/emit/) spell these decisions in C++, Python and stubs; none of them imports
another emitter, and none decides them again.
"""
