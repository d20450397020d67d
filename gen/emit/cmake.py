"""generated/sources.cmake: the generated sources the CMake build compiles."""

from __future__ import annotations

import functools

from gen.cache import digest
from gen.emit.env import render
from gen.emit.files import FileManager
from gen.model import Model, translation_units, unit_path


def emit(model: Model, files: FileManager) -> None:
    units = len(translation_units(model.apis))
    examples = sorted(model.examples())
    # Keyed by what it is rendered from (the units, the examples' names), not by every API's
    # fingerprint: an edit of a page that adds no example leaves it as it is, unrendered.
    files.write_derived("sources.cmake", digest("units", str(units), "examples", *examples),
                        functools.partial(sources_cmake, units, examples))


def sources_cmake(units: int, examples: list[str]) -> str:
    return render(
        "cmake/sources.cmake.j2",
        sim_sources=[unit_path("sim", k) for k in range(units)],
        binding_sources=[unit_path("bindings", k) for k in range(units)],
        examples=examples,
    )
