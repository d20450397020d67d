"""The kernel families' table (gen/families/): one module per family, typed rows per op whose
mistakes are refused when the table is built, and defaults where a row says nothing."""

import importlib
import pkgutil
from pathlib import Path

import pytest

from gen import families, pipeline
from gen.families import Family, Op, Variation

REPO = Path(__file__).resolve().parents[2]


def test_the_table_is_every_module_s_rows_in_module_order():
    # A family joins the table with its module alone: no list elsewhere to forget it in.
    found, rules = [], []
    for info in sorted(pkgutil.iter_modules(families.__path__), key=lambda m: m.name):
        module = importlib.import_module(f"gen.families.{info.name}")
        found += [v for v in vars(module).values() if isinstance(v, Family)]
        rules += [v for v in vars(module).values() if isinstance(v, families.OutputShape)]
    assert [f.name for f in families.FAMILIES] == [f.name for f in found]
    assert [r.name for r in families.OUTPUT_SHAPES] == [r.name for r in families.BASE_SHAPES + tuple(rules)]
    assert families.family("reduce").op("sum") is not None and "reduce" in families.OUTPUT_SHAPE


def test_the_table_refuses_a_rule_no_row_defines_and_a_name_defined_twice():
    toy = Family("toy", "PlanToy", roles=("self", "out"), required=("self",), ops=(Op("a", shape="flat_earth"),))
    with pytest.raises(ValueError, match="flat_earth"):
        families.check([toy], families.OUTPUT_SHAPES)
    with pytest.raises(ValueError, match="defined twice: reduce"):
        families.check(families.FAMILIES + (families.family("reduce"),), families.OUTPUT_SHAPES)
    with pytest.raises(ValueError, match="defined twice: same"):
        families.check(families.FAMILIES, families.OUTPUT_SHAPES + families.BASE_SHAPES[2:])


@pytest.mark.parametrize("row, named", [
    (dict(ops=(Op("a", shapes={"nope": "same"}),)), "nope"),
    (dict(ops=(Op("a", dtypes={"out": "FLOAT"}), Op("b", dtype_source="gone"))), "gone"),
    (dict(ops=(Op("a", variations=(Variation("rank", ("ghost",)),)),)), "ghost"),
    (dict(ops=("a",), fixed_dtypes={"phantom": "INT64"}), "phantom"),
    (dict(ops=(Op("a", dtypes={"out": "FLOAT33"}),)), "FLOAT33"),
    (dict(ops=("a", Op("a", exact=True))), "twice"),
])
def test_a_row_naming_what_its_family_lacks_is_refused_by_name(row, named):
    with pytest.raises(ValueError, match=named):
        Family("toy", "PlanToy", roles=("self", "out"), required=("self",), **row)


def test_an_unknown_variation_kind_is_refused():
    with pytest.raises(ValueError, match="sideways"):
        Variation("sideways", ("self",))


def test_a_bare_op_keeps_the_family_defaults_and_a_row_overrides_them():
    toy = Family("toy", "PlanToy", roles=("self", "other", "out", "indices"), required=("self",),
                 ops=("plain", Op("special", shapes={"indices": "given"}, dtypes={"indices": "INT32"},
                                  dtype_source="other", exact=True, shape_arguments=("other",))),
                 output_shape="reduce", fixed_dtypes={"indices": "INT64"}, variations=(Variation("rank", ("self",)),))
    assert toy.op_names == ("plain", "special")
    assert [families.output_shape(toy, op, "indices") for op in toy.op_names] == ["reduce", "given"]
    assert [families.output_shape(toy, op, "out") for op in toy.op_names] == ["reduce", "reduce"]
    assert [families.fixed_dtype(toy, op, "indices") for op in toy.op_names] == ["INT64", "INT32"]
    assert [families.dtype_source(toy, op) for op in toy.op_names] == ["self", "other"]
    assert [families.exact(toy, op) for op in toy.op_names] == [False, True]
    assert [families.shape_arguments(toy, op) for op in toy.op_names] == [(), ("other",)]
    assert families.shape_variations(toy, "plain", ("rank",)) == [("rank", ("self",))]
    assert families.rules(toy) == {"reduce", "given"}


def test_an_op_rule_for_every_output_and_one_for_a_role():
    conv = families.family("conv")
    assert families.output_shape(conv, "convolution", "out") == "convolution"
    assert families.output_shape(conv, "convolution", "*") == "given"
    assert families.output_shape(conv, "im2col", "out") == "given"


def _diagnostics(tmp_path, table):
    library = tmp_path / "library"
    library.mkdir()
    (library / "ops.toml").write_text(table, encoding="utf-8")
    loaded = pipeline.semantics([], {"aclnnReduceSum"}, library)
    return [d.message for _, d in loaded.diagnostics], loaded.ops


@pytest.mark.parametrize("line, said", [
    ('op = "summ"', "op of family reduce is one of"),
    ('op = "sum"\nroles = { dims = "dims" }', "family reduce has no role dims"),
    ('op = 3', "op of family reduce is one of"),
])
def test_the_semantics_reader_refuses_an_op_or_role_the_family_lacks(tmp_path, line, said):
    messages, ops = _diagnostics(tmp_path, f'[aclnnReduceSum]\nfamily = "reduce"\n{line}\ngolden = "self"\n')
    assert any(said in m for m in messages), messages
    assert all(not op.family for op in ops)


def test_a_rule_the_bindings_apply_brings_the_phrase_their_comments_say_it_with():
    with pytest.raises(ValueError, match="flat_earth"):
        families.OutputShape("flat_earth", "the earth, flattened")
    assert families.OUTPUT_SHAPE["reduce"].describe("self", dims="dim", noop="noop") == \
        "self reduced along dim (none when noop and dim is empty)"
    assert families.OUTPUT_SHAPE["bound_flat"].describe("self").endswith("then the view shape the kernel sets")


def test_roles_plans_and_signature_are_decided_once_per_api(tmp_path):
    # The emitters read the selected API's cached values: the bindings' wrapper and the test
    # planner get one plan object, not two recomputations that could drift apart.
    from gen.api.python import python_signature
    from gen.emit.bindings import wrapper

    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "aclnnReduceSum.md").write_bytes((REPO / "op_docs" / "aclnnReduceSum.md").read_bytes())
    report = pipeline.run([docs], tmp_path / "out", emitters=())
    (bound,) = report.model.apis
    plans = bound.output_plans
    assert bound.family_roles["dim"] == "dims" and any(p.family_shape == "reduce" for p in plans)
    assert wrapper(bound).signature is python_signature(bound) is bound.python_signature
    assert bound.output_plans is plans
