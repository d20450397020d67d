"""generated/sources.cmake: the generated sources the CMake build compiles."""

from __future__ import annotations

import functools

from gen.emit.env import render
from gen.emit.files import FileManager
from gen.model import Model, translation_units, unit_path


def emit(model: Model, files: FileManager) -> None:
    files.write_derived("sources.cmake", model.apis_fingerprint, functools.partial(sources_cmake, model))


def sources_cmake(model: Model) -> str:
    units = range(len(translation_units(model.apis)))
    return render(
        "cmake/sources.cmake.j2",
        sim_sources=[unit_path("sim", k) for k in units],
        binding_sources=[unit_path("bindings", k) for k in units],
        examples=sorted(model.examples()),
    )
